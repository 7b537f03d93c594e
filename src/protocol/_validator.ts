/**
 * The validator of one schema, loaded lazily by `validation.ts`: a compiled
 * quick check (`_fast_check.ts`) settles most calls; `@cfworker/json-schema`
 * judges the rest and its errors become messages that say what to write.
 * Internal.
 *
 * @module
 */

import { type Schema, Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "../types.ts";
import { compileFastCheck } from "./_fast_check.ts";
import { didYouMean } from "../_util/closest.ts";
import { isRecord } from "../_util/values.ts";

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
 * Builds the validator of an already vetted schema.
 *
 * @throws When cfworker cannot compile the schema.
 */
export function buildValidator(
  local: JsonSchema,
  draft: Draft,
  subject: Subject = "arguments",
): ArgumentValidator {
  const validator = new Validator(local as Schema, draft, false);
  const quickYes = compileFastCheck(local);
  return (args) => {
    if (quickYes?.(args)) return undefined;
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
    // Keep the leaves: an error whose keyword location prefixes another's only says "a subschema failed".
    const problems: string[] = [];
    const unknown = new Set<string>();
    for (const error of errors) {
      if (error.keyword !== "additionalProperties") continue;
      // Its "False boolean schema" leaves are the arguments the tool does not take.
      for (const leaf of errors) {
        const name = childName(error.instanceLocation, leaf.instanceLocation);
        if (leaf.keyword !== "false" || name === undefined) continue;
        unknown.add(leaf.instanceLocation);
        problems.push(
          unknownProperty(local, error.keywordLocation, leaf, name, subject),
        );
      }
    }
    for (const error of errors) {
      if (unknown.has(error.instanceLocation) && error.keyword === "false") {
        continue;
      }
      const prefix = `${error.keywordLocation}/`;
      if (
        error.keyword === "additionalProperties" ||
        errors.some((other) => other.keywordLocation.startsWith(prefix))
      ) continue;
      const pointer = error.instanceLocation.slice(1) || "/";
      const message = error.error.endsWith(".")
        ? error.error.slice(0, -1)
        : error.error;
      problems.push(`${pointer}: ${message}`);
    }
    return problems;
  };
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
  const known = isRecord(node) && isRecord(node.properties)
    ? Object.keys(node.properties)
    : [];
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
    didYouMean(name, known)
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
