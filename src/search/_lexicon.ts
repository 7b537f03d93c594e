/**
 * The index's terms as numbers: each distinct stem is interned once and
 * named by a small integer from then on, so postings, frequencies and a
 * query's expansions are typed arrays indexed by term, not maps of strings.
 * Internal.
 *
 * A word is analysed once per lexicon. A text is copied into a byte buffer
 * by the platform's `TextEncoder` (which also says whether it is all ASCII,
 * as tools' text nearly always is) and scanned there in one pass that
 * classifies, lower-cases and hashes each character; a word is then looked
 * up in a hash table of the words seen before, by its bytes, so the
 * thousands of times a catalog says "the", "file" or "Returns" cost a
 * look-up without making a string. Only a word seen for the first time is
 * cut out and stemmed. Text beyond ASCII is folded (`é` → `e`) and read as
 * strings ({@linkcode Scanner}). Both tables are bounded: the word table
 * starts again past {@linkcode MAX_CACHED_WORDS}, and the index releases
 * the numbers of terms no tool uses any more (a server's text is not
 * allowed to grow them without end).
 *
 * @module
 */

import {
  ASCII,
  breaksBefore,
  fold,
  isTerm,
  LOWER,
  MAX_RUN,
  MAX_TERM_LENGTH,
  Scanner,
  SEPARATOR,
} from "./_analyze.ts";
import { stem } from "./_stem.ts";

/** Most words whose term is remembered; past it the table starts again. */
export const MAX_CACHED_WORDS = 65_536;

// FNV-1a over lower-cased bytes.
const OFFSET = 0x811c9dc5 | 0;
const PRIME = 0x01000193;

/** ASCII codes lower-cased. */
const LOWER_CASE = new Uint8Array(128).map((_, code) =>
  code >= 65 && code <= 90 ? code + 32 : code
);

const ENCODER = new TextEncoder();

/** Characters beyond ASCII that are not letters or digits. */
const NOT_A_WORD = /[^\p{L}\p{N}\p{ASCII}]+/gu;

/** Interned terms and the words that lead to them. */
export class Lexicon {
  /** Each number's term; `""` for a released number. */
  readonly terms: string[] = [];
  readonly #ids = new Map<string, number>();
  readonly #free: number[] = [];

  // The table of ASCII words: open addressing over word numbers (plus one;
  // 0 is an empty place); each word's lower-case bytes in the pool, its
  // hash and its term (-1: none).
  #places = new Int32Array(32_768);
  #pool = new Uint8Array(131_072);
  #poolSize = 0;
  #wordCount = 0;
  #wordStart = new Int32Array(16_384);
  #wordHash = new Int32Array(16_384);
  #wordTerm = new Int32Array(16_384);
  /** Words beyond ASCII (rare): their terms. */
  readonly #unicodeWords = new Map<string, number>();

  /** The text being scanned, lower-cased as it is read. */
  #bytes = new Uint8Array(4_096);
  /** The classes of the run being scanned, and two separators after it. */
  readonly #classes = new Uint8Array(MAX_RUN + 2);
  readonly #scanner = new Scanner();
  readonly #word = new Uint8Array(MAX_TERM_LENGTH);

  /** How many numbers are in use or free: every number is below it. */
  get capacity(): number {
    return this.terms.length;
  }

  /** How many terms are interned. */
  get size(): number {
    return this.#ids.size;
  }

  /** The number of a term, interning it. */
  intern(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      id = this.#free.pop() ?? this.terms.length;
      this.terms[id] = term;
      this.#ids.set(term, id);
    }
    return id;
  }

  /** The number of a term, or -1 when it is not interned. */
  find(term: string): number {
    return this.#ids.get(term) ?? -1;
  }

  /**
   * The stem of a lower-case word as a query reads it, without interning
   * anything; `undefined` for a function word, a single character or an
   * over-long run.
   */
  stemOf(word: string): string | undefined {
    const known = this.#known(word);
    if (known !== undefined) return known < 0 ? undefined : this.terms[known];
    return isTerm(word) ? stem(word) : undefined;
  }

  /**
   * Pushes the term numbers of a text onto `out`, word by word: its parts,
   * then, for a word of several pieces, its whole form; until `out` holds
   * `maxTerms`. `parts`, when given, gets the parts alone.
   */
  scan(
    text: string,
    maxChars: number,
    out: number[],
    maxTerms: number,
    parts?: number[],
  ): void {
    if (text === "" || out.length >= maxTerms) return;
    // Encoded into the whole buffer (a view of a part would be one more
    // object per text): all of it fits, one byte a character, when it is
    // all ASCII.
    const cut = text.length > maxChars ? text.slice(0, maxChars) : text;
    const length = cut.length;
    if (length > this.#bytes.length) this.#bytes = new Uint8Array(length);
    const { read, written } = ENCODER.encodeInto(cut, this.#bytes);
    if (read === length && written === length) {
      this.#scanBytes(cut, length, out, maxTerms, parts);
      return;
    }
    // Beyond ASCII: folded, and what is no letter or digit (dashes, quotes,
    // arrows, emoji) a space; then as ASCII, if it is now.
    const folded = fold(cut).replace(NOT_A_WORD, " ");
    const size = folded.length;
    if (size > this.#bytes.length) this.#bytes = new Uint8Array(size);
    const again = ENCODER.encodeInto(folded, this.#bytes);
    if (again.read === size && again.written === size) {
      this.#scanBytes(folded, size, out, maxTerms, parts);
    } else this.#scanFolded(folded, out, maxTerms, parts);
  }

  /** Scans an ASCII text, copied into `#bytes`. */
  #scanBytes(
    text: string,
    length: number,
    out: number[],
    maxTerms: number,
    parts: number[] | undefined,
  ): void {
    const bytes = this.#bytes;
    let i = 0;
    while (i < length) {
      if (ASCII[bytes[i]!] === SEPARATOR) {
        i++;
        continue;
      }
      // One pass: the run's end, whether it is all lower-case letters (the
      // common word of prose: one piece), and its lower-cased hash.
      const start = i;
      let plain = true;
      let hash = OFFSET;
      for (; i < length; i++) {
        const code = bytes[i]!;
        const type = ASCII[code]!;
        if (type === SEPARATOR) break;
        if (type !== LOWER) plain = false;
        hash = Math.imul(hash ^ LOWER_CASE[code]!, PRIME);
      }
      const size = i - start;
      if (plain) this.#piece(text, start, i, hash, out, parts);
      else if (size <= MAX_RUN) {
        this.#pieces(text, start, size, hash, out, parts);
      }
      if (out.length >= maxTerms) {
        out.length = maxTerms;
        return;
      }
    }
  }

  /**
   * The pieces of a run of several classes (lower-cased in place), then
   * its whole form.
   */
  #pieces(
    text: string,
    start: number,
    size: number,
    wholeHash: number,
    out: number[],
    parts: number[] | undefined,
  ): void {
    const bytes = this.#bytes;
    const classes = this.#classes;
    for (let j = 0; j < size; j++) {
      const code = bytes[start + j]!;
      classes[j] = ASCII[code]!;
      bytes[start + j] = LOWER_CASE[code]!;
    }
    classes[size] = SEPARATOR;
    classes[size + 1] = SEPARATOR;
    let from = 0;
    let hash = OFFSET;
    let pieces = 1;
    for (let j = 0; j < size; j++) {
      if (j > 0 && breaksBefore(classes, j)) {
        this.#piece(text, start + from, start + j, hash, out, parts);
        pieces++;
        from = j;
        hash = OFFSET;
      }
      hash = Math.imul(hash ^ bytes[start + j]!, PRIME);
    }
    this.#piece(text, start + from, start + size, hash, out, parts);
    if (pieces > 1) this.#piece(text, start, start + size, wholeHash, out);
  }

  /**
   * Pushes the term of the piece `#bytes[from, to)` (`text[from, to)`,
   * lower-cased), when it is one.
   */
  #piece(
    text: string,
    from: number,
    to: number,
    hash: number,
    out: number[],
    parts?: number[],
  ): void {
    const size = to - from;
    if (size < 2 || size > MAX_TERM_LENGTH) return;
    const bytes = this.#bytes;
    let place = this.#probe(bytes, from, size, hash);
    let known = this.#places[place]!;
    if (known === 0) {
      const word = text.slice(from, to).toLowerCase();
      place = this.#remember(bytes, from, size, hash, word, place);
      known = this.#places[place]!;
    }
    const term = this.#wordTerm[known - 1]!;
    if (term < 0) return;
    out.push(term);
    parts?.push(term);
  }

  /** A text beyond ASCII: folded, and read as strings. */
  #scanFolded(
    text: string,
    out: number[],
    maxTerms: number,
    parts: number[] | undefined,
  ): void {
    const scanner = this.#scanner;
    const pieces = scanner.pieces;
    scanner.reset(fold(text), Infinity);
    while (scanner.next()) {
      for (const piece of pieces) {
        const term = this.#wordOf(piece);
        if (term < 0) continue;
        out.push(term);
        parts?.push(term);
      }
      if (pieces.length > 1) {
        const term = this.#wordOf(pieces.join(""));
        if (term >= 0) out.push(term);
      }
      if (out.length >= maxTerms) {
        out.length = maxTerms;
        return;
      }
    }
  }

  /** The term of a lower-case word, interned; -1: none. */
  #wordOf(word: string): number {
    const known = this.#known(word);
    if (known !== undefined) return known;
    const term = isTerm(word) ? this.intern(stem(word)) : -1;
    if (!isAscii(word)) {
      if (this.#unicodeWords.size >= MAX_CACHED_WORDS) {
        this.#unicodeWords.clear();
      }
      this.#unicodeWords.set(word, term);
    } else if (word.length <= MAX_TERM_LENGTH) {
      const bytes = this.#wordBytes(word);
      const hash = hashOf(bytes, 0, word.length);
      const place = this.#probe(bytes, 0, word.length, hash);
      this.#remember(bytes, 0, word.length, hash, word, place, term);
    }
    return term;
  }

  /** The term a lower-case word is known to have, or `undefined`. */
  #known(word: string): number | undefined {
    if (!isAscii(word)) return this.#unicodeWords.get(word);
    if (word.length < 2 || word.length > MAX_TERM_LENGTH) return -1;
    const bytes = this.#wordBytes(word);
    const size = word.length;
    const place = this.#probe(bytes, 0, size, hashOf(bytes, 0, size));
    const known = this.#places[place]!;
    return known === 0 ? undefined : this.#wordTerm[known - 1];
  }

  /** An ASCII word of at most 40 characters, as bytes, in a scratch buffer. */
  #wordBytes(word: string): Uint8Array {
    const bytes = this.#word;
    for (let i = 0; i < word.length; i++) bytes[i] = word.charCodeAt(i);
    return bytes;
  }

  /** The place of a word in the table: where it is, or the empty one. */
  #probe(bytes: Uint8Array, from: number, size: number, hash: number): number {
    const places = this.#places;
    const pool = this.#pool;
    const starts = this.#wordStart;
    const mask = places.length - 1;
    let place = hash & mask;
    for (;;) {
      const known = places[place]!;
      if (known === 0) return place;
      if (this.#wordHash[known - 1] === hash) {
        const start = starts[known - 1]!;
        if (starts[known]! - start === size) {
          let i = 0;
          while (i < size && pool[start + i] === bytes[from + i]) i++;
          if (i === size) return place;
        }
      }
      place = (place + 1) & mask;
    }
  }

  /**
   * Adds a word (its lower-case bytes, hash and text) at its empty place;
   * returns the place it is at (the table may have been rebuilt).
   */
  #remember(
    bytes: Uint8Array,
    from: number,
    size: number,
    hash: number,
    word: string,
    place: number,
    term: number = isTerm(word) ? this.intern(stem(word)) : -1,
  ): number {
    if (this.#wordCount >= MAX_CACHED_WORDS) {
      this.#forgetWords();
      place = this.#probe(bytes, from, size, hash);
    } else if (2 * (this.#wordCount + 1) > this.#places.length) {
      this.#rehash(this.#places.length * 2);
      place = this.#probe(bytes, from, size, hash);
    }
    const number = this.#wordCount++;
    if (number + 2 > this.#wordStart.length) {
      const grow = (array: Int32Array) => {
        const next = new Int32Array(array.length * 2);
        next.set(array);
        return next;
      };
      this.#wordStart = grow(this.#wordStart);
      this.#wordHash = grow(this.#wordHash);
      this.#wordTerm = grow(this.#wordTerm);
    }
    if (this.#poolSize + size > this.#pool.length) {
      const next = new Uint8Array(2 * (this.#poolSize + size));
      next.set(this.#pool);
      this.#pool = next;
    }
    const pool = this.#pool;
    const at = this.#poolSize;
    for (let i = 0; i < size; i++) pool[at + i] = bytes[from + i]!;
    this.#wordStart[number] = this.#poolSize;
    this.#poolSize += size;
    this.#wordStart[number + 1] = this.#poolSize;
    this.#wordHash[number] = hash;
    this.#wordTerm[number] = term;
    this.#places[place] = number + 1;
    return place;
  }

  #rehash(size: number): void {
    const places = new Int32Array(size);
    const mask = size - 1;
    for (let known = 1; known <= this.#wordCount; known++) {
      let place = this.#wordHash[known - 1]! & mask;
      while (places[place] !== 0) place = (place + 1) & mask;
      places[place] = known;
    }
    this.#places = places;
  }

  #forgetWords(): void {
    this.#places = new Int32Array(32_768);
    this.#poolSize = 0;
    this.#wordCount = 0;
    this.#wordStart[0] = 0;
    this.#unicodeWords.clear();
  }

  /**
   * Releases the numbers of terms for reuse. The word table is forgotten
   * (it may name them); the caller makes sure nothing else does.
   */
  release(ids: readonly number[]): void {
    if (ids.length === 0) return;
    for (const id of ids) {
      this.#ids.delete(this.terms[id]!);
      this.terms[id] = "";
      this.#free.push(id);
    }
    this.#forgetWords();
  }
}

function isAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    if (word.charCodeAt(i) >= 128) return false;
  }
  return true;
}

function hashOf(bytes: Uint8Array, from: number, to: number): number {
  let hash = OFFSET;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i]!, PRIME);
  return hash;
}
