/**
 * Argument validation against a tool's `inputSchema` with
 * `@cfworker/json-schema`: no `eval`/`new Function`, so it runs on edge
 * runtimes. The schema comes from the server, so nothing in it may stall
 * the process: patterns are vetted first (`_pattern_safety.ts`, loaded only
 * for schemas that have patterns). The validator package is loaded with the
 * first schema compiled, so a program that never calls a tool never loads
 * it. Most calls are settled by a compiled quick check
 * (`_fast_check.ts`); the validator judges the rest. Internal.
 *
 * @module
 */

import type { Schema, Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "../types.ts";
import { compileFastCheck } from "./_fast_check.ts";

type Draft = "4" | "7" | "2019-09" | "2020-12";

/** Returns the problems with `args` (`"/path: message"`), or `undefined` when they are valid. */
export type ArgumentValidator = (
  args: Record<string, unknown>,
) => string[] | undefined;

/**
 * Every compiled validator, by schema object: compiled once and shared by
 * every check of that schema (a tool's arguments, its output). A refreshed
 * tool list brings new schema objects; the old validators go with the old
 * objects.
 */
const validators = new WeakMap<
  JsonSchema,
  ArgumentValidator | Promise<ArgumentValidator>
>();

/**
 * The validator of `schema`, compiled on first use and cached per schema
 * object: returned as is once compiled (no await on the hot path), as a
 * promise while compiling (concurrent first calls share the work).
 */
export function validatorFor(
  schema: JsonSchema,
): ArgumentValidator | Promise<ArgumentValidator> {
  const cached = validators.get(schema);
  if (cached !== undefined) return cached;
  const compiling = compileValidator(schema);
  validators.set(schema, compiling);
  compiling.then(
    (validator) => validators.set(schema, validator),
    () => validators.delete(schema),
  );
  return compiling;
}

/** Arguments nested deeper than this are rejected when their validation overflows the stack. */
const MAX_CHECKED_DEPTH = 256;

/** Picks the draft from `$schema`; 2020-12 when absent or unknown (the MCP default). */
function draftOf(schema: JsonSchema): Draft {
  const uri = schema.$schema;
  if (typeof uri !== "string") return "2020-12";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-06") || uri.includes("draft-07")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/**
 * Compiles a validator for one schema; compile once per tool and reuse it.
 * When the schema itself cannot be compiled, the validator accepts
 * everything: the server then validates on its own. Patterns that cannot be proven free of
 * catastrophic backtracking are left out of the local check.
 *
 * The validator never throws and never turns itself off. Arguments whose
 * check overflows the stack are rejected as too deep when they are deeply
 * nested; otherwise (the schema is at fault, e.g. an unresolvable `$ref`)
 * that one call is left to the server.
 */
export async function compileValidator(
  schema: JsonSchema,
): Promise<ArgumentValidator> {
  let local = schema;
  let validator: Validator;
  try {
    if (mayHavePatterns(schema)) {
      const { vetPatterns } = await import("./_pattern_safety.ts");
      local = (await vetPatterns(schema)).schema;
    }
    const { Validator } = await import("@cfworker/json-schema");
    validator = new Validator(local as Schema, draftOf(schema), false);
  } catch {
    return acceptAll;
  }
  const quickYes = compileFastCheck(local);
  return (args) => {
    if (quickYes?.(args)) return undefined;
    let outcome: ReturnType<Validator["validate"]>;
    try {
      outcome = validator.validate(args);
    } catch (error) {
      if (error instanceof RangeError && depthOf(args) > MAX_CHECKED_DEPTH) {
        return [
          `/: the arguments are nested too deeply to check (more than ${MAX_CHECKED_DEPTH} levels); flatten them`,
        ];
      }
      return undefined;
    }
    const { valid, errors } = outcome;
    if (valid) return undefined;
    // Keep the leaves: an error whose keyword location prefixes another's only says "a subschema failed".
    const problems: string[] = [];
    for (const error of errors) {
      const prefix = `${error.keywordLocation}/`;
      if (errors.some((other) => other.keywordLocation.startsWith(prefix))) {
        continue;
      }
      const pointer = error.instanceLocation.slice(1) || "/";
      const message = error.error.endsWith(".")
        ? error.error.slice(0, -1)
        : error.error;
      problems.push(`${pointer}: ${message}`);
    }
    return problems;
  };
}

const acceptAll: ArgumentValidator = () => undefined;

/** Whether a schema may have a `pattern` or `patternProperties` (a cheap text test). */
function mayHavePatterns(schema: JsonSchema): boolean {
  try {
    return JSON.stringify(schema).includes('"pattern');
  } catch {
    return true; // a cycle: let vetPatterns() walk it
  }
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
