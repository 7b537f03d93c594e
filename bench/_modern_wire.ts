/**
 * What the raw baseline clients send to speak MCP 2026-07-28: the revision,
 * the `_meta` envelope every request carries (the keys ours sends: protocol
 * version, client info and client capabilities, here none, where ours may
 * declare some) and, over streamable HTTP, the headers that repeat it.
 * Built once; a raw client puts the same frozen object into every request.
 * Internal to the benchmarks.
 *
 * @module
 */

/** The modern revision the benchmark's servers speak. */
export const MODERN_VERSION = "2026-07-28";

/** The `_meta` of every modern request. */
export const MODERN_ENVELOPE: Readonly<Record<string, unknown>> = Object
  .freeze({
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": { name: "bench-raw", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  });

/** The `params` of a modern `tools/call`. */
export function modernCall(
  name: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  return { name, arguments: args, _meta: MODERN_ENVELOPE };
}

/** The per-request headers of a modern POST: `Mcp-Method`, and `Mcp-Name` for a tool call. */
export function modernHeaders(
  method: string,
  name?: string,
): Record<string, string> {
  return name === undefined
    ? { "mcp-method": method }
    : { "mcp-method": method, "mcp-name": name };
}
