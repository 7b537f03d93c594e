/**
 * Validation against a tool's JSON Schemas (its `inputSchema`, and its
 * `outputSchema` through `output.ts`) with `@cfworker/json-schema`: no
 * `eval`/`new Function`, so it runs on edge runtimes. The schema comes from
 * the server, so nothing in it may stall the process: patterns are vetted
 * first (`_pattern_safety.ts`, loaded only for schemas that have patterns).
 * The validator package and our machinery around it (`_validator.ts`: the
 * quick check of `_fast_check.ts` in front, the wording of problems) are
 * loaded with the first schema compiled, so a program that never calls a
 * tool never loads them. This module keeps the compiled validators, one per
 * schema object. Internal.
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";

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

/**
 * Compiles a validator for one schema; compile once per tool and reuse it
 * (or let {@linkcode validatorFor} cache it). When the schema itself cannot
 * be compiled, the validator accepts everything: the server then validates
 * on its own. Patterns that cannot be proven free of catastrophic
 * backtracking are left out of the local check.
 *
 * The validator never throws and never turns itself off. Arguments whose
 * check overflows the stack are rejected as too deep when they are deeply
 * nested; otherwise (the schema is at fault, e.g. an unresolvable `$ref`)
 * that one call is left to the server.
 */
export async function compileValidator(
  schema: JsonSchema,
): Promise<ArgumentValidator> {
  const { compileSchema } = await import("./_validator.ts");
  return await compileSchema(schema);
}
