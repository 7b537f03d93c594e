/**
 * Keeps secrets out of messages: env and header values — whole, and each
 * part, so a server echoing only the token of `Bearer <token>` (or one value
 * of a cookie list) leaks nothing — and the credentials and query values of
 * a server URL. Matching ignores case. Callers redact before they shorten a
 * text: a secret cut in half would no longer match. Internal.
 *
 * The rule: a value (or a part of it) is masked when it is at least
 * {@linkcode MIN_SECRET_CHARS} long, so ordinary words that happen to be
 * short env values ("loop", "true") stay readable. The value of a variable
 * or header whose name says it is secret (`API_KEY`, `Authorization`,
 * `session_token`, a URL's password, …) is masked whatever its length, and
 * its parts from {@linkcode MIN_PART_CHARS} characters.
 *
 * @module
 */

import { isRecord, kindOf, setOwn } from "./values.ts";

/** What replaces a secret in a message. */
export const REDACTED = "[redacted]";

/** A value, or a part of one, shorter than this is masked only under a secret-looking name. */
export const MIN_SECRET_CHARS = 8;
/** The parts of a secret-named value are masked from this length. */
export const MIN_PART_CHARS = 4;
/** Names whose values are secret whatever they look like. */
const SECRET_NAME =
  /token|secret|passw|pwd|key|auth|credential|cookie|session|private|signature|bearer|jwt/i;
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
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** One named value that may be secret: an env variable, a header, a URL part. */
export type NamedValue = readonly [name: string, value: string];

/**
 * The secrets among these named values, longest first (so a value is
 * masked before its parts).
 */
export function secretsOf(entries: Iterable<NamedValue>): string[] {
  const secrets = new Set<string>();
  const add = (part: string, min: number) => {
    if (part.length < min || AUTH_SCHEMES.has(part.toLowerCase())) return;
    secrets.add(part);
    // A body may quote the value URL-encoded (a form, a query string).
    const encoded = encodeURIComponent(part);
    if (encoded !== part) secrets.add(encoded);
  };
  for (const [name, value] of entries) {
    if (typeof value !== "string") continue;
    const named = SECRET_NAME.test(name);
    add(value, named ? 1 : MIN_SECRET_CHARS);
    const partMin = named ? MIN_PART_CHARS : MIN_SECRET_CHARS;
    for (const word of value.split(PART_SEPARATORS)) {
      add(word, partMin);
      const equals = word.indexOf("=");
      // `name=value` (cookies, auth params): the value alone is secret too.
      if (equals > 0) add(word.slice(equals + 1), partMin);
    }
  }
  return longestFirst(secrets);
}

/** Values known to be secret, per server config object (see {@linkcode declareSecrets}). */
const declared = new WeakMap<object, readonly string[]>();

/**
 * Records values of a server config that are secret whatever their length
 * or name (a config file's `password` inputs), so that
 * {@linkcode configSecrets} masks them wherever they went: `env`, `headers`,
 * but also `args` or the URL.
 */
export function declareSecrets(config: object, values: Iterable<string>): void {
  const list = [...declared.get(config) ?? [], ...values].filter((value) =>
    value !== ""
  );
  if (list.length > 0) declared.set(config, list);
}

/**
 * The secrets of one server config: its env and header values, its URL's
 * credentials, query values and path segments that look like keys (see
 * {@linkcode isKeyLike}), and the values declared secret for it.
 */
export function configSecrets(config: {
  env?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
  url?: string | undefined;
}): string[] {
  const entries: NamedValue[] = [
    ...Object.entries(config.env ?? {}),
    ...Object.entries(config.headers ?? {}),
    ...(declared.get(config) ?? []).map((value): NamedValue => [
      "password",
      value,
    ]),
  ];
  if (config.url) {
    try {
      const url = new URL(config.url);
      entries.push(
        ["username", decodeURIComponent(url.username)],
        ["password", decodeURIComponent(url.password)],
        ...url.searchParams.entries(),
      );
      for (const segment of url.pathname.split("/")) {
        if (isKeyLike(segment)) entries.push(["token", segment]);
      }
    } catch {
      // validated elsewhere; nothing to hide when it is not a URL
    }
  }
  return secretsOf(entries);
}

/**
 * Whether a URL path segment (as written in the URL, percent-encoded) looks
 * like a key: 16 characters or more, ASCII letters and digits both (`/mcp/sk-ak-…/sse`, a tenant's UUID), where
 * route names (`mcp`, `v1`, `messages`, `2025-06-18`) are short or lack one
 * of the two. Masking a route by mistake only hides it from a message.
 */
function isKeyLike(segment: string): boolean {
  return segment.length > 15 && /\d/.test(segment) && /[a-z]/i.test(segment);
}

/** Both lists in one, longest first. */
export function mergeSecrets(
  a: readonly string[],
  b: readonly string[],
): string[] {
  return longestFirst(new Set([...a, ...b]));
}

/** One case-insensitive pattern per secrets list, built on first use. */
const patterns = new WeakMap<readonly string[], RegExp>();

/** `text` with every secret replaced by {@linkcode REDACTED}, ignoring case; `secrets` come longest first. */
export function redact(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text === "") return text;
  return text.replace(patternOf(secrets), REDACTED);
}

/**
 * The pattern that finds `secrets`. A long secret is written in runs of
 * 10,000 characters: V8 refuses a longer run of text in a pattern.
 */
export function patternOf(secrets: readonly string[]): RegExp {
  let pattern = patterns.get(secrets);
  if (pattern === undefined) {
    pattern = new RegExp(
      secrets.map((secret) =>
        secret.replace(
          /[^]{1,10000}/g,
          (run) => `(?:${run.replace(REGEXP_SPECIAL, "\\$&")})`,
        )
      ).join("|"),
      "gi",
    );
    patterns.set(secrets, pattern);
  }
  return pattern;
}

function longestFirst(secrets: Set<string>): string[] {
  secrets.delete("");
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

/**
 * The URL for messages: origin and path, without credentials, query or
 * fragment, and with a path segment that looks like a key (see
 * {@linkcode isKeyLike}) masked, so a message that is not masked later (a
 * token store's, `onRefresh`'s `server`) names no key either.
 */
export function displayUrl(url: URL): string {
  return JSON.stringify(shownUrl(url));
}

/** {@linkcode displayUrl}, unquoted: origin and path, key-like segments masked. */
export function shownUrl(url: URL): string {
  return url.origin +
    url.pathname.split("/").map((segment) =>
      isKeyLike(segment) ? REDACTED : segment
    ).join("/");
}

/**
 * A server's value quoted in a message where a short string belongs (a
 * version, a status): a string as {@linkcode excerpt} quotes it (masked,
 * then cut), anything else named by its kind (`a list`), never written out.
 */
export function quotedValue(
  value: unknown,
  secrets: readonly string[],
): string {
  return typeof value === "string" ? excerpt(value, secrets) : kindOf(value);
}

/**
 * `text` cut to at most `max` characters, ending in `...`, and never inside
 * a run of letters, digits, `_` or `-`: that could be the start of a
 * secret (`?token=sk-…`), which the masking that comes later, over the
 * whole message, no longer recognises once cut. The run is left out whole.
 */
export function cutBeforeWord(text: string, max: number): string {
  return text.length > max
    ? `${text.slice(0, max - 2).replace(/[\w-]+$|[\s\S]$/, "")}...`
    : text;
}

/** Longest quoted excerpt of foreign text (a body, a line) in an error message. */
const EXCERPT_CHARS = 200;

/**
 * `text` with every secret replaced, trimmed, shortened to at most
 * {@linkcode EXCERPT_CHARS} characters and quoted; `(empty)` when nothing
 * is left.
 */
export function excerpt(text: string, secrets: readonly string[]): string {
  const clean = redact(text, secrets).trim();
  if (clean === "") return "(empty)";
  return JSON.stringify(
    clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean,
  );
}

/** Levels of `data` walked for secrets; what is deeper is replaced by {@linkcode TOO_DEEP}. */
const MAX_DATA_DEPTH = 64;
/** What stands for a part of a server's `data` nested deeper than {@linkcode MAX_DATA_DEPTH}. */
const TOO_DEEP = "[nested too deeply]";

/**
 * A copy of a server's `data` (a log message's, a JSON-RPC error's) with
 * every secret masked in its strings and property names, the same JSON
 * shape otherwise; the parts nested deeper than
 * {@linkcode MAX_DATA_DEPTH} become {@linkcode TOO_DEEP}. Walked with a
 * stack, not recursion: a server's data can be nested arbitrarily.
 */
export function redactData(data: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return data;
  const copy = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return redact(value, secrets);
    if (!Array.isArray(value) && !isRecord(value)) return value;
    if (depth > MAX_DATA_DEPTH) return TOO_DEEP;
    const target = Array.isArray(value) ? [] : {};
    pending.push([value, target, depth]);
    return target;
  };
  const pending: [object, Record<string, unknown>, number][] = [];
  const root = copy(data, 1);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [source, target, depth] = next;
    const list = Array.isArray(source);
    for (const [key, value] of Object.entries(source)) {
      setOwn(
        target,
        list ? key : redact(key, secrets),
        copy(value, depth + 1),
      );
    }
  }
  return root;
}
