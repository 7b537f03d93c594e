/**
 * Follows a redirect of an MCP server within its origin, as the remote
 * transports' HTTP client does (`_client.ts`), which loads this module when a
 * redirect comes. Internal.
 *
 * @module
 */

import { displayUrl } from "../util/redact.ts";
import { MCPConnectionError } from "../errors.ts";
import { discardBody } from "./_body.ts";
import { REDIRECT_STATUSES } from "./_headers.ts";

const MAX_REDIRECTS = 5;

/** What {@linkcode followWithinOrigin} refetches with. */
export interface RedirectRequest {
  /** The client's fetch. */
  fetch: typeof fetch;
  /** The request's method. */
  method: string;
  /** Where it went first. */
  url: URL;
  /** What it was sent with (manual redirects). */
  init: RequestInit;
}

/**
 * Follows the redirect `response` within the origin of `request.url`,
 * fetching with the same `init` again; refuses any other.
 *
 * @returns The first answer that is not a redirect (or has no usable `Location`).
 * @throws {MCPConnectionError} For a redirect to another origin, one the
 * runtime hides, one that would drop a POST body, or too many of them.
 */
export async function followWithinOrigin(
  response: Response,
  request: RedirectRequest,
): Promise<Response> {
  const { fetch: fetchFn, method, url, init } = request;
  let target = url;
  for (let hop = 0;; hop++) {
    if (hop > 0) response = await fetchFn(target, init);
    if (response.type === "opaqueredirect") {
      throw new MCPConnectionError(
        `MCP server at ${
          displayUrl(url)
        } answered ${method} with a redirect this runtime does not expose; set "url" to the final address.`,
      );
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    const location = response.headers.get("location");
    let next: URL | undefined;
    try {
      next = location === null ? undefined : new URL(location, target);
    } catch {
      next = undefined;
    }
    if (next === undefined) return response;
    discardBody(response);
    const keepsMethod = response.status === 307 ||
      response.status === 308 || method !== "POST";
    if (
      next.origin !== url.origin || next.username !== url.username ||
      next.password !== url.password
    ) {
      throw new MCPConnectionError(
        `MCP server at ${displayUrl(url)} redirected ${method} to ${
          displayUrl(next)
        }, another origin; the configured headers are never sent there. Set "url" to that address if you trust it.`,
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new MCPConnectionError(
        `MCP server at ${
          displayUrl(url)
        } redirected ${method} more than ${MAX_REDIRECTS} times; set "url" to the final address.`,
      );
    }
    if (!keepsMethod) {
      throw new MCPConnectionError(
        `MCP server at ${
          displayUrl(url)
        } answered POST with HTTP ${response.status}, a redirect that would drop the request body; set "url" to ${
          displayUrl(next)
        }.`,
      );
    }
    target = next;
  }
}
