/**
 * `tools/list` to the end (`pages.ts` follows the cursor), and the
 * conversion of raw tool entries into descriptors. Internal.
 *
 * @module
 */

import { isRecord } from "../util/values.ts";
import type { Result } from "./session.ts";
import type { MCPToolDescriptor, ToolAnnotations } from "../types.ts";
import { eachPage, type PageHints } from "./pages.ts";

/**
 * Lists every page of tools.
 *
 * @param list Sends one `tools/list` request.
 * @param server Names the server in error messages.
 * @param modern Whether the pages carry cache hints (MCP 2026-07-28).
 * @returns The tools by name, and the list's cache hints.
 * @throws {MCPAdapterError} `invalid_response` when the pagination is broken.
 */
export async function listAllTools(
  list: (cursor: string | undefined) => Promise<Result>,
  server: string,
  modern: boolean,
): Promise<{ tools: Map<string, MCPToolDescriptor>; hints: PageHints }> {
  const tools = new Map<string, MCPToolDescriptor>();
  const hints = await eachPage(list, {
    method: "tools/list",
    server,
    modern,
    onPage: (page) => {
      for (const raw of Array.isArray(page.tools) ? page.tools : []) {
        const tool = toDescriptor(raw);
        if (tool) tools.set(tool.name, tool);
      }
    },
  });
  return { tools, hints };
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
