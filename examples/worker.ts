/**
 * A Cloudflare Worker (any workerd-based runtime) that calls a tool of a
 * remote MCP server over streamable HTTP. The root entry uses only web APIs
 * (`fetch`, web streams, `AbortSignal`); under wrangler's `workerd` condition
 * the npm package's stdio transport gets a backend that imports nothing, so
 * the Worker bundles into one file (wrangler's default) without a warning
 * and needs no `nodejs_compat`.
 *
 * Configure the server's endpoint as the text binding `MCP_URL` (in
 * `wrangler.toml`: `[vars] MCP_URL = "https://example.com/mcp"`). The Worker
 * answers `GET /?a=2&b=3` with the result envelope of the server's `get-sum`
 * tool (as `@modelcontextprotocol/server-everything` has it): 200 on success,
 * 502 when the server could not be reached or the call failed.
 *
 * `deno task smoke:workerd` bundles this file with `wrangler deploy --dry-run`
 * and serves it with `workerd` against server-everything on 127.0.0.1.
 *
 * @module
 */

import { MCPToolAdapter } from "@cleveragents/mcp-adapter";

/** The Worker's bindings. */
export interface Env {
  /** The MCP server's streamable-HTTP endpoint, e.g. `https://example.com/mcp`. */
  MCP_URL: string;
}

/** What a Worker's `fetch` is handed beside the request (`ExecutionContext`). */
export interface Context {
  /** Keeps the Worker alive for `promise` after the response went out. */
  waitUntil(promise: Promise<unknown>): void;
}

export default {
  /**
   * Connects, calls `get-sum`, answers, then disconnects after the answer
   * (`ctx.waitUntil`). One adapter per request: a Worker cannot carry a
   * connection from one request to the next, so it opens no GET stream
   * for server messages (`serverStream: false`).
   */
  async fetch(request: Request, env: Env, ctx: Context): Promise<Response> {
    const query = new URL(request.url).searchParams;
    const a = Number(query.get("a") ?? 2);
    const b = Number(query.get("b") ?? 3);
    const adapter = new MCPToolAdapter({
      name: "remote",
      transport: "streamable-http",
      url: env.MCP_URL,
    }, { serverStream: false });
    try {
      await adapter.connect({ timeoutMs: 10_000 });
      const result = await adapter.invoke("get-sum", { a, b });
      return Response.json(result, { status: result.success ? 200 : 502 });
    } catch (error) {
      // MCPConnectionError: the server could not be reached or initialized.
      const message = error instanceof Error ? error.message : String(error);
      return Response.json({ success: false, error: message }, { status: 502 });
    } finally {
      // The answer does not wait for the session's DELETE.
      ctx.waitUntil(adapter.disconnect());
    }
  },
};
