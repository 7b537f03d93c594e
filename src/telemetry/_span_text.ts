/**
 * Text on its way into telemetry, made safe: the one neutraliser every
 * span name, attribute and status message that may hold a server's or a
 * caller's text passes. Secrets are masked (before anything is cut, so a
 * secret cut in half cannot slip through), control, bidirectional and
 * invisible characters are escaped, newlines too (traces are read in
 * terminals and line-based log viewers: one span, one line), and the length
 * is bounded. Internal.
 *
 * @module
 */

import { patternOf, redact } from "../util/redact.ts";
import { printable } from "../util/terminal.ts";

/** The longest name, id, version or status message recorded, in characters. */
export const MAX_SPAN_TEXT = 1024;
/** The longest arguments or result recorded (opt-in), in characters. */
export const MAX_RECORDED_TEXT = 32_768;

/** `text` for a span or a metric: secrets masked, escaped to one line, at most `maxChars` long. */
export function spanText(
  text: string,
  secrets: readonly string[],
  maxChars: number = MAX_SPAN_TEXT,
): string {
  // Only a bounded prefix is masked: the first `maxChars` characters, and
  // the rest of a secret that starts in them. What lies past it is dropped
  // first: a secret masked earlier shortens the text, and would pull the
  // head of one that the prefix cut in half into what is kept.
  let end = text.length;
  if (end > maxChars) {
    end = maxChars;
    if (secrets.length > 0) {
      // Secrets come longest first: room for any of them to end.
      const head = text.slice(0, maxChars + secrets[0]!.length);
      for (const match of head.matchAll(patternOf(secrets))) {
        if (match.index >= maxChars) break;
        end = Math.max(end, match.index + match[0].length);
      }
    }
  }
  const safe = printable(redact(text.slice(0, end), secrets));
  return safe.length > maxChars || end < text.length
    ? `${safe.slice(0, maxChars - 1)}…`
    : safe;
}

/**
 * `value` as JSON for a span (recorded arguments, results), neutralised
 * like {@linkcode spanText}; `undefined` when it has no JSON form (a
 * BigInt, a cycle): nothing is recorded then, and nothing throws.
 */
export function spanJson(
  value: unknown,
  secrets: readonly string[],
): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  return spanText(text ?? "null", secrets, MAX_RECORDED_TEXT);
}
