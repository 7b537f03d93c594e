/**
 * Text analysis for the lexical ranker: the same steps for a tool's text and
 * for a query, so both meet as the same terms. Internal.
 *
 * Words are runs of letters and digits. Identifiers are split where their
 * authors joined words (`snake_case`, `kebab-case`, `camelCase`,
 * `HTTPServer`, `v2Api`), because a tool's name is its densest evidence and
 * users write those words apart; a split word is also kept whole
 * (`onedrive`), so a query that writes it joined still meets it. Terms are
 * lower-cased, folded (`é` → `e`, `ﬁ` → `fi`) and stemmed
 * ({@linkcode cachedStem}); function words, single characters and runs
 * longer than {@linkcode MAX_TERM_LENGTH} are dropped.
 *
 * The scan works on character codes, not regular expressions: indexing a
 * catalog analyses a few megabytes of text, and this is most of the cost.
 *
 * @module
 */

import { cachedStem } from "./_stem.ts";

/** Longest term kept; longer runs (hashes, base64) are not words. */
export const MAX_TERM_LENGTH = 40;

/**
 * Function words that say nothing about which tool is meant. Kept short:
 * words like "all", "new" or "get" are evidence, and inverse document
 * frequency already discounts what is common.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be been by can could did do does for from had has " +
    "have he her him his how i if in into is it its me my of on or our " +
    "please she so than that the their them then there these they this " +
    "those to us was we were will with would you your").split(" "),
);

const NON_ASCII = /[\u0080-\uffff]/;
const MARKS = /\p{M}+/gu;
const UPPER_LETTER = /\p{Lu}/u;
const LETTER = /\p{L}/u;
const NUMBER = /\p{N}/u;

// Character classes of the scan.
const SEPARATOR = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;

/** The classes of the ASCII codes, looked up rather than computed. */
const ASCII = new Uint8Array(128).map((_, code) =>
  code >= 97 && code <= 122
    ? LOWER
    : code >= 65 && code <= 90
    ? UPPER
    : code >= 48 && code <= 57
    ? DIGIT
    : SEPARATOR
);

/** The class of one UTF-16 code unit (a surrogate separates). */
function classOf(code: number): number {
  if (code < 128) return ASCII[code]!;
  if (code >= 0xd800 && code <= 0xdfff) return SEPARATOR;
  const char = String.fromCharCode(code);
  if (UPPER_LETTER.test(char)) return UPPER;
  if (LETTER.test(char)) return LOWER;
  return NUMBER.test(char) ? DIGIT : SEPARATOR;
}

/**
 * Folds a text for matching: compatibility forms (`ﬁ` → `fi`, full-width
 * letters) and accents (`é` → `e`) folded, only when there is anything
 * beyond ASCII to fold.
 *
 * @param text Any text.
 * @returns The folded text.
 */
export function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.normalize("NFKD").replace(MARKS, "");
}

/**
 * Whether an identifier breaks before position `j`: `aB`, `1B` (camelCase),
 * `ABcd` (the end of an acronym: `HTTPServer`, but not the plural `PRs`),
 * and between letters and digits (`v2`, `2fa`).
 */
function breaksBefore(classes: number[], j: number): boolean {
  const previous = classes[j - 1]!;
  const current = classes[j]!;
  if (current === UPPER) {
    return previous !== UPPER ||
      (classes[j + 1] === LOWER && classes[j + 2] === LOWER);
  }
  return (previous === DIGIT) !== (current === DIGIT);
}

/**
 * Calls `visit` with the lower-cased pieces of each word of `text` (read
 * up to `maxChars`), until it returns `false`.
 */
function scan(
  text: string,
  maxChars: number,
  visit: (pieces: string[]) => boolean,
): void {
  const source = fold(text.length > maxChars ? text.slice(0, maxChars) : text);
  const length = source.length;
  const classes: number[] = [];
  const pieces: string[] = [];
  let i = 0;
  while (i < length) {
    for (; i < length; i++) {
      const code = source.charCodeAt(i);
      if ((code < 128 ? ASCII[code] : classOf(code)) !== SEPARATOR) break;
    }
    const start = i;
    let plain = true;
    classes.length = 0;
    for (; i < length; i++) {
      const code = source.charCodeAt(i);
      const type = code < 128 ? ASCII[code]! : classOf(code);
      if (type === SEPARATOR) break;
      if (type !== LOWER) plain = false;
      classes.push(type);
    }
    const size = i - start;
    if (size === 0 || size > MAX_TERM_LENGTH * 4) continue;
    pieces.length = 0;
    if (plain) pieces.push(source.slice(start, i));
    else {
      let from = 0;
      for (let j = 1; j <= size; j++) {
        if (j < size && !breaksBefore(classes, j)) continue;
        pieces.push(source.slice(start + from, start + j).toLowerCase());
        from = j;
      }
    }
    if (!visit(pieces)) return;
  }
}

/**
 * Pushes the stemmed pieces of one word onto `parts`, leaving out function
 * words, single characters and over-long pieces.
 *
 * @returns The whole word, stemmed, when it had more than one piece.
 */
function wordParts(pieces: string[], parts: string[]): string | undefined {
  for (const piece of pieces) {
    if (
      piece.length < 2 || piece.length > MAX_TERM_LENGTH ||
      STOP_WORDS.has(piece)
    ) continue;
    parts.push(cachedStem(piece));
  }
  if (pieces.length < 2) return undefined;
  const whole = pieces.join("");
  return whole.length <= MAX_TERM_LENGTH ? cachedStem(whole) : undefined;
}

/** One analysed word: its stemmed parts and, when it had several, itself. */
export interface AnalysedWord {
  /** The stemmed parts, in order (`listCalendars` → `list`, `calendar`). */
  parts: string[];
  /** The whole word, stemmed, when it had more than one part. */
  whole?: string;
}

/**
 * Splits text into analysed words, at most `maxWords` (the query's side).
 *
 * @param text Any text; read up to `maxChars`.
 * @param maxChars How much of `text` is read.
 * @param maxWords Most words returned.
 * @returns The analysed words, in order.
 */
export function analyse(
  text: string,
  maxChars: number,
  maxWords: number,
): AnalysedWord[] {
  const words: AnalysedWord[] = [];
  scan(text, maxChars, (pieces) => {
    const parts: string[] = [];
    const whole = wordParts(pieces, parts);
    if (whole !== undefined) words.push({ parts, whole });
    else if (parts.length > 0) words.push({ parts });
    return words.length < maxWords;
  });
  return words;
}

/**
 * Pushes the terms of a text onto `out` (the index's side): each word's
 * parts, then its whole form, until `out` holds `maxTerms`.
 *
 * @param out Where the terms go.
 * @param text Any text.
 * @param maxChars How much of `text` is read.
 * @param maxTerms Most terms `out` may hold.
 */
export function pushTerms(
  out: string[],
  text: string,
  maxChars: number,
  maxTerms: number,
): void {
  if (text === "" || out.length >= maxTerms) return;
  scan(text, maxChars, (pieces) => {
    const whole = wordParts(pieces, out);
    if (whole !== undefined) out.push(whole);
    if (out.length < maxTerms) return true;
    out.length = maxTerms;
    return false;
  });
}

/**
 * The terms of a text, in order: each word's parts, then its whole form.
 *
 * @param text Any text.
 * @param maxChars How much of `text` is read.
 * @param maxTerms Most terms returned.
 * @returns The terms.
 */
export function terms(
  text: string,
  maxChars: number,
  maxTerms: number,
): string[] {
  const out: string[] = [];
  pushTerms(out, text, maxChars, maxTerms);
  return out;
}
