/**
 * Text from a server made safe to write to a terminal: control characters
 * (C0, DEL, C1, which start escape sequences: cursor moves, screen
 * clears, OSC 8 links, title changes), the bidirectional overrides that
 * reorder what is shown, and every invisible character (format characters,
 * `\p{Cf}`: zero-width spaces and joiners, the soft hyphen, the Unicode tags
 * that spell hidden text; and the default-ignorable code points: variation
 * selectors, Hangul fillers) are written as visible escapes (`\x1b`,
 * `\u202e`, `\u200b`, `\u{e0049}`), so a person sees that something is
 * there. A joiner or the emoji variation selector inside an emoji sequence
 * (`👩‍💻`, `❤️`) stays: it draws one emoji. Internal.
 *
 * @module
 */

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

// Before an emoji presentation selector: a pictograph. Before a joiner: a
// pictograph, then that selector or a skin tone; after it, one more.
const BEFORE_SELECTOR = /\p{Extended_Pictographic}$/u;
const BEFORE_JOINER =
  /\p{Extended_Pictographic}(?:\u{fe0f}|\p{Emoji_Modifier})?$/u;
const AFTER_JOINER = /^\p{Extended_Pictographic}/u;

/**
 * Whether the joiner or the emoji presentation selector at `offset` of
 * `text` is part of an emoji sequence (`👩‍💻`, `❤️`): then it draws the emoji,
 * hides nothing, and stays. Anything else is escaped, a second selector too.
 */
function inEmoji(char: string, offset: number, text: string): boolean {
  if (char === "\ufe0f") {
    return BEFORE_SELECTOR.test(text.slice(Math.max(0, offset - 2), offset));
  }
  return char === "\u200d" &&
    BEFORE_JOINER.test(text.slice(Math.max(0, offset - 4), offset)) &&
    AFTER_JOINER.test(text.slice(offset + 1, offset + 3));
}

/** `char` as a visible escape: `\x1b`, `\u200b`, `\u{e0049}`. */
function escape(char: string): string {
  const code = char.codePointAt(0)!;
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : code < 0x10000
    ? `\\u${code.toString(16).padStart(4, "0")}`
    : `\\u{${code.toString(16)}}`;
}

/**
 * `text` with every control, bidirectional or invisible character replaced
 * by a visible escape; newlines and tabs too, so the result stays one line.
 */
export function printable(text: string): string {
  return text.replace(
    UNSAFE,
    (char, offset: number, whole: string) =>
      inEmoji(char, offset, whole) ? char : escape(char),
  );
}

/**
 * Like {@linkcode printable}, but keeps newlines and tabs: for text of
 * several lines (a tool's result, an error message). A carriage return is
 * still escaped, so no line can overwrite another.
 */
export function printableText(text: string): string {
  return text.replace(
    UNSAFE,
    (char, offset: number, whole: string) =>
      char === "\n" || char === "\t" || inEmoji(char, offset, whole)
        ? char
        : escape(char),
  );
}

// What JSON.stringify leaves raw that a terminal acts on: C0 controls it
// escapes itself (inside strings; a newline outside one is indentation).
const UNSAFE_IN_JSON =
  /[\u{7f}-\u{9f}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * `value` as JSON (indented by `indent`) that is safe on a terminal: the
 * control, bidirectional and invisible characters JSON.stringify leaves raw
 * are written as `\u` escapes (a surrogate pair past U+FFFF), so the text
 * still parses to the same value.
 */
export function printableJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? "null").replace(
    UNSAFE_IN_JSON,
    (char, offset: number, whole: string) =>
      inEmoji(char, offset, whole)
        ? char
        : char.length === 1
        ? jsonEscape(char.charCodeAt(0))
        : jsonEscape(char.charCodeAt(0)) + jsonEscape(char.charCodeAt(1)),
  );
}

function jsonEscape(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, "0")}`;
}
