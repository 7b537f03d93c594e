/**
 * `tools/list` to the end: pagination with a loop guard, and the conversion
 * of raw tool entries into descriptors. Internal.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import { isRecord } from "../util/values.ts";
import type { Result } from "./session.ts";
import type { MCPToolDescriptor, ToolAnnotations } from "../types.ts";

/** More pages than any real server sends; a bound, so a broken server cannot keep us listing. */
const MAX_PAGES = 1000;

/**
 * Follows `nextCursor` until the server stops sending one. A repeated cursor
 * is an error rather than a silently truncated list.
 *
 * @param list Sends one `tools/list` request.
 * @param server Names the server in error messages.
 */
export async function listAllTools(
  list: (cursor: string | undefined) => Promise<Result>,
  server: string,
): Promise<Map<string, MCPToolDescriptor>> {
  const tools = new Map<string, MCPToolDescriptor>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await list(cursor);
    for (const raw of Array.isArray(result.tools) ? result.tools : []) {
      const tool = toDescriptor(raw);
      if (tool) tools.set(tool.name, tool);
    }
    const next = result.nextCursor;
    if (typeof next !== "string") return tools;
    if (seen.has(next)) {
      throw new MCPAdapterError(
        "invalid_response",
        `MCP server "${server}" repeated the tools/list cursor ${
          JSON.stringify(next.slice(0, 40))
        }; its pagination loops, so the tool list is incomplete. Report this to the server's maintainers.`,
      );
    }
    seen.add(next);
    cursor = next;
  }
  throw new MCPAdapterError(
    "invalid_response",
    `MCP server "${server}" sent more than ${MAX_PAGES} pages of tools; stopping`,
  );
}

/** A descriptor from one raw `tools/list` entry; `undefined` for an entry without a name. */
function toDescriptor(raw: unknown): MCPToolDescriptor | undefined {
  if (!isRecord(raw)) return undefined;
  if (typeof raw.name !== "string" || raw.name === "") return undefined;
  const descriptor: MCPToolDescriptor = {
    name: raw.name,
    description: typeof raw.description === "string" ? raw.description : "",
    inputSchema: isRecord(raw.inputSchema)
      ? raw.inputSchema
      : { type: "object" },
  };
  if (typeof raw.title === "string") descriptor.title = raw.title;
  if (isRecord(raw.outputSchema)) descriptor.outputSchema = raw.outputSchema;
  if (isRecord(raw.annotations)) {
    descriptor.annotations = raw.annotations as ToolAnnotations;
  }
  if (isRecord(raw.execution)) descriptor.execution = raw.execution;
  // MCP Apps' `ui` is read from it by the adapter (`apps/_tool_ui.ts`, lazily).
  if (isRecord(raw._meta)) descriptor._meta = raw._meta;
  return descriptor;
}
