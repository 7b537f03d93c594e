/**
 * The result budget: how much text and how many images of one result a
 * model is given. Text is measured in tokens estimated as UTF-8 bytes ÷ 4
 * (o200k counts 3.9–4.6 bytes per token on English prose, code and JSON,
 * 4.2 on Japanese; fewer on base64), so a budget of N tokens is at most 4N
 * bytes. Text over it keeps its head and its tail, cut at line breaks when
 * one is near, with a marker between them. Internal.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";
import type { ResultBudget } from "./options.ts";

/** A budget with every field set. */
export type Budget = Required<ResultBudget>;

/** The default budget (see {@linkcode ResultBudget}). */
export const DEFAULT_BUDGET: Readonly<Budget> = Object.freeze({
  maxTokens: 25_000,
  maxImages: 10,
  maxImageBytes: 5 * 1024 * 1024,
});

/** Bytes kept free for the marker (and a page's footer). */
const MARKER_BYTES = 512;
/** The smallest `maxTokens`: room for the marker and some text. */
const MIN_TOKENS = 256;

/**
 * Checks a budget option.
 *
 * @param budget The option as given.
 * @param where Its name in messages, e.g. `resultBudget`.
 * @throws {MCPConfigError} For a field that is not a whole number in range.
 */
export function checkBudget(
  budget: ResultBudget | undefined,
  where: string,
): void {
  if (budget === undefined) return;
  if (typeof budget !== "object" || budget === null) {
    throw new MCPConfigError(
      where,
      `${where} must be an object such as { maxTokens: 25000 }, got ${typeof budget}.`,
    );
  }
  const limits: Array<[keyof ResultBudget, number]> = [
    ["maxTokens", MIN_TOKENS],
    ["maxImages", 0],
    ["maxImageBytes", 0],
  ];
  for (const [key, min] of limits) {
    const value = budget[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < min) {
      throw new MCPConfigError(
        `${where}.${key}`,
        `${where}.${key} must be a whole number of at least ${min} (default ${
          DEFAULT_BUDGET[key].toLocaleString("en-US")
        }), got ${String(value)}.`,
      );
    }
  }
}

/** The budgets merged field by field; a later one wins. */
export function mergeBudgets(
  ...budgets: Array<ResultBudget | undefined>
): Budget {
  const out: Budget = { ...DEFAULT_BUDGET };
  for (const budget of budgets) {
    if (budget === undefined) continue;
    for (const key of Object.keys(DEFAULT_BUDGET) as Array<keyof Budget>) {
      const value = budget[key];
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}

/** The estimated tokens of `text`: its UTF-8 bytes ÷ 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8Length(text, Infinity) / 4);
}

/**
 * The UTF-8 length of `text`, counted until it passes `limit` (then some
 * number above `limit`). A lone surrogate counts 3 bytes, as U+FFFD.
 */
export function utf8Length(text: string, limit: number): number {
  // Every UTF-16 unit is at least one byte.
  if (text.length > limit) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length && bytes <= limit; index++) {
    const size = unitBytes(text, index);
    bytes += size;
    if (size === 4) index++;
  }
  return bytes;
}

/** Bytes of the code point starting at `index` (4 for a pair). */
function unitBytes(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (isHighSurrogate(code) && isLowAt(text, index + 1)) return 4;
  return 3;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The end of the longest prefix of `text` from `start` within `bytes` (never inside a pair). */
export function prefixEnd(text: string, start: number, bytes: number): number {
  let used = 0;
  let index = start;
  while (index < text.length) {
    const size = unitBytes(text, index);
    if (used + size > bytes) break;
    used += size;
    index += size === 4 ? 2 : 1;
  }
  return index;
}

/** The start of the longest suffix of `text` within `bytes` (never inside a pair). */
function suffixStart(text: string, bytes: number): number {
  let used = 0;
  let index = text.length;
  while (index > 0) {
    const pair = index >= 2 && isLowAt(text, index - 1) &&
      isHighSurrogate(text.charCodeAt(index - 2));
    const start = pair ? index - 2 : index - 1;
    const size = unitBytes(text, start);
    if (used + size > bytes) break;
    used += size;
    index = start;
  }
  return index;
}

/** What {@linkcode fitText} kept. */
export interface Fitted {
  /** The text for the model: whole, or head + marker + tail. */
  text: string;
  /** Set when text was cut: the end of the head and the start of the tail in the whole text. */
  cut?: { headEnd: number; tailStart: number };
}

/**
 * `text` within `maxTokens`: whole when it fits, else its head (⅔ of the
 * room) and tail (⅓), each ending or starting at a line break when one is
 * within the last or first fifth, and `marker(headEnd, tailStart)` between
 * them (at most 512 bytes).
 */
export function fitText(
  text: string,
  maxTokens: number,
  marker: (headEnd: number, tailStart: number) => string,
): Fitted {
  const maxBytes = maxTokens * 4;
  // At most 3 bytes per UTF-16 unit: most results fit without a count.
  if (text.length * 3 <= maxBytes || utf8Length(text, maxBytes) <= maxBytes) {
    return { text };
  }
  const room = maxBytes - MARKER_BYTES;
  const headBytes = Math.floor(room * 2 / 3);
  let headEnd = prefixEnd(text, 0, headBytes);
  const lineEnd = text.lastIndexOf("\n", headEnd - 1);
  if (lineEnd >= 0 && lineEnd + 1 >= headEnd - headEnd / 5) {
    headEnd = lineEnd + 1;
  }
  let tailStart = Math.max(suffixStart(text, room - headBytes), headEnd);
  const lineStart = text.indexOf("\n", tailStart);
  const tailLength = text.length - tailStart;
  if (lineStart >= 0 && lineStart + 1 - tailStart <= tailLength / 5) {
    tailStart = lineStart + 1;
  }
  return {
    text: `${text.slice(0, headEnd)}${marker(headEnd, tailStart)}${
      text.slice(tailStart)
    }`,
    cut: { headEnd, tailStart },
  };
}

/** The bytes a page of `maxTokens` may fill, its footer aside. */
export function pageBytes(maxTokens: number): number {
  return maxTokens * 4 - MARKER_BYTES;
}
