/**
 * The configured side of a remote transport's requests: its server URL and
 * headers, checked once when the transport is made (the rules themselves
 * are `util/http_checks.ts`, which the server-config check shares), and
 * the media type and redirect statuses of a response. Web standards only.
 * Internal.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";
import { httpUrl, isHeaderName, isHeaderValue } from "../util/http_checks.ts";

/** The statuses of a redirect, followed within the origin (`_redirect.ts`). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([
  301,
  302,
  303,
  307,
  308,
]);

/** The `type/subtype` of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | null): string | undefined {
  if (header === null) return undefined;
  const semicolon = header.indexOf(";");
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim()
    .toLowerCase();
  return type === "" ? undefined : type;
}

/** Parses and checks the configured server URL. */
export function serverUrl(url: unknown, transport: string): URL {
  const parsed = httpUrl(url as string | URL);
  if (parsed === undefined) {
    throw new MCPConfigError(
      "url",
      `${transport} needs an absolute http(s) "url" such as "https://example.com/mcp", got ${
        typeof url === "string" ? JSON.stringify(url) : typeof url
      }.`,
    );
  }
  return parsed;
}

/**
 * Checks the configured headers and returns them with lower-cased names.
 * Messages name the header, never its value.
 */
export function checkHeaders(
  headers: Record<string, string> | undefined,
  reserved: readonly string[],
  transport: string,
): Record<string, string> {
  const checked: Record<string, string> = {};
  if (headers === undefined) return checked;
  if (headers === null || typeof headers !== "object") {
    throw new MCPConfigError(
      "headers",
      `${transport}: "headers" must be an object of header names to string values.`,
    );
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) {
      throw new MCPConfigError(
        "headers",
        `${transport}: ${
          JSON.stringify(name)
        } is not a valid HTTP header name; use letters, digits and dashes.`,
      );
    }
    const key = name.toLowerCase();
    if (typeof value !== "string" || !isHeaderValue(value)) {
      throw new MCPConfigError(
        "headers",
        `${transport}: the value of header "${name}" must be a string without line breaks or NUL characters.`,
      );
    }
    if (reserved.includes(key)) {
      throw new MCPConfigError(
        "headers",
        `${transport}: header "${name}" is managed by the transport; remove it from "headers".`,
      );
    }
    checked[key] = value;
  }
  return checked;
}
