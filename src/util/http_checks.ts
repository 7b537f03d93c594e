/**
 * The checks of HTTP header names, header values and server URLs that both
 * the server-config check (`server_config.ts`) and the remote transports
 * (`transports/headers.ts`) make: one definition, two wordings of the
 * message (a config problem, or a transport's `MCPConfigError`). Internal.
 *
 * @module
 */

/** An HTTP header name: RFC 9110's `token`. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value must not hold: a line break would split the request. */
export const BAD_HEADER_VALUE = /[\0\r\n]/;

/** Whether `name` is a valid HTTP header name (letters, digits, dashes and RFC 9110's token characters). */
export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/** Whether `value` may be sent as a header value: no line break, no NUL. */
export function isHeaderValue(value: string): boolean {
  return !BAD_HEADER_VALUE.test(value);
}

/** `url` parsed, when it is an absolute `http:` or `https:` URL; else `undefined`. */
export function httpUrl(url: string | URL): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:"
    ? parsed
    : undefined;
}
