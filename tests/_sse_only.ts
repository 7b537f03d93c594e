/**
 * A legacy (2024-11-05) HTTP+SSE server that knows nothing of streamable
 * HTTP, for the streamable-HTTP → SSE fallback tests: a POST of
 * `initialize` to its SSE URL is refused the way deployed servers refuse it.
 * Runs under `deno test` and, transpiled, under `node --test`.
 *
 * @module
 */

import type { ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { sdkSseServer, type TestHttpServer } from "./_remote.ts";
import type { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";

/**
 * How the server answers a POST to its SSE URL. The specification's
 * fallback procedure covers exactly 400, 404 and 405:
 * - `404`: Express with only `app.get("/sse")` ("Cannot POST /sse", HTML);
 *   also server-everything in `sse` mode.
 * - `405`: Starlette/FastMCP routes (`Allow: GET`).
 * - `400`: servers that reject the missing `sessionId` query parameter.
 * - `400-json`: the same, as a JSON-RPC error body.
 */
export type RefusePost = "404" | "405" | "400" | "400-json";

const REFUSALS: Record<RefusePost, (res: ServerResponse) => void> = {
  "404": (res) =>
    void res.writeHead(404, { "content-type": "text/html; charset=utf-8" })
      .end("<pre>Cannot POST /sse</pre>"),
  "405": (res) =>
    void res.writeHead(405, { allow: "GET", "content-type": "text/plain" })
      .end("Method Not Allowed"),
  "400": (res) =>
    void res.writeHead(400, { "content-type": "text/plain" })
      .end("Missing sessionId parameter"),
  "400-json": (res) =>
    void res.writeHead(400, { "content-type": "application/json" })
      .end(JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Bad Request: sessionId is required" },
        id: null,
      })),
};

/** Options of {@linkcode sseOnlyServer}. */
export interface SseOnlyOptions {
  /** How a POST to the SSE URL is refused. Default `"405"`. */
  refusePost?: RefusePost;
  /** Adds tools to each new McpServer (the base is `createTestServer()`). */
  extend?: (server: McpServer) => void;
}

/** A listening legacy SSE server. */
export interface SseOnlyServer extends TestHttpServer {
  /** `http://127.0.0.1:<port>/sse`: GET opens the stream; POST is refused. */
  url: string;
  /** Live SSE sessions by id. */
  sessions: Map<string, SSEServerTransport>;
}

/**
 * Serves an SDK `SSEServerTransport` server: GET `/sse` opens a session and
 * sends the `endpoint` event (`/messages?sessionId=…`), POST `/messages`
 * feeds it, and a POST to `/sse` — a streamable-HTTP client's `initialize` —
 * is refused as `refusePost` says. `requests` records every exchange, so a
 * test can check the order (POST /sse refused, then GET /sse).
 *
 * @example
 * ```ts ignore
 * const server = await sseOnlyServer({ refusePost: "404" });
 * // connect a client with { transport: "streamable-http", url: server.url }
 * await server.close();
 * ```
 */
export function sseOnlyServer(
  options: SseOnlyOptions = {},
): Promise<SseOnlyServer> {
  const refuse = REFUSALS[options.refusePost ?? "405"];
  return sdkSseServer({
    ...(options.extend ? { extend: options.extend } : {}),
    intercept: (req, res) => {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (path !== "/sse" || req.method === "GET") return false;
      refuse(res);
      return true;
    },
  });
}
