/**
 * What a browser's CORS rules do to an MCP client, in words for its errors:
 * a cross-origin answer shows only the response headers the server exposes
 * (so an `Mcp-Session-Id` it did not list in `Access-Control-Expose-Headers`
 * never reaches us), and a blocked request fails like a network error.
 * Loaded with the first error that may need it, so the root entry's eager
 * code does not carry these sentences. Internal.
 *
 * @module
 */

/**
 * The page's origin, when this code runs in a browser (a page or a worker)
 * and `url` is on another origin, so CORS applies to its requests.
 */
function crossOriginPage(url: URL): string | undefined {
  const scope = globalThis as {
    document?: unknown;
    importScripts?: unknown;
    location?: { origin?: unknown };
  };
  // Deno (with --location) has a location too, but no CORS: only pages
  // (document) and web workers (importScripts) count.
  if (
    scope.document === undefined && typeof scope.importScripts !== "function"
  ) return undefined;
  const origin = scope.location?.origin;
  return typeof origin === "string" && origin !== url.origin
    ? origin
    : undefined;
}

/** The header a browser client needs exposed, as the server must send it. */
const EXPOSE = "`Access-Control-Expose-Headers: Mcp-Session-Id`";

/**
 * Why a cross-origin `initialize` answer without a visible session id may
 * have made the next request fail, and the fix.
 */
export const HIDDEN_SESSION_HINT: string =
  "The answer to initialize came cross-origin (CORS) and showed no Mcp-Session-Id: " +
  "a browser hides every response header the server does not list in Access-Control-Expose-Headers, " +
  `so a session id the server assigned, if any, never reached this client. Have the server (or its proxy) send ${EXPOSE}.`;

/**
 * What a failed fetch of `url` may mean when it was a browser's
 * cross-origin request, and what the server must answer.
 *
 * @param url The server's URL.
 * @returns The hint as one sentence after a space, or `""` outside browsers
 * and for a same-origin URL.
 */
export function corsBlockedHint(url: URL): string {
  const origin = crossOriginPage(url);
  if (origin === undefined) return "";
  return ` In a browser this is also how a request blocked by CORS fails (the browser's console says which header is missing): ` +
    `the server (or its proxy) must answer requests from ${origin} with Access-Control-Allow-Origin, ` +
    `answer the OPTIONS preflight with Access-Control-Allow-Methods (GET, POST, DELETE) and Access-Control-Allow-Headers ` +
    `(Content-Type, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID and any set in "headers"), ` +
    `and send ${EXPOSE}.`;
}
