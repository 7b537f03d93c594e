/**
 * Text from a server made safe to write to a terminal: control characters
 * (C0, DEL, C1, which start escape sequences: cursor moves, screen
 * clears, OSC 8 links, title changes) and the bidirectional overrides that
 * reorder what is shown are written as visible escapes (`\x1b`, `\u202e`).
 * Internal.
 *
 * @module
 */

const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control or bidirectional-override character replaced by
 * a visible escape; newlines and tabs too, so the result stays one line.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * Like {@linkcode printable}, but keeps newlines and tabs: for text of
 * several lines (a tool's result, an error message). A carriage return is
 * still escaped, so no line can overwrite another.
 */
export function printableText(text: string): string {
  return text.replace(
    UNSAFE,
    (char) => char === "\n" || char === "\t" ? char : printable(char),
  );
}

// What JSON.stringify leaves raw that a terminal acts on: C0 controls it
// escapes itself (inside strings; a newline outside one is indentation).
const UNSAFE_IN_JSON =
  /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `value` as JSON (indented by `indent`) that is safe on a terminal: the
 * control and bidirectional characters JSON.stringify leaves raw are written
 * as `\u` escapes, so the text still parses to the same value.
 */
export function printableJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? "null").replace(
    UNSAFE_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
