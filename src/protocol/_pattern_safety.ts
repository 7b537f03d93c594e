/**
 * Keeps a server's regular expressions from stalling the process. A tool's
 * `inputSchema` comes from the server, and JavaScript runs a `pattern` with
 * a backtracking engine: `^(a+)+$` against 30 `a`s and a `!` takes seconds,
 * during which nothing else in the process runs. Before a schema is
 * compiled, each `pattern` and `patternProperties` key is vetted: one
 * without a variable quantifier (`*`, `+`, `?`, `{n,m}`) cannot backtrack
 * and passes at once; any other is analysed with `redos-detector`, which
 * proves a pattern free of super-linear backtracking or says it cannot —
 * one pattern per turn of the event loop, each within
 * {@linkcode ANALYSIS_TIMEOUT_MS}. What is not proven safe is taken out of
 * the local schema: that check is left to the server, every other keyword
 * is still checked here. Loaded lazily, only for schemas that have
 * patterns. Internal.
 *
 * @module
 */

import { isSafePattern } from "redos-detector";
import type { JsonSchema } from "../types.ts";
import { isRecord } from "../_util/values.ts";

/** The longest one analysis may hold the event loop, in milliseconds. */
export const ANALYSIS_TIMEOUT_MS = 50;
/** Patterns longer than this are not analysed (the analysis grows with length): left to the server. */
const MAX_PATTERN_CHARS = 512;
/** Verdicts remembered across schemas; servers repeat their patterns. */
const MAX_CACHED_VERDICTS = 1024;

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a keyword. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** Verdicts of finished analyses, by pattern. */
const cache = new Map<string, boolean>();

/** The patterns left out of a schema, and the schema without them. */
export interface VettedSchema {
  /** The schema to compile: the input itself when every pattern was safe. */
  schema: JsonSchema;
  /** Patterns taken out, for the record. */
  removed: string[];
}

/**
 * Returns `schema` with every pattern that cannot be proven safe removed:
 * an unsafe `pattern` is dropped from its subschema; a `patternProperties`
 * with an unsafe key is dropped along with the `additionalProperties` of
 * the same subschema (which depends on it), so the local check only ever
 * gets looser, never stricter. The input is not modified.
 *
 * @throws {RangeError} When the schema is nested too deeply to walk.
 */
export async function vetPatterns(schema: JsonSchema): Promise<VettedSchema> {
  const verdicts = new Map<string, boolean>();
  for (const pattern of patternsIn(schema)) {
    verdicts.set(pattern, await isSafe(pattern));
  }
  const removed: string[] = [];
  const safe = (pattern: string) => {
    if (verdicts.get(pattern)) return true;
    removed.push(pattern);
    return false;
  };
  const copies = new Map<unknown, unknown>();
  const walk = (node: unknown): unknown => {
    if (typeof node !== "object" || node === null) return node;
    const known = copies.get(node);
    if (known !== undefined) return known;
    if (Array.isArray(node)) {
      const copy: unknown[] = [];
      copies.set(node, copy);
      for (const item of node) copy.push(walk(item));
      return copy;
    }
    const copy: Record<string, unknown> = {};
    copies.set(node, copy);
    const record = node as Record<string, unknown>;
    let dropAdditional = false;
    for (const [key, value] of Object.entries(record)) {
      if (key === "pattern" && typeof value === "string") {
        if (safe(value)) copy[key] = value;
      } else if (key === "patternProperties" && isRecord(value)) {
        if (Object.keys(value).every(safe)) copy[key] = walk(value);
        else dropAdditional = true;
      } else if (DATA_KEYWORDS.has(key)) {
        copy[key] = value;
      } else {
        copy[key] = walk(value);
      }
    }
    if (dropAdditional) delete copy.additionalProperties;
    return copy;
  };
  const vetted = walk(schema) as JsonSchema;
  return { schema: removed.length === 0 ? schema : vetted, removed };
}

/** Every `pattern` value and `patternProperties` key in a schema (data keywords skipped). */
function patternsIn(schema: JsonSchema): Set<string> {
  const found = new Set<string>();
  const seen = new Set<unknown>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "pattern" && typeof value === "string") found.add(value);
      else if (key === "patternProperties" && isRecord(value)) {
        for (const name of Object.keys(value)) found.add(name);
        stack.push(value);
      } else if (!DATA_KEYWORDS.has(key)) stack.push(value);
    }
  }
  return found;
}

/** What cannot make a pattern backtrack: escapes, character classes, group openers. */
const INERT =
  /\\.|\[(?:[^\]\\]|\\.)*\]|\(\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>)/g;
/** A quantifier whose count varies: the only source of backtracking. */
const VARIABLE_QUANTIFIER = /[*+?]|\{\d*,/;

/**
 * Whether a pattern is proven safe: at once when it has no variable
 * quantifier, otherwise by analysis in a turn of the event loop of its own.
 */
async function isSafe(pattern: string): Promise<boolean> {
  if (!VARIABLE_QUANTIFIER.test(pattern.replace(INERT, ""))) return true;
  const known = cache.get(pattern);
  if (known !== undefined) return known;
  if (pattern.length > MAX_PATTERN_CHARS) return false;
  await new Promise((resolve) => setTimeout(resolve, 0));
  const started = performance.now();
  let safe: boolean;
  try {
    // The schema's validator compiles patterns with the "u" flag.
    safe = isSafePattern(pattern, {
      unicode: true,
      timeout: ANALYSIS_TIMEOUT_MS,
    }).safe;
  } catch {
    safe = false; // not a pattern it understands: not proven safe
  }
  // A verdict cut short by the timeout is not remembered: under less load
  // the analysis may finish.
  if (safe || performance.now() - started < ANALYSIS_TIMEOUT_MS) {
    if (cache.size >= MAX_CACHED_VERDICTS) cache.clear();
    cache.set(pattern, safe);
  }
  return safe;
}
