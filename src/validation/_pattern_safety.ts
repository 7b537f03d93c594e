/**
 * Keeps a server's regular expressions from stalling the process. A tool's
 * `inputSchema` comes from the server, and JavaScript runs a `pattern` with
 * a backtracking engine: `^(a+)+$` against 30 `a`s and a `!` takes seconds,
 * during which nothing else in the process runs. Before a schema is
 * compiled, each `pattern` and `patternProperties` key is vetted: one
 * without a variable quantifier (`*`, `+`, `?`, `{n,m}`) cannot backtrack
 * and passes at once; any other is analysed with `redos-detector`, which
 * proves a pattern free of super-linear backtracking or says it cannot.
 *
 * The analysis is bounded by steps, not by time, so its verdict is the
 * same on an idle and on a loaded machine: each pattern gets
 * {@linkcode STEP_LIMITS} steps, tried in turn, and all the patterns of one
 * schema share {@linkcode SCHEMA_STEP_BUDGET} (each is charged the steps it
 * was allowed, whether its verdict was computed or remembered, so the
 * budget runs out at the same pattern every time). The analyses give way to
 * the event loop between attempts. The `url` format is vetted out too: the
 * validator checks it with a regular expression that backtracks
 * catastrophically on a few dozen characters.
 *
 * What is not proven safe is left to the server by `_loosen.ts`, so the
 * local check only ever gets looser; every other keyword is still checked
 * here. Loaded lazily, only for schemas that have patterns. Internal.
 *
 * @module
 */

import { isSafePattern } from "redos-detector";
import type { JsonSchema } from "../types.ts";
import { isRecord } from "../util/values.ts";
import { loosen } from "./_loosen.ts";

/**
 * The steps one pattern's analysis may take, tried in turn (most patterns
 * are settled by the first); a pattern still unsettled after the last is
 * not proven safe. One attempt of 320 steps holds the event loop for about
 * 5–40 ms on a slow core.
 */
export const STEP_LIMITS: readonly number[] = [16, 64, 320];
/** The steps all the patterns of one schema may take together. */
export const SCHEMA_STEP_BUDGET = 4096;
/** Patterns longer than this are not analysed (the analysis grows with length): left to the server. */
const MAX_PATTERN_CHARS = 512;
/** Verdicts remembered across schemas; servers repeat their patterns. */
const MAX_CACHED_VERDICTS = 1024;
/**
 * How long the analyses run before giving way to the event loop, in
 * milliseconds. It decides when they yield, never what they find.
 */
const SLICE_MS = 8;

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a keyword. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** What the analysis of one pattern found, and the steps it was allowed. */
export interface Verdict {
  safe: boolean;
  steps: number;
}

/** Verdicts by pattern: whatever they were, they come out the same next time. */
const verdicts = new Map<string, Verdict>();

/** The patterns left out of a schema, and the schema without them. */
export interface VettedSchema {
  /** The schema to compile: the input itself when every pattern was safe. */
  schema: JsonSchema;
  /** Patterns taken out, for the record. */
  removed: string[];
}

/**
 * Returns `schema` without the patterns that cannot be proven safe, nor the
 * `url` format: `_loosen.ts` removes them so that the local check only
 * gets looser (an unsafe `patternProperties` goes with the
 * `additionalProperties` beside it; a pattern under `not`, `if` or `oneOf`
 * takes that keyword with it). The input is not modified. The same schema
 * gives the same result on any machine, under any load.
 *
 * @param schema The tool's input or output schema.
 * @param refOverrides Whether `$ref` overrides its siblings (draft-04 and -07).
 * @param remembered The verdicts of earlier analyses, by pattern; shared by
 * every schema unless given.
 * @throws {RangeError} When the schema is nested too deeply to walk.
 */
export async function vetPatterns(
  schema: JsonSchema,
  refOverrides = false,
  remembered: Map<string, Verdict> = verdicts,
): Promise<VettedSchema> {
  const safe = new Set<string>();
  const removed: string[] = [];
  const slice = { started: performance.now() };
  let spent = 0;
  for (const pattern of patternsIn(schema)) {
    if (!mayBacktrack(pattern)) {
      safe.add(pattern);
      continue;
    }
    let verdict = remembered.get(pattern);
    // Past the budget every further pattern is out, remembered or not.
    if (verdict === undefined && spent < SCHEMA_STEP_BUDGET) {
      verdict = await analyse(pattern, slice);
      if (remembered.size >= MAX_CACHED_VERDICTS) remembered.clear();
      remembered.set(pattern, verdict);
    }
    if (verdict !== undefined) spent += verdict.steps;
    if (verdict?.safe && spent <= SCHEMA_STEP_BUDGET) safe.add(pattern);
    else removed.push(pattern);
  }
  const local = loosen(
    schema,
    (node, keyword) => {
      const value = node[keyword];
      if (keyword === "pattern") {
        return typeof value === "string" && !safe.has(value);
      }
      if (keyword === "patternProperties") {
        return isRecord(value) &&
          !Object.keys(value).every((key) => safe.has(key));
      }
      return keyword === "format" && value === "url";
    },
    refOverrides,
  );
  return { schema: local, removed };
}

/** Every `pattern` value and `patternProperties` key in a schema, in a fixed order (data keywords skipped). */
function patternsIn(schema: JsonSchema): Set<string> {
  const found = new Set<string>();
  const seen = new Set<unknown>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    // Children go on the stack last first, so that patterns come in the
    // order they are written.
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    const entries = Object.entries(node);
    for (const [key, value] of entries) {
      if (key === "pattern" && typeof value === "string") found.add(value);
      else if (key === "patternProperties" && isRecord(value)) {
        for (const name of Object.keys(value)) found.add(name);
      }
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      if (!DATA_KEYWORDS.has(key)) stack.push(value);
    }
  }
  return found;
}

/** What cannot make a pattern backtrack: escapes, character classes, group openers. */
const INERT =
  /\\.|\[(?:[^\]\\]|\\.)*\]|\(\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>)/g;
/** A quantifier whose count varies: the only source of backtracking. */
const VARIABLE_QUANTIFIER = /[*+?]|\{\d*,/;

/** Whether a pattern has a variable quantifier, so needs the analysis. */
function mayBacktrack(pattern: string): boolean {
  return VARIABLE_QUANTIFIER.test(pattern.replace(INERT, ""));
}

/**
 * Analyses one pattern within {@linkcode STEP_LIMITS}, giving way to the
 * event loop before an attempt once the current slice is used up.
 */
async function analyse(
  pattern: string,
  slice: { started: number },
): Promise<Verdict> {
  if (pattern.length > MAX_PATTERN_CHARS) return { safe: false, steps: 0 };
  let steps = 0;
  for (const maxSteps of STEP_LIMITS) {
    if (performance.now() - slice.started >= SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      slice.started = performance.now();
    }
    steps += maxSteps;
    try {
      // The schema's validator compiles patterns with the "u" flag; no
      // `timeout`: a timer would make the verdict depend on the load.
      const result = isSafePattern(pattern, { unicode: true, maxSteps });
      if (result.error !== "hitMaxSteps") return { safe: result.safe, steps };
    } catch {
      return { safe: false, steps }; // not a pattern it understands: not proven safe
    }
  }
  return { safe: false, steps };
}
