/**
 * The options the two remote transports share — the streamable HTTP
 * transport's and the legacy SSE transport's — documented once.
 *
 * @module
 */

import type { OAuthClientProviderLike } from "../auth/provider.ts";

/**
 * The options of `StreamableHTTPTransportOptions` and
 * `SSEClientTransportOptions` alike.
 *
 * @example
 * ```ts
 * import type { RemoteTransportOptions } from "@cleveragents/mcp-adapter";
 *
 * const remote: RemoteTransportOptions = {
 *   url: "https://example.com/mcp",
 *   headers: { Authorization: "Bearer <token>" },
 *   maxMessageBytes: 8 * 1024 * 1024,
 * };
 * console.log(remote.url);
 * ```
 */
export interface RemoteTransportOptions {
  /**
   * The server's URL: the streamable HTTP transport's MCP endpoint, e.g.
   * `"https://example.com/mcp"`, or the SSE transport's SSE URL, e.g.
   * `"https://example.com/sse"`.
   */
  url: string | URL;
  /**
   * Headers sent with every request (streamable HTTP: POST, GET and DELETE;
   * SSE: the GET and every POST), e.g. `Authorization`. Their values never
   * appear in error messages.
   */
  headers?: Record<string, string>;
  /** The fetch to use (proxies, tests, edge runtimes); `globalThis.fetch` by default. */
  fetch?: typeof fetch;
  /**
   * OAuth: the MCP SDK's `OAuthClientProvider` (e.g. its
   * `ClientCredentialsProvider`, or your own for the authorization-code
   * flow). Its token goes on every request; a 401, or 403
   * `insufficient_scope`, runs the SDK's `auth()` flow (loaded lazily) and
   * retries. When the user must approve in a browser the request (for SSE:
   * `start()` or `send()`) fails with
   * `MCPAuthorizationRequiredError`; complete it with the
   * transport's `finishAuth()`. Takes the place of `authorize` and
   * `getHeaders`.
   */
  authProvider?: OAuthClientProviderLike;
  /**
   * Called when the server answers 401, or 403 with `insufficient_scope`
   * (its body may already have been read). Resolve `true` once new
   * credentials are in place: `getHeaders` is called again and the request
   * is retried (at most 3 times). Resolve `false` to fail the request.
   */
  authorize?: (response: Response) => Promise<boolean>;
  /**
   * Supplies extra headers (e.g. `Authorization: Bearer …`): called before
   * every request. They join `headers` and are redacted from error
   * messages too.
   */
  getHeaders?: () => Promise<Record<string, string>>;
  /**
   * The largest message the server may send, in bytes after decoding (a
   * `Content-Encoding: gzip` body is counted inflated): a JSON answer
   * longer than this fails its request early; an SSE event (counted in
   * characters) longer than this ends its stream — on the SSE transport,
   * the connection. Default 64 MiB.
   */
  maxMessageBytes?: number;
  /** Not supported: use `headers`, `fetch` and `authorize` instead. */
  requestInit?: never;
}
