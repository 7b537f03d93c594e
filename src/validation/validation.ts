/**
 * JSON Schema validation, the face of `src/validation/`: a tool's
 * arguments against its `inputSchema` (`validatorFor`) and, through
 * `output.ts`, its `structuredContent` against its `outputSchema`, with
 * `@cfworker/json-schema`: no
 * `eval`/`new Function`, so it runs on edge runtimes. Each validator is
 * compiled once per schema object and cached, never per call or per tool
 * list. The schema comes from the server, so nothing in it may stall the
 * process: patterns are vetted first (`_pattern_safety.ts`, loaded only for
 * schemas that have patterns). The validator itself (`_validator.ts`:
 * cfworker, the compiled quick check, the messages) is loaded with the
 * first schema compiled, so a program that never calls a tool never loads
 * it. Internal.
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";
import type { ArgumentValidator, Subject } from "./_validator.ts";

export type { ArgumentValidator, Subject };

type Cache = WeakMap<
  JsonSchema,
  ArgumentValidator | Promise<ArgumentValidator>
>;

/**
 * Every compiled validator, by what it checks and schema object: compiled
 * once and shared by every check of that schema (a tool's arguments; its
 * output). A refreshed tool list brings new schema
 * objects; the old validators go with the old objects.
 */
const validators: Record<Subject, Cache> = {
  arguments: new WeakMap(),
  output: new WeakMap(),
};

/**
 * The validator of `schema`, compiled on first use and cached per schema
 * object: returned as is once compiled (no await on the hot path), as a
 * promise while compiling (concurrent first calls share the work).
 */
export function validatorFor(
  schema: JsonSchema,
  subject: Subject = "arguments",
): ArgumentValidator | Promise<ArgumentValidator> {
  const cache = validators[subject];
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  const compiling = compileValidator(schema, subject);
  cache.set(schema, compiling);
  compiling.then(
    (validator) => cache.set(schema, validator),
    () => cache.delete(schema),
  );
  return compiling;
}

/**
 * Compiles a validator for one schema; compile once per tool and reuse it.
 * When the schema itself cannot be compiled, the validator accepts
 * everything JSON can carry: the server then validates on its own.
 * Patterns that cannot be proven free of catastrophic backtracking are left
 * out of the local check, so that it only ever gets looser.
 *
 * The validator never throws and never turns itself off. A `$ref` is
 * never fetched: arguments that reach one the schema cannot resolve itself
 * (a network `$ref`) are refused with a message that says so, as MCP
 * 2026-07-28 asks. Arguments whose check overflows the stack are rejected
 * as too deep when they are deeply nested; otherwise (the schema is at
 * fault) that one call is left to the server.
 *
 * @param schema The tool's `inputSchema` or `outputSchema`.
 * @param subject What is checked: the messages speak of the tool's
 * arguments, or of its `structuredContent`.
 */
export async function compileValidator(
  schema: JsonSchema,
  subject: Subject = "arguments",
): Promise<ArgumentValidator> {
  try {
    const { buildValidator } = await import("./_validator.ts");
    return await buildValidator(schema, subject);
  } catch {
    return acceptAll;
  }
}

const acceptAll: ArgumentValidator = () => undefined;
