/**
 * Internal: parses dotenv files (`envFile` of Cursor, Claude Code and VS
 * Code configs) the way the `dotenv` package reads them, with errors where
 * it would silently skip a line.
 *
 * - `NAME=value` per line; `export NAME=value` too; spaces around `=` and
 *   around an unquoted value are dropped. NAME is letters, digits, `_`, `.`
 *   and `-`.
 * - Blank lines and lines starting with `#` are skipped; an unquoted value
 *   ends at `#` (the rest of the line is a comment).
 * - `'single'` and `` `backtick` `` quoted values are literal; `"double"`
 *   quoted values expand `\n`, `\r`, `\t`, `\"` and `\\` (other `\x` stay as
 *   written). Quoted values may span lines.
 * - A later line wins over an earlier one with the same NAME.
 * - No `${VAR}` expansion (as `dotenv` without `dotenv-expand`).
 *
 * The `dotenv` package itself is not used: its module imports `fs`, `path`,
 * `os` and `url` when loaded, which keeps it out of browser and edge
 * bundles of the `/config` entry. Problems never quote the file's text: it
 * holds secrets.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";

/** A line that is not `NAME=value`. */
export interface DotenvProblem {
  /** 1-based line. */
  line: number;
  /** What is wrong, without the line's text. */
  detail: string;
}

/** The variables of a dotenv file, and the lines that could not be read. */
export interface ParsedDotenv {
  values: Record<string, string>;
  problems: DotenvProblem[];
}

const ASSIGNMENT = /^[ \t]*(?:export[ \t]+)?([A-Za-z0-9_.-]+)[ \t]*=[ \t]*/;
const DOUBLE_QUOTED_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  r: "\r",
  t: "\t",
  '"': '"',
  "\\": "\\",
};

/**
 * Parses the text of a dotenv file.
 *
 * @param text The file's text.
 * @returns The variables (own properties only, `__proto__` included) and
 * the problems, each with its line.
 */
export function parseDotenv(text: string): ParsedDotenv {
  const values: Record<string, string> = {};
  const problems: DotenvProblem[] = [];
  const source = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  let offset = 0;
  let line = 1;
  while (offset < source.length) {
    const end = lineEnd(source, offset);
    const current = source.slice(offset, end);
    const trimmed = current.trim();
    if (trimmed === "" || trimmed.startsWith("#")) {
      [offset, line] = [end + 1, line + 1];
      continue;
    }
    const assignment = ASSIGNMENT.exec(current);
    if (assignment === null) {
      problems.push({
        line,
        detail: current.includes("=")
          ? "expected NAME=value, where NAME is letters, digits, _, . and -"
          : 'expected NAME=value, got a line without "="',
      });
      [offset, line] = [end + 1, line + 1];
      continue;
    }
    const name = assignment[1]!;
    const start = offset + assignment[0].length;
    const quote = source[start];
    if (quote === '"' || quote === "'" || quote === "`") {
      const read = quoted(source, start, quote);
      if (read === undefined) {
        problems.push({
          line,
          detail:
            `the value of ${name} opens a ${quote} quote that is never closed`,
        });
        return { values, problems };
      }
      const after = lineEnd(source, read.next);
      const rest = source.slice(read.next, after).trim();
      const startLine = line;
      line += countNewlines(source, offset, after);
      if (rest !== "" && !rest.startsWith("#")) {
        problems.push({
          line: startLine,
          detail:
            `the value of ${name} has text after its closing ${quote} quote; put all of it inside the quotes`,
        });
      } else {
        setOwn(values, name, read.value);
      }
      [offset, line] = [after + 1, line + 1];
      continue;
    }
    const raw = source.slice(start, end);
    const comment = raw.indexOf("#");
    setOwn(values, name, (comment === -1 ? raw : raw.slice(0, comment)).trim());
    [offset, line] = [end + 1, line + 1];
  }
  return { values, problems };
}

function lineEnd(source: string, from: number): number {
  const end = source.indexOf("\n", from);
  return end === -1 ? source.length : end;
}

function countNewlines(source: string, from: number, to: number): number {
  let count = 0;
  for (let index = from; index < to; index++) {
    if (source[index] === "\n") count++;
  }
  return count;
}

/** A quoted value starting at `start` (the quote); `undefined` when unclosed. */
function quoted(
  source: string,
  start: number,
  quote: string,
): { value: string; next: number } | undefined {
  let value = "";
  for (let index = start + 1; index < source.length; index++) {
    const char = source[index]!;
    if (char === quote) return { value, next: index + 1 };
    if (char === "\\" && quote === '"' && index + 1 < source.length) {
      const escaped = DOUBLE_QUOTED_ESCAPES[source[index + 1]!];
      if (escaped !== undefined) {
        value += escaped;
        index++;
        continue;
      }
    }
    value += char;
  }
  return undefined;
}
