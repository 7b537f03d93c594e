/**
 * Internal: JSON as VS Code writes it (comments, trailing commas), parsed by
 * `JSON.parse` after a scan that checks the syntax, finds the offset of the
 * first error, and blanks out what `JSON.parse` would refuse. Messages never
 * quote the text: it may hold secrets.
 *
 * @module
 */

const MAX_DEPTH = 100;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** A syntax error at an offset of the text. */
export class JsonSyntaxError extends Error {
  /** UTF-16 offset of the error. */
  readonly offset: number;

  /**
   * Creates the error.
   *
   * @param offset Where the error is.
   * @param message What is wrong, without quoting the text.
   */
  constructor(offset: number, message: string) {
    super(message);
    this.name = "JsonSyntaxError";
    this.offset = offset;
  }
}

/**
 * Parses JSON with comments and trailing commas. Duplicate keys are errors
 * (`JSON.parse` would keep the last silently).
 *
 * @param text The text.
 * @returns The value, and the text with comments and trailing commas blanked
 * to spaces (same offsets, plain JSON); `undefined` when the text holds only
 * whitespace and comments.
 * @throws {JsonSyntaxError} At the first syntax error.
 */
export function parseJsonc(
  text: string,
): { value: unknown; plain: string } | undefined {
  const blanks = new JsonScanner(text).scan();
  if (blanks === undefined) return undefined;
  const plain = blankOut(text, blanks);
  try {
    return { value: JSON.parse(plain), plain };
  } catch {
    // Not reached when the scan is right; JSON.parse's message may quote text.
    throw new JsonSyntaxError(0, "is not valid JSON");
  }
}

/** Replaces comments, trailing commas and a BOM with spaces, keeping offsets. */
function blankOut(text: string, blanks: Array<[number, number]>): string {
  if (blanks.length === 0) return text;
  let result = "";
  let index = 0;
  for (const [start, end] of blanks) {
    result += text.slice(index, start) +
      text.slice(start, end).replace(/[^\r\n]/g, " ");
    index = end;
  }
  return result + text.slice(index);
}

/** A JSON-with-comments syntax checker; records what to blank for `JSON.parse`. */
class JsonScanner {
  #text: string;
  #pos = 0;
  #blanks: Array<[number, number]> = [];

  constructor(text: string) {
    this.#text = text;
  }

  /** The ranges to blank, or `undefined` for an empty text. */
  scan(): Array<[number, number]> | undefined {
    this.#skip();
    if (this.#pos >= this.#text.length) return undefined;
    this.#value(0);
    this.#skip();
    if (this.#pos < this.#text.length) {
      this.#fail("unexpected text after the end of the JSON value");
    }
    return this.#blanks;
  }

  #fail(reason: string, offset = this.#pos): never {
    throw new JsonSyntaxError(offset, reason);
  }

  #skip(): void {
    const text = this.#text;
    for (;;) {
      const char = text[this.#pos];
      if (char === " " || char === "\t" || char === "\n" || char === "\r") {
        this.#pos++;
      } else if (char === "\uFEFF" && this.#pos === 0) {
        this.#blanks.push([0, 1]);
        this.#pos++;
      } else if (char === "/" && text[this.#pos + 1] === "/") {
        const newline = text.indexOf("\n", this.#pos);
        const end = newline === -1 ? text.length : newline;
        this.#blanks.push([this.#pos, end]);
        this.#pos = end;
      } else if (char === "/" && text[this.#pos + 1] === "*") {
        const close = text.indexOf("*/", this.#pos + 2);
        if (close === -1) {
          this.#fail('unclosed "/*" comment; close it with "*/"');
        }
        this.#blanks.push([this.#pos, close + 2]);
        this.#pos = close + 2;
      } else return;
    }
  }

  #value(depth: number): void {
    if (depth > MAX_DEPTH) {
      this.#fail(`nests deeper than ${MAX_DEPTH} levels`);
    }
    this.#skip();
    const char = this.#text[this.#pos];
    switch (char) {
      case "{":
        return this.#container(depth, "}");
      case "[":
        return this.#container(depth, "]");
      case '"':
        this.#string();
        return;
      case "t":
      case "f":
      case "n":
        return this.#literal();
      case undefined:
        return this.#fail("unexpected end of the file; a value is missing");
      case "'":
        return this.#fail('strings must be in double quotes ("), not single');
      default:
        if (char === "-" || (char >= "0" && char <= "9")) return this.#number();
        this.#fail(
          'expected a value: a string in double quotes, a number, true, false, null, an object or a list (quote text with ")',
        );
    }
  }

  #container(depth: number, close: "}" | "]"): void {
    const object = close === "}";
    const keys = new Set<string>();
    const what = object ? "an object" : "a list";
    this.#pos++;
    this.#skip();
    if (this.#text[this.#pos] === close) {
      this.#pos++;
      return;
    }
    for (;;) {
      this.#skip();
      if (object) this.#key(keys);
      this.#value(depth + 1);
      this.#skip();
      const char = this.#text[this.#pos];
      if (char === close) {
        this.#pos++;
        return;
      }
      if (char === undefined) {
        this.#fail(
          `unexpected end of the file inside ${what}; close it with "${close}"`,
        );
      }
      if (char !== ",") this.#fail(`expected "," or "${close}" after a value`);
      const comma = this.#pos++;
      this.#skip();
      if (this.#text[this.#pos] === close) {
        this.#blanks.push([comma, comma + 1]);
        this.#pos++;
        return;
      }
    }
  }

  #key(keys: Set<string>): void {
    const start = this.#pos;
    const char = this.#text[start];
    if (char === undefined) {
      this.#fail(
        'unexpected end of the file inside an object; close it with "}"',
      );
    }
    if (char !== '"') this.#fail("expected a key in double quotes");
    this.#string();
    const key = JSON.parse(this.#text.slice(start, this.#pos)) as string;
    if (keys.has(key)) {
      this.#fail(`duplicated key ${JSON.stringify(key)}`, start);
    }
    keys.add(key);
    this.#skip();
    if (this.#text[this.#pos] !== ":") {
      this.#fail(`expected ":" after the key ${JSON.stringify(key)}`);
    }
    this.#pos++;
  }

  #string(): void {
    const text = this.#text;
    const start = this.#pos++;
    for (;;) {
      const code = text.charCodeAt(this.#pos);
      if (Number.isNaN(code) || code === 10) {
        this.#fail("unterminated string; close it with a double quote", start);
      }
      if (code === 34) {
        this.#pos++;
        return;
      }
      if (code === 92) {
        const escape = text[this.#pos + 1];
        if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          this.#pos += 2;
        } else if (
          escape === "u" && HEX4.test(text.slice(this.#pos + 2, this.#pos + 6))
        ) {
          this.#pos += 6;
        } else {
          this.#fail(
            'invalid escape in a string; write "\\\\" for a backslash',
          );
        }
        continue;
      }
      if (code < 32) {
        this.#fail(
          'control character in a string; write it escaped, e.g. "\\t"',
        );
      }
      this.#pos++;
    }
  }

  #number(): void {
    NUMBER.lastIndex = this.#pos;
    const match = NUMBER.exec(this.#text);
    if (match === null || match[0] === "-") this.#fail("invalid number");
    this.#pos += match[0].length;
  }

  #literal(): void {
    for (const word of ["true", "false", "null"]) {
      if (this.#text.startsWith(word, this.#pos)) {
        this.#pos += word.length;
        return;
      }
    }
    this.#fail(
      'expected a value: a string in double quotes, a number, true, false, null, an object or a list (quote text with ")',
    );
  }
}
