/**
 * The process backend of runtimes that cannot start processes: browsers
 * and edge runtimes (Cloudflare Workers, Vercel Edge). It imports nothing,
 * so a bundle that resolves the stdio transport's backend to it holds no
 * `node:` import. The npm build's `#stdio-process` import resolves here
 * under the `workerd`, `edge-light`, `worker` and `browser` conditions; the
 * stdio transport turns the rejection into an `MCPConnectionError` that
 * says to use an HTTP transport. Internal: never exported.
 *
 * @module
 */

import type { ProcessBackend } from "./backend.ts";

/** Why stdio cannot work here, for the transport's error's `cause`. */
export const UNAVAILABLE_MESSAGE =
  "This runtime cannot start processes (a browser or an edge runtime such as Cloudflare Workers), so MCP servers cannot be run over stdio here; the stdio transport needs Deno, Node.js or Bun. Connect to the server over streamable HTTP or SSE instead.";

/**
 * Rejects: there is no process backend here.
 *
 * @returns Never resolves.
 * @throws {Error} Always, with {@linkcode UNAVAILABLE_MESSAGE}.
 */
export function loadBackend(): Promise<ProcessBackend> {
  return Promise.reject(new Error(UNAVAILABLE_MESSAGE));
}
