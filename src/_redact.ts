/**
 * Keeps secrets out of messages: header and env values — whole, and each
 * part, so a server echoing only the token of `Bearer <token>` (or one value
 * of a cookie list) leaks nothing — and the credentials and query values of
 * a server URL. Internal.
 *
 * @module
 */

import type { MCPServerConfig } from "./config.ts";

/** What replaces a secret in a message. */
export const REDACTED = "[redacted]";

/** A whole value shorter than this is not redacted. */
const MIN_SECRET_CHARS = 4;
/** A part of a value shorter than this is not redacted on its own: it would mangle ordinary words. */
const MIN_PART_CHARS = 6;
/** What separates the parts of a value: spaces, list commas, cookie semicolons, quotes. */
const PART_SEPARATORS = /[\s,;"]+/;
/** Authorization scheme names: not secret, and common words in error bodies. */
const AUTH_SCHEMES = new Set([
  "basic",
  "bearer",
  "digest",
  "dpop",
  "negotiate",
  "token",
]);

/** The secrets in these values, longest first (so a value is masked before its parts). */
export function secretsOf(values: Iterable<string>): string[] {
  const secrets = new Set<string>();
  const add = (part: string, min: number) => {
    if (part.length < min || AUTH_SCHEMES.has(part.toLowerCase())) return;
    secrets.add(part);
    // A body may quote the value URL-encoded (a form, a query string).
    const encoded = encodeURIComponent(part);
    if (encoded !== part) secrets.add(encoded);
  };
  for (const value of values) {
    add(value, MIN_SECRET_CHARS);
    for (const word of value.split(PART_SEPARATORS)) {
      add(word, MIN_PART_CHARS);
      const equals = word.indexOf("=");
      // `name=value` (cookies, auth params): the value alone is secret too.
      if (equals > 0) add(word.slice(equals + 1), MIN_PART_CHARS);
    }
  }
  return longestFirst(secrets);
}

/** The secrets of one server config: its env and header values, and its URL's credentials and query values. */
export function configSecrets(config: MCPServerConfig): string[] {
  const values = [
    ...Object.values(config.env ?? {}),
    ...Object.values(config.headers ?? {}),
  ];
  if (config.url) {
    try {
      const url = new URL(config.url);
      values.push(
        decodeURIComponent(url.username),
        decodeURIComponent(url.password),
        ...url.searchParams.values(),
      );
    } catch {
      // validated elsewhere; nothing to hide when it is not a URL
    }
  }
  return secretsOf(values);
}

/** Both lists in one, longest first. */
export function mergeSecrets(
  a: readonly string[],
  b: readonly string[],
): string[] {
  return longestFirst(new Set([...a, ...b]));
}

/** `text` with every secret replaced by {@linkcode REDACTED}; `secrets` come longest first. */
export function redact(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) {
    if (secret !== "" && clean.includes(secret)) {
      clean = clean.split(secret).join(REDACTED);
    }
  }
  return clean;
}

function longestFirst(secrets: Set<string>): string[] {
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * Removes every secret from `error`'s message, stack and cause chain, in
 * place, so the error keeps its class and identity; an error printed with its
 * causes would otherwise show what its message hides. Strings are redacted;
 * anything else is returned as it is.
 */
export function redactError<T>(
  error: T,
  secrets: readonly string[],
  depth = 0,
): T {
  // A cause chain can loop; real ones are short.
  if (secrets.length === 0 || depth > 8) return error;
  if (typeof error === "string") return redact(error, secrets) as T;
  if (!(error instanceof Error)) return error;
  try {
    error.message = redact(error.message, secrets);
    if (error.stack !== undefined) error.stack = redact(error.stack, secrets);
    if (error.cause !== undefined) {
      error.cause = redactError(error.cause, secrets, depth + 1);
    }
  } catch {
    // A frozen error cannot be cleaned; it is not ours to replace either.
  }
  return error;
}
