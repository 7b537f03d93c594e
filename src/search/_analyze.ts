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
 * ({@linkcode stem}); function words, single characters and runs longer than
 * {@linkcode MAX_TERM_LENGTH} are dropped.
 *
 * The scan is one pass over character codes with a class table, no regular
 * expressions: indexing a catalog analyses a few megabytes of text. The
 * index turns the pieces it yields into term numbers (`_lexicon.ts`).
 *
 * @module
 */

import { stem } from "./_stem.ts";

/** Longest term kept; longer runs (hashes, base64) are not words. */
export const MAX_TERM_LENGTH = 40;
/** Longest run split into pieces; a longer one is skipped whole. */
export const MAX_RUN = MAX_TERM_LENGTH * 4;

/**
 * Function words that say nothing about which tool is meant. Kept short:
 * words like "all", "new" or "get" are evidence, and inverse document
 * frequency already discounts what is common.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be been by can could did do does for from had has " +
    "have he her him his how i if in into is it its me my of on or our " +
    "please she so than that the their them then there these they this " +
    "those to us was we were will with would you your").split(" "),
);

/** Whether a lower-case piece is a term: not a function word, 2–40 long. */
export function isTerm(piece: string): boolean {
  return piece.length >= 2 && piece.length <= MAX_TERM_LENGTH &&
    !STOP_WORDS.has(piece);
}

const NON_ASCII = /[\u0080-\uffff]/;
const MARKS = /\p{M}+/gu;
const UPPER_LETTER = /\p{Lu}/u;
const LETTER = /\p{L}/u;
const NUMBER = /\p{N}/u;

// Character classes of the scan.
/** Not part of a word. */
export const SEPARATOR = 0;
/** A lower-case (or uncased) letter. */
export const LOWER = 1;
/** An upper-case letter. */
export const UPPER = 2;
/** A digit. */
export const DIGIT = 3;

/** The classes of the ASCII codes, looked up rather than computed. */
export const ASCII: Uint8Array = new Uint8Array(128).map((_, code) =>
  code >= 97 && code <= 122
    ? LOWER
    : code >= 65 && code <= 90
    ? UPPER
    : code >= 48 && code <= 57
    ? DIGIT
    : SEPARATOR
);

/** The class of one UTF-16 code unit (a surrogate separates). */
export function classOf(code: number): number {
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
 * Whether an identifier breaks before position `j` of a run whose classes
 * are `classes` (two separators after its end): `aB`, `1B` (camelCase),
 * `ABcd` (the end of an acronym: `HTTPServer`, but not the plural `PRs`),
 * and between letters and digits (`v2`, `2fa`).
 */
export function breaksBefore(classes: Uint8Array, j: number): boolean {
  const previous = classes[j - 1]!;
  const current = classes[j]!;
  return current === UPPER
    ? previous !== UPPER ||
      (classes[j + 1] === LOWER && classes[j + 2] === LOWER)
    : (previous === DIGIT) !== (current === DIGIT);
}

/**
 * Reads the words of a text one at a time, as lower-cased pieces split at
 * identifier boundaries ({@linkcode breaksBefore}). A scanner is reused
 * from text to text; scanning allocates only the pieces. (The index scans
 * its tools' text without making strings: `_lexicon.ts`.)
 */
export class Scanner {
  #source = "";
  #at = 0;
  /** The classes of the current run, and two separators after it. */
  readonly #classes = new Uint8Array(MAX_RUN + 2);
  /** The pieces of the word {@linkcode next} read, lower-cased, in order. */
  readonly pieces: string[] = [];

  /** Starts on `text`, read up to `maxChars`, folded. */
  reset(text: string, maxChars: number): void {
    this.#source = fold(
      text.length > maxChars ? text.slice(0, maxChars) : text,
    );
    this.#at = 0;
  }

  /** Reads the next word into {@linkcode pieces}; `false` at the end. */
  next(): boolean {
    const source = this.#source;
    const length = source.length;
    const classes = this.#classes;
    const pieces = this.pieces;
    let i = this.#at;
    for (;;) {
      let type = SEPARATOR;
      for (; i < length; i++) {
        const code = source.charCodeAt(i);
        type = code < 128 ? ASCII[code]! : classOf(code);
        if (type !== SEPARATOR) break;
      }
      if (i >= length) {
        this.#at = i;
        return false;
      }
      const start = i;
      // Lower-case letters only: the common word of prose, one piece.
      let plain = true;
      for (; i < length; i++) {
        const code = source.charCodeAt(i);
        type = code < 128 ? ASCII[code]! : classOf(code);
        if (type === SEPARATOR) break;
        if (type !== LOWER) plain = false;
        if (i - start < MAX_RUN) classes[i - start] = type;
      }
      const size = i - start;
      if (size > MAX_RUN) continue;
      this.#at = i;
      pieces.length = 0;
      if (plain) {
        pieces.push(source.slice(start, i));
        return true;
      }
      classes[size] = SEPARATOR;
      classes[size + 1] = SEPARATOR;
      let from = 0;
      for (let j = 1; j < size; j++) {
        if (breaksBefore(classes, j)) {
          pieces.push(source.slice(start + from, start + j).toLowerCase());
          from = j;
        }
      }
      pieces.push(source.slice(start + from, i).toLowerCase());
      return true;
    }
  }
}

/** One analysed word: its stemmed parts and, when it had several, itself. */
export interface AnalysedWord {
  /** The stemmed parts, in order (`listCalendars` → `list`, `calendar`). */
  parts: string[];
  /** The whole word, stemmed, when it had more than one piece. */
  whole?: string;
}

/**
 * The analysed word of a word's pieces: its stemmed parts (function words,
 * single characters and over-long pieces left out) and, when it had more
 * than one piece, its whole form stemmed; `undefined` when nothing is left.
 *
 * @param pieces A word's lower-case pieces, as {@linkcode Scanner} reads them.
 * @returns The word, or `undefined`.
 */
export function analyseWord(
  pieces: readonly string[],
): AnalysedWord | undefined {
  const parts: string[] = [];
  for (const piece of pieces) if (isTerm(piece)) parts.push(stem(piece));
  if (pieces.length < 2) return parts.length > 0 ? { parts } : undefined;
  const whole = pieces.join("");
  if (!isTerm(whole)) return parts.length > 0 ? { parts } : undefined;
  return { parts, whole: stem(whole) };
}

const SCANNER = new Scanner();

/**
 * Splits text into analysed words, at most `maxWords`: how the vocabulary
 * reads its words, and a test's view of the analysis.
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
  SCANNER.reset(text, maxChars);
  while (words.length < maxWords && SCANNER.next()) {
    const word = analyseWord(SCANNER.pieces);
    if (word !== undefined) words.push(word);
  }
  return words;
}

/**
 * The terms of a text, in order, as the index reads a field: each word's
 * parts, then its whole form.
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
  for (const word of analyse(text, maxChars, Infinity)) {
    out.push(...word.parts);
    if (word.whole !== undefined) out.push(word.whole);
    if (out.length >= maxTerms) return out.slice(0, maxTerms);
  }
  return out;
}
