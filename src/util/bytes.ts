/**
 * Joining byte chunks, and the size of text and base64 measured against a
 * cap. Internal.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";

/**
 * The bytes of `parts` in one array of `total` bytes (their summed
 * length); a single part is returned as it is, without a copy.
 */
export function concatBytes(
  parts: readonly Uint8Array[],
  total: number,
): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/**
 * The UTF-8 size of `text` when it is at most `max` bytes, else
 * `undefined`; counted, not encoded, and given up as soon as it is over.
 */
export function utf8Within(text: string, max: number): number | undefined {
  if (text.length > max) return undefined;
  // deno-lint-ignore no-control-regex
  if (/^[\u0000-\u007f]*$/.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (
      unit >= 0xd800 && unit < 0xdc00 &&
      (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    ) {
      bytes += 4;
      i++;
    } else bytes += 3; // a lone surrogate is encoded as U+FFFD
    if (bytes > max) return undefined;
  }
  return bytes;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * How many bytes the base64 `text` decodes to, or `undefined` when it is
 * not base64 (whitespace is not allowed: MCP blobs have none).
 */
export function base64Size(text: string): number | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return text.length / 4 * 3 - padding;
}

/**
 * Checks the `maxBytes` option of a read.
 *
 * @param value The option as given.
 * @param method Names the method in the message, e.g. `readResource()`.
 * @throws {MCPConfigError} When it is not a positive whole number of bytes.
 */
export function checkMaxBytes(value: number, method: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new MCPConfigError(
      "maxBytes",
      `${method}'s maxBytes must be a positive whole number of bytes, got ${
        JSON.stringify(String(value))
      }`,
    );
  }
  return value;
}

/** SHA-256 of `text` (UTF-8), hex. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return [...new Uint8Array(digest)].map((byte) =>
    byte.toString(16).padStart(2, "0")
  ).join("");
}
