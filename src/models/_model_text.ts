/**
 * Text from a server made safe to show a model inside text this library
 * writes (the catalog overview, search results): normalised (NFKC), without
 * control, format (zero-width, bidi, soft hyphen), tag or other invisible
 * characters a model would read but a person would not see, on one line,
 * and cut to a length. Internal.
 *
 * @module
 */

// Cc except nothing (newlines are flattened below), Cf (format: zero-width
// joiners, bidi controls, soft hyphen, the tag block E0000–E007F), and the
// invisible fillers that are neither (Hangul fillers, braille blank).
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u115f\u1160\u3164\uffa0\u2800\u034f\u180b-\u180f\ufe00-\ufe0f]/gu;

/**
 * `text` as a model may read it: one line, at most `maxChars` characters
 * (cut with `…`).
 *
 * @param text Server text (a name, a description).
 * @param maxChars The most characters kept.
 */
export function modelText(text: string, maxChars: number): string {
  let clean = text.normalize("NFKC").replace(/\s+/g, " ").replace(
    INVISIBLE,
    "",
  ).trim();
  if (clean.length > maxChars) {
    // By code point: a cut pair would leave half a character.
    const points = [...clean];
    if (points.length > maxChars) {
      clean = `${
        points.slice(0, Math.max(0, maxChars - 1)).join("").trimEnd()
      }…`;
    }
  }
  return clean;
}
