/**
 * The header value encoding of MCP 2026-07-28 (`Mcp-Name`, `Mcp-Param-*`):
 * plain text when it is safe in an HTTP header, else
 * `=?base64?{Base64 of the UTF-8 bytes}?=`. Internal.
 *
 * @module
 */

/** A value that looks encoded already must be encoded, or it would be decoded. */
const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * Whether `value` must be Base64-encoded: a character outside printable
 * ASCII (tabs and line breaks included), space at either end, or the
 * encoded form's own shape.
 */
function needsEncoding(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return true;
  }
  return value !== value.trim() || SENTINEL.test(value);
}

/** `value` as an MCP header value. */
export function headerValue(value: string): string {
  if (!needsEncoding(value)) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return `=?base64?${btoa(binary)}?=`;
}
