/**
 * Config files and skills for `@cleveragents/mcp-adapter`: load MCP servers
 * from YAML or JSON (this library's format, Claude Desktop / Cursor / Claude
 * Code `mcpServers` files, VS Code `servers` files) with `${VAR}`
 * interpolation, VS Code's `${workspaceFolder}`, `${userHome}` and
 * `${input:id}` variables, and `envFile`s, reporting every problem of a file
 * at once; and skill files that select registry tools.
 *
 * A separate entry so that the root entry stays free of the YAML parser.
 * Files are read with `node:fs/promises`, imported on first use.
 *
 * @example Load a config file and a skill
 * ```ts ignore
 * import { loadConfig, loadSkill } from "@cleveragents/mcp-adapter/config";
 *
 * const config = await loadConfig("mcp.yaml");
 * for (const server of config.servers) {
 *   console.log(server.namespace, server.config.transport, server.enabled);
 * }
 * const skill = await loadSkill("skill.yaml");
 * console.log(skill.name, skill.tools);
 * ```
 *
 * @module
 */

export {
  CONFIG_SCHEMA,
  loadConfig,
  MCPConfigFileError,
  parseConfig,
} from "./src/config/load.ts";
export type {
  ConfigFormat,
  ConfigInput,
  ConfigInputs,
  ConfigText,
  ConfigVariableOptions,
  EnterpriseManagedAuth,
  LoadConfigOptions,
  LoadedConfig,
  MCPConfigFileErrorOptions,
  MCPConfigFileProblem,
  OAuthLoginAuth,
  ParseConfigOptions,
  ServerAuth,
  ServerEntry,
  WorkloadIdentityAuth,
} from "./src/config/load.ts";
export { loadSkill, parseSkill } from "./src/config/skill.ts";
export type { ParseSkillOptions, Skill } from "./src/config/skill.ts";
// Types the API above refers to, also exported by the root entry; listed
// here so this entry documents on its own (`deno doc --lint`).
export type { CapabilityOverrides } from "./src/tools/capabilities.ts";
export type { MCPServerConfig, MCPTransportKind } from "./src/server_config.ts";
export type { MCPAdapterError, MCPConfigError } from "./src/errors.ts";
export type { RegisteredTool, ToolRegistry } from "./src/tools/registry.ts";
export type {
  JsonSchema,
  MCPErrorKind,
  MCPToolFilter,
  MCPToolResult,
  ToolCapability,
} from "./src/types.ts";
