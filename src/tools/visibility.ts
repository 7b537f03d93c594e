/**
 * Which registered tools a model may be offered: the MCP Apps rule, in one
 * place for the model hand-off and the tool catalog. Internal.
 *
 * @module
 */

import type { RegisteredTool } from "./registry.ts";

/**
 * Whether a tool may reach a model: MCP Apps tools whose `visibility` lacks
 * `"model"` are for the server's app only (the spec: a host MUST NOT
 * include them in the agent's tool list).
 */
export function forModel(tool: RegisteredTool): boolean {
  return tool.ui === undefined || tool.ui.visibility.includes("model");
}
