/**
 * Newline-delimited text from a byte stream: the framing of the stdio
 * transport. Internal.
 *
 * @module
 */

import { concatBytes } from "../util/bytes.ts";
import { patternOf, redact } from "../util/redact.ts";

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
  /**
   * Masked in every line handed on (longest first). The end of a line cut
   * by `"split"` that could start a secret is held back and handed on with
   * the next piece, so no secret is split by a cut.
   */
  secrets?: readonly string[];
}

/**
 * Splits bytes into lines: on "\n", a trailing "\r" stripped, empty lines
 * skipped, decoded as UTF-8 (a newline byte never occurs inside a UTF-8
 * character, so each line decodes alone). Work is linear in the bytes: each
 * chunk is searched once, natively, and the parts of a line that spans
 * chunks are joined once, when its end arrives.
 */
export class LineSplitter {
  readonly #onLine: (line: string) => void;
  readonly #max: number;
  readonly #split: boolean;
  readonly #secrets: readonly string[] | undefined;
  /** Of a line cut at the limit, the raw end held back (see `secrets`). */
  #carry = "";
  readonly #decoder = new TextDecoder();
  /** The start of a line whose end has not arrived yet. */
  #parts: Uint8Array[] = [];
  #partBytes = 0;

  /**
   * @param onLine Receives each line.
   * @param options The line length limit and what passing it does.
   */
  constructor(onLine: (line: string) => void, options: LineSplitterOptions) {
    this.#onLine = onLine;
    this.#max = options.maxLineBytes;
    this.#split = options.overflow === "split";
    this.#secrets = options.secrets;
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
      this.#flush(true);
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
      if (end > start) this.#emit(text.slice(start, end), false);
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
  }

  /** Hands on the last, unterminated line, if any. */
  end(): void {
    this.#flush(false);
    if (this.#carry !== "") this.#emit("", false);
  }

  /** Hands on what is kept of a line: all of it, or a piece `cut` at the limit. */
  #flush(cut: boolean): void {
    if (this.#parts.length === 0) return;
    const empty = new Uint8Array(0);
    this.#line(empty, 0, 0, cut);
  }

  /** Hands on a line, masked of `secrets`; of a `cut` one, the end that could start a secret waits. */
  #emit(line: string, cut: boolean): void {
    const secrets = this.#secrets;
    if (secrets !== undefined) {
      line = this.#carry + line;
      [line, this.#carry] = cut
        ? redactHead(line, secrets)
        : [redact(line, secrets), ""];
      if (line === "") return;
    }
    this.#onLine(line);
  }

  /** One line (or a piece of one, `cut`): the kept parts, then `chunk[start, end)`. */
  #line(chunk: Uint8Array, start: number, end: number, cut = false): void {
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
    this.#emit(this.#decoder.decode(chunk.subarray(start, end)), cut);
  }
}

/**
 * A piece of a longer text whose rest is still to come (a stderr line cut
 * at its length limit), split where no secret can straddle the cut: the
 * head, redacted, to hand on now, and the raw rest — shorter than the
 * longest secret, or up to the end of a secret that starts before it — to
 * put before the next piece. `secrets` come longest first.
 */
export function redactHead(
  text: string,
  secrets: readonly string[],
): [head: string, rest: string] {
  if (secrets.length === 0) return [text, ""];
  let at = Math.max(0, text.length - secrets[0]!.length + 1);
  const pattern = patternOf(secrets);
  pattern.lastIndex = 0;
  for (let found = pattern.exec(text); found && found.index < at;) {
    at = Math.max(at, found.index + found[0].length);
    found = pattern.exec(text);
  }
  return [redact(text.slice(0, at), secrets), text.slice(at)];
}
