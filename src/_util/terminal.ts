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
