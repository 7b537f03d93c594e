/**
 * A server's value quoted in a note about what was wrong with it (a URI, a
 * name, a MIME type). Internal.
 *
 * @module
 */

import { cutBeforeWord } from "./redact.ts";
import { kindOf, unlessTooDeep } from "./values.ts";

/**
 * `value` as JSON, cut to 80 characters and never inside a run that could
 * begin a secret (the note is masked as a whole later); a value nested too
 * deeply to write as JSON is named by its kind.
 */
export function quoted(value: unknown): string {
  const text = typeof value === "string"
    ? value
    : unlessTooDeep(() => JSON.stringify(value) ?? "") ?? kindOf(value);
  return JSON.stringify(cutBeforeWord(text, 80));
}
