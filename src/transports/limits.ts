/**
 * The size limit on what a server sends, shared by every transport.
 * Internal.
 *
 * @module
 */

import { MCPConfigError, MCPConnectionError } from "../errors.ts";

/** Default of the `maxMessageBytes` options: 64 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES: number = 64 * 1024 * 1024;

/**
 * Checks a `maxMessageBytes` option.
 *
 * @param value The option as given.
 * @param owner Names the option's owner in the message, e.g. "StdioTransport".
 * @returns The value, or the default when it is `undefined`.
 * @throws {MCPConfigError} When it is not a positive whole number of bytes.
 */
export function checkMaxMessageBytes(
  value: number | undefined,
  owner: string,
): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new MCPConfigError(
      "maxMessageBytes",
      `${owner}: "maxMessageBytes" must be a positive whole number of bytes (default ${DEFAULT_MAX_MESSAGE_BYTES}, 64 MiB), got ${
        String(value)
      }.`,
    );
  }
  return value;
}

/**
 * The error for a message past the limit.
 *
 * @param source Who sent it, e.g. `MCP server "npx"` or `MCP server at "https://…"`.
 * @param limit The limit in bytes.
 * @param outcome What happened because of it, e.g. "the connection was closed".
 */
export function messageTooLarge(
  source: string,
  limit: number,
  outcome: string,
): MCPConnectionError {
  return new MCPConnectionError(
    `${source} sent a message larger than maxMessageBytes (${
      limit.toLocaleString("en-US")
    } bytes); ${outcome}. If the server legitimately sends messages this large, raise the maxMessageBytes option.`,
  );
}
