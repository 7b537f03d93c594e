/**
 * Keeps secrets out of messages: the values of a server's `env` and
 * `headers` (and the token alone, as in "Bearer <token>"), and the
 * credentials and query values of its URL. Internal.
 *
 * @module
 */

import type { MCPServerConfig } from "./config.ts";

/** What replaces a secret in a message. */
export const REDACTED = "***";

/** Shorter values are left alone: masking them would mangle ordinary words. */
const MIN_SECRET_LENGTH = 6;

/** The secrets of one server config, longest first (so a value is masked before its parts). */
export function configSecrets(config: MCPServerConfig): string[] {
  const secrets: string[] = [];
  const values = [
    ...Object.values(config.env ?? {}),
    ...Object.values(config.headers ?? {}),
  ];
  for (const value of values) secrets.push(value, ...value.split(/\s+/));
  if (config.url) {
    try {
      const url = new URL(config.url);
      secrets.push(
        decodeURIComponent(url.username),
        decodeURIComponent(url.password),
        ...url.searchParams.values(),
      );
    } catch {
      // validated elsewhere; nothing to hide when it is not a URL
    }
  }
  return [
    ...new Set(secrets.filter((value) => value.length >= MIN_SECRET_LENGTH)),
  ]
    .sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by {@linkcode REDACTED}. */
export function redact(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (redacted.includes(secret)) {
      redacted = redacted.split(secret).join(REDACTED);
    }
  }
  return redacted;
}
