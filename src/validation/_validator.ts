/**
 * The validator of one schema, loaded lazily by `validation.ts`: a compiled
 * quick check (`_fast_check.ts`) settles most calls; `@cfworker/json-schema`
 * judges the rest and its errors become messages that say what to write.
 * Nothing a schema or an argument holds may stall the process: patterns
 * that may backtrack are vetted out first (`_pattern_safety.ts`, loaded
 * only for schemas that have patterns), `uniqueItems` is left to the server
 * above a bound (the validator compares every pair of items), and the
 * messages are built in time linear in the number of errors. Arguments
 * JSON cannot carry as they are (NaN, a BigInt, a cycle, a getter that
 * throws) are refused before anything else. Internal.
 *
 * @module
 */

import { type Schema, Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "../types.ts";
import { compileArgumentsCheck, compileFastCheck } from "./_fast_check.ts";
import { loosen } from "./_loosen.ts";
import { quickJson, safeMessage, unsendable } from "./_sendable.ts";
import { didYouMean } from "../util/closest.ts";
import { isRecord } from "../util/values.ts";

/** Returns the problems with `args` (`"/path: message"`), or `undefined` when they are valid. */
export type ArgumentValidator = (
  args: Record<string, unknown>,
) => string[] | undefined;

/** What a validator checks: a tool's arguments, or its `structuredContent`. */
export type Subject = "arguments" | "output";

/** A JSON Schema draft cfworker knows. */
export type Draft = "4" | "7" | "2019-09" | "2020-12";

/** Arguments nested deeper than this are rejected when their validation overflows the stack. */
const MAX_CHECKED_DEPTH = 256;
/**
 * The most work `uniqueItems` may cost one check: the validator compares
 * every item of an array with every other, so an array of n items holding
 * s values in all costs up to n·s. Above this (about 1,000 numbers, or 580
 * small objects) the check runs without `uniqueItems` and leaves it to the
 * server; below, it takes a few milliseconds.
 */
export const MAX_UNIQUE_ITEMS_WORK = 1_000_000;
/** Problems listed in one message; the rest are counted. */
const MAX_PROBLEMS = 50;

/**
 * Builds the validator of a schema as the server sent it: picks the draft,
 * vets its patterns, compiles it. When cfworker cannot compile the schema,
 * the validator only refuses arguments JSON cannot carry: the server
 * validates the rest on its own.
 */
export async function buildValidator(
  schema: JsonSchema,
  subject: Subject = "arguments",
): Promise<ArgumentValidator> {
  const draft = draftOf(schema);
  const refOverrides = draft === "4" || draft === "7";
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    text = undefined; // a cycle: let the walks below handle it
  }
  let local = schema;
  if (
    text === undefined || text.includes('"pattern') || text.includes('"url"')
  ) {
    const { vetPatterns } = await import("./_pattern_safety.ts");
    local = (await vetPatterns(schema, refOverrides)).schema;
  }
  if (
    subject === "arguments" &&
    (text === undefined || text.includes('"default"'))
  ) {
    // A required property with a default: the server applies the default.
    local = loosen(local, defaultedRequired, refOverrides);
  }
  let full: Validator | undefined;
  let lenient: Validator | undefined;
  try {
    full = new Validator(local as Schema, draft, false);
    if (text === undefined || text.includes('"uniqueItems"')) {
      const unique = loosen(
        local,
        (node, keyword) => keyword === "uniqueItems" && node[keyword] === true,
        refOverrides,
      );
      if (unique !== local) {
        lenient = new Validator(unique as Schema, draft, false);
      }
    }
  } catch {
    full = undefined;
  }
  const quickYes = full && compileFastCheck(local);
  const sendable = subject === "arguments";
  // Both quick checks in one walk, for most tools' arguments.
  const quickArguments = quickYes && sendable
    ? compileArgumentsCheck(local)
    : undefined;
  return (args) => {
    // Whether the arguments are plain JSON at a glance (arguments only).
    let plain: boolean | undefined;
    try {
      if (quickArguments?.(args)) return undefined;
      plain = sendable ? quickJson(args, 0) : true;
      if (plain && quickYes?.(args)) return undefined;
    } catch {
      // A getter threw: the walk below says where.
    }
    try {
      if (plain !== true) {
        const problem = unsendable(args);
        if (problem !== undefined) return [problem];
      }
      if (full === undefined) return undefined;
      const validator = lenient !== undefined &&
          uniqueItemsWork(args) > MAX_UNIQUE_ITEMS_WORK
        ? lenient
        : full;
      return check(validator, local, args, subject);
    } catch (error) {
      // A value that changed between two reads (a getter, a Proxy).
      return [
        `/: the ${
          subject === "arguments" ? "arguments" : "structuredContent"
        } could not be read: ${safeMessage(error)}`,
      ];
    }
  };
}

/**
 * A `required` list some of whose properties declare a `default`: those are
 * left out of it. Servers list such a property as required and fill it in
 * when it is absent (Playwright's `browser_take_screenshot` `scale`), so a
 * call without it is theirs to accept.
 */
function defaultedRequired(
  node: Record<string, unknown>,
  keyword: string,
): boolean | { keep: unknown } {
  if (keyword !== "required" || !Array.isArray(node.required)) return false;
  const properties = node.properties;
  if (!isRecord(properties)) return false;
  const keep = node.required.filter((name) =>
    !(typeof name === "string" && Object.hasOwn(properties, name) &&
      isRecord(properties[name]) &&
      Object.hasOwn(properties[name] as object, "default"))
  );
  return keep.length === node.required.length ? false : { keep };
}

/** Picks the draft from `$schema`; 2020-12 when absent or unknown (the MCP default). */
function draftOf(schema: JsonSchema): Draft {
  const uri = schema.$schema;
  if (typeof uri !== "string") return "2020-12";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-06") || uri.includes("draft-07")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Runs cfworker and turns its errors into messages. */
function check(
  validator: Validator,
  local: JsonSchema,
  args: Record<string, unknown>,
  subject: Subject,
): string[] | undefined {
  let outcome: ReturnType<Validator["validate"]>;
  try {
    outcome = validator.validate(args);
  } catch (error) {
    const ref = unresolvedRef(error);
    if (ref !== undefined) {
      // Never fetched (MCP 2026-07-28), and never taken as "anything goes".
      return [
        `/: the ${
          subject === "arguments" ? "tool's input" : "output"
        } schema's $ref ${ref} points outside the schema, and this client never fetches a $ref, so these ${
          subject === "arguments" ? "arguments" : "results"
        } cannot be checked and are refused; ask the server's maintainers to put the referenced schema in $defs`,
      ];
    }
    if (error instanceof RangeError && depthOf(args) > MAX_CHECKED_DEPTH) {
      return [
        subject === "arguments"
          ? `/: the arguments are nested too deeply to check (more than ${MAX_CHECKED_DEPTH} levels); flatten them`
          : `/: the structuredContent is nested too deeply to check (more than ${MAX_CHECKED_DEPTH} levels)`,
      ];
    }
    return undefined;
  }
  const { valid, errors } = outcome;
  if (valid) return undefined;
  // Keep the leaves: an error whose keyword location prefixes another's only
  // says "a subschema failed". Every proper prefix of every location, once.
  const inner = new Set<string>();
  // The "False boolean schema" leaves by the instance location of their parent.
  const falseLeaves = new Map<string, typeof errors>();
  for (const error of errors) {
    const location = error.keywordLocation;
    for (
      let end = location.lastIndexOf("/");
      end > 0;
      end = location.lastIndexOf("/", end - 1)
    ) {
      const prefix = location.slice(0, end);
      if (inner.has(prefix)) break; // and so are all of its own prefixes
      inner.add(prefix);
    }
    if (error.keyword === "false") {
      const at = error.instanceLocation;
      const parent = at.slice(0, at.lastIndexOf("/"));
      const leaves = falseLeaves.get(parent);
      if (leaves === undefined) falseLeaves.set(parent, [error]);
      else leaves.push(error);
    }
  }
  const problems: string[] = [];
  let more = 0;
  const add = (problem: () => string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(problem());
    else more++;
  };
  const unknown = new Set<string>();
  for (const error of errors) {
    if (error.keyword !== "additionalProperties") continue;
    // Its "False boolean schema" leaves are the arguments the tool does not take.
    for (const leaf of falseLeaves.get(error.instanceLocation) ?? []) {
      const name = childName(error.instanceLocation, leaf.instanceLocation);
      if (name === undefined) continue;
      unknown.add(leaf.instanceLocation);
      add(() =>
        unknownProperty(local, error.keywordLocation, leaf, name, subject)
      );
    }
  }
  for (const error of errors) {
    if (unknown.has(error.instanceLocation) && error.keyword === "false") {
      continue;
    }
    if (
      error.keyword === "additionalProperties" ||
      inner.has(error.keywordLocation)
    ) continue;
    add(() => {
      const pointer = error.instanceLocation.slice(1) || "/";
      const message = boundMessage(error.keyword, error.error) ??
        (error.error.endsWith(".") ? error.error.slice(0, -1) : error.error);
      // A schema value (a 20,000-entry enum, a long pattern) is quoted in
      // part: the message says what to write, not the whole schema.
      return `${pointer}: ${capped(message)}`;
    });
  }
  if (more > 0) problems.push(`and ${more} more problems`);
  return problems;
}

/**
 * A numeric bound said as what to write: cfworker says "0 is less than 0"
 * for `exclusiveMinimum: 0`, and "5 is greater than or equal to 5" for
 * `exclusiveMaximum: 5`; these become "0 must be greater than 0", "5 must
 * be less than 5", and `minimum` / `maximum` "must be at least / at most".
 */
function boundMessage(keyword: string, text: string): string | undefined {
  if (!/^(?:exclusiveM|m)(?:in|ax)imum$/.test(keyword)) return undefined;
  const match = /^(.+?) is (?:less|greater) than (or equal to)? *(.+?)\.?$/
    .exec(text);
  if (match === null) return undefined;
  const [, value, orEqual, bound] = match;
  const minimum = /min/i.test(keyword);
  const exclusive = keyword.startsWith("exclusive") || orEqual !== undefined;
  return `${value} must be ${
    exclusive
      ? minimum ? "greater than" : "less than"
      : minimum
      ? "at least"
      : "at most"
  } ${bound}`;
}

/** The longest validation message kept whole. */
const MAX_MESSAGE_CHARS = 300;
/** The most property names an unknown-argument message lists. */
const MAX_LISTED = 30;

/** `message`, cut to {@linkcode MAX_MESSAGE_CHARS} with a note of what was left out. */
function capped(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS
    ? message
    : `${message.slice(0, MAX_MESSAGE_CHARS)}… (${
      message.length - MAX_MESSAGE_CHARS
    } more characters)`;
}

/**
 * What `uniqueItems` could cost over `value`: for every array, its number
 * of items times the values it holds in all (what comparing each item with
 * each other takes at most). Stops counting past the limit.
 */
function uniqueItemsWork(value: unknown): number {
  let work = 0;
  let visited = 0;
  const stack: unknown[] = [value];
  // An array's item count and the count of values visited when it was entered.
  const open: { items: number; from: number }[] = [];
  const exits: number[] = [];
  while (stack.length > 0 && work <= MAX_UNIQUE_ITEMS_WORK) {
    while (exits.length > 0 && exits[exits.length - 1] === stack.length) {
      exits.pop();
      const { items, from } = open.pop()!;
      work += items * (visited - from);
    }
    const node = stack.pop();
    visited++;
    if (typeof node !== "object" || node === null) continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    if (Array.isArray(node)) {
      open.push({ items: node.length, from: visited });
      exits.push(stack.length);
    }
    for (const child of children) stack.push(child);
  }
  while (open.length > 0) {
    const { items, from } = open.pop()!;
    work += items * (visited - from);
  }
  return work;
}

/**
 * The `$ref` (quoted, bounded) outside the schema that an "Unresolved
 * $ref" error of cfworker names, if it is one; a broken `#…` ref is the
 * schema's own bug, left to the server.
 */
function unresolvedRef(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : "";
  const match = /^Unresolved \$ref "([^"#][^"]{0,199})/.exec(message);
  return match === null ? undefined : JSON.stringify(match[1]);
}

/** The last segment of `child` when it is one level below `parent` (JSON pointers with `#`). */
function childName(parent: string, child: string): string | undefined {
  if (!child.startsWith(`${parent}/`)) return undefined;
  const rest = child.slice(parent.length + 1);
  if (rest.includes("/")) return undefined;
  return decodeURIComponent(rest).replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * `/x: unknown argument "x" (did you mean "y"?) (the tool takes: a, b)`, or
 * for output `/x: unexpected property "x" (the output schema allows: a, b)`,
 * instead of the validator's "False boolean schema".
 */
function unknownProperty(
  schema: JsonSchema,
  keywordLocation: string,
  leaf: { instanceLocation: string },
  name: string,
  subject: Subject,
): string {
  // The object schema holding `additionalProperties: false`.
  let node: unknown = schema;
  for (const segment of keywordLocation.split("/").slice(1, -1)) {
    node = isRecord(node)
      ? node[segment.replaceAll("~1", "/").replaceAll("~0", "~")]
      : undefined;
  }
  const all = isRecord(node) && isRecord(node.properties)
    ? Object.keys(node.properties)
    : [];
  // The names listed, at most MAX_LISTED of them; did-you-mean sees them all.
  const known = all.length > MAX_LISTED
    ? [...all.slice(0, MAX_LISTED), `… (${all.length} in all)`]
    : all;
  const at = leaf.instanceLocation.slice(1);
  if (subject === "output") {
    return `${at}: unexpected property ${JSON.stringify(name)} (${
      known.length === 0
        ? "the output schema allows no other properties"
        : `the output schema allows: ${known.join(", ")}`
    })`;
  }
  const takes = known.length === 0
    ? "it takes no other arguments"
    : `the tool takes: ${known.join(", ")}`;
  return `${at}: unknown argument ${JSON.stringify(name)}${
    didYouMean(name, all)
  } (${takes})`;
}

/** How deeply a value nests, counted without recursion; stops counting past the limit. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_CHECKED_DEPTH) break;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
