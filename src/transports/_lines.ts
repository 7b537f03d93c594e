/**
 * Newline-delimited text from a byte stream: the framing of the stdio
 * transport. Internal.
 *
 * @module
 */

import { concatBytes } from "../util/bytes.ts";

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const BYTE_ORDER_MARK = 0xfeff;

/** Thrown by {@linkcode LineSplitter.push} when a line outgrows the limit and `overflow` is `"throw"`. */
export class LineTooLongError extends Error {
  /** The limit that was passed, in bytes. */
  readonly maxLineBytes: number;

  /** @param maxLineBytes The limit that was passed. */
  constructor(maxLineBytes: number) {
    super(`a line is longer than ${maxLineBytes} bytes`);
    this.name = "LineTooLongError";
    this.maxLineBytes = maxLineBytes;
  }
}

/** Options of {@linkcode LineSplitter}. */
export interface LineSplitterOptions {
  /** Longest line in bytes, without its newline. */
  maxLineBytes: number;
  /**
   * What a longer line does: `"throw"` a {@linkcode LineTooLongError} from
   * `push()` (the stream is unusable after that), or `"split"` it, handing
   * each `maxLineBytes` on as a line of its own.
   */
  overflow: "throw" | "split";
}

/**
 * Splits bytes into lines: on "\n", a trailing "\r" stripped, empty lines
 * skipped, decoded as UTF-8 (a newline byte never occurs inside a UTF-8
 * character, so each line decodes alone). Work is linear in the bytes: each
 * chunk is searched once, natively, and the parts of a line that spans
 * chunks are joined once, when its end arrives.
 */
export class LineSplitter {
  readonly #onLine: (line: string, cut: boolean) => void;
  readonly #max: number;
  readonly #split: boolean;
  readonly #decoder = new TextDecoder();
  /** The start of a line whose end has not arrived yet. */
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  /** Set while a line that outgrew the limit is handed on unfinished. */
  #cutting = false;

  /**
   * @param onLine Receives each line, and whether it is a piece of a longer
   * line cut at the limit (the rest follows).
   * @param options The line length limit and what passing it does.
   */
  constructor(
    onLine: (line: string, cut: boolean) => void,
    options: LineSplitterOptions,
  ) {
    this.#onLine = onLine;
    this.#max = options.maxLineBytes;
    this.#split = options.overflow === "split";
  }

  /**
   * Takes the next chunk and hands on every line it completes.
   *
   * @throws {LineTooLongError} When a line passes the limit and `overflow` is `"throw"`.
   */
  push(chunk: Uint8Array): void {
    let start = 0;
    if (this.#parts.length === 0 && chunk.length <= this.#max) {
      // The common case: no line pending, and none in `chunk` can be too
      // long. Its complete lines are decoded in one call, not one each.
      const last = chunk.lastIndexOf(NEWLINE);
      if (last !== -1) {
        this.#lines(
          this.#decoder.decode(
            last + 1 === chunk.length ? chunk : chunk.subarray(0, last + 1),
          ),
        );
        start = last + 1;
      }
    }
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      this.#line(chunk, start, newline);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start === chunk.length) return;
    // A view, not a copy: chunks are never reused (see `ChildProcessHandle`).
    this.#parts.push(start === 0 ? chunk : chunk.subarray(start));
    this.#partBytes += chunk.length - start;
    if (this.#partBytes > this.#max) {
      if (!this.#split) throw new LineTooLongError(this.#max);
      this.#cutting = true;
      this.end();
      this.#cutting = false;
    }
  }

  /**
   * The lines of `text`, which ends with a newline, as `#line()` would hand
   * them on one by one: a trailing "\r" stripped, empty lines skipped, and
   * a byte order mark at a line's start dropped (each separate decode drops
   * one).
   */
  #lines(text: string): void {
    let start = 0;
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      if (text.charCodeAt(start) === BYTE_ORDER_MARK) start++;
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
      if (end > start) this.#onLine(text.slice(start, end), false);
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
  }

  /** Hands on the last, unterminated line, if any. */
  end(): void {
    if (this.#parts.length === 0) return;
    const empty = new Uint8Array(0);
    this.#line(empty, 0, 0);
  }

  /** One line: the kept parts, then `chunk[start, end)`. */
  #line(chunk: Uint8Array, start: number, end: number): void {
    if (this.#parts.length > 0) {
      const total = this.#partBytes + end - start;
      if (total > this.#max && !this.#split) {
        throw new LineTooLongError(this.#max);
      }
      this.#parts.push(chunk.subarray(start, end));
      chunk = concatBytes(this.#parts, total);
      this.#parts = [];
      this.#partBytes = 0;
      start = 0;
      end = total;
    } else if (end - start > this.#max && !this.#split) {
      throw new LineTooLongError(this.#max);
    }
    if (end > start && chunk[end - 1] === CARRIAGE_RETURN) end--;
    if (end === start) return;
    this.#onLine(
      this.#decoder.decode(chunk.subarray(start, end)),
      this.#cutting,
    );
  }
}
