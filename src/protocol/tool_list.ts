/**
 * `tools/list` read to the end (`pages.ts` follows the cursor): each raw
 * entry into a descriptor, the tools whose `x-mcp-header` annotations break
 * the rules left out (on modern HTTP), and the list's cache hints as an
 * instant. Loaded by `Connection.listTools()` with the first listing.
 * Internal.
 *
 * @module
 */

import { isRecord } from "../util/values.ts";
import type { Result } from "./session.ts";
import type {
  JsonSchema,
  MCPToolDescriptor,
  ToolAnnotations,
} from "../types.ts";
import { eachPage, MAX_ENTRIES } from "./pages.ts";

/** A server's tools, as one listing found them. */
export interface ToolList {
  /** The tools by name. */
  tools: Map<string, MCPToolDescriptor>;
  /**
   * Until when (a `performance.now()`) the list is fresh: the shortest
   * page's `ttlMs` on a modern server, `Infinity` for a 2025-era list
   * (fresh until a change is announced).
   */
  freshUntil: number;
  /** Whether the list is the user's own (a page not `cacheScope: "public"`). */
  personal: boolean;
}

/** How a listing reads its pages. */
export interface ListToolsOptions {
  /** Names the server in messages. */
  server: string;
  /** Whether the pages carry cache hints (MCP 2026-07-28). */
  modern: boolean;
  /** When the listing started, a `performance.now()`. */
  startedAt: number;
  /** What is wrong with a schema's `x-mcp-header` annotations (modern HTTP only). */
  headerProblem?: ((schema: JsonSchema) => string | undefined) | undefined;
  /** Told each tool left out, and why. */
  note: (message: string) => void;
}

/**
 * Lists every page of tools.
 *
 * @param list Sends one `tools/list` request.
 * @param options The server, the era, the start, the header rules and the notes.
 * @returns The tools by name, and the list's cache hints.
 * @throws {MCPAdapterError} `invalid_response` when the pagination is broken.
 */
export async function listAllTools(
  list: (cursor: string | undefined) => Promise<Result>,
  options: ListToolsOptions,
): Promise<ToolList> {
  const tools = new Map<string, MCPToolDescriptor>();
  let full = false;
  const hints = await eachPage(list, {
    method: "tools/list",
    server: options.server,
    modern: options.modern,
    onPage: (page) => {
      for (const raw of Array.isArray(page.tools) ? page.tools : []) {
        const tool = toDescriptor(raw);
        if (tool === undefined) continue;
        if (tools.size >= MAX_ENTRIES && !tools.has(tool.name)) {
          full = true;
          return;
        }
        tools.set(tool.name, tool);
      }
    },
  });
  if (full) {
    options.note(
      `tools/list listed more than ${
        MAX_ENTRIES.toLocaleString("en-US")
      } tools; the rest are left out`,
    );
  }
  const headerProblem = options.headerProblem;
  if (headerProblem) dropInvalidHeaders(tools, headerProblem, options.note);
  return {
    tools,
    freshUntil: options.startedAt + hints.ttlMs,
    personal: hints.personal,
  };
}

/**
 * Leaves out the tools whose `x-mcp-header` annotations break the rules
 * of MCP 2026-07-28 (a client on HTTP must not call them), each with a
 * note.
 */
function dropInvalidHeaders(
  tools: Map<string, MCPToolDescriptor>,
  headerProblem: (schema: JsonSchema) => string | undefined,
  note: (message: string) => void,
): void {
  for (const [name, tool] of tools) {
    const problem = headerProblem(tool.inputSchema);
    if (problem === undefined) continue;
    tools.delete(name);
    note(
      `tool ${
        JSON.stringify(name.slice(0, 80))
      } is left out of the tool list: its input schema's ${problem}. Report this to the server's maintainers.`,
    );
  }
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
