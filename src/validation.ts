/**
 * Argument validation against a tool's `inputSchema` with
 * `@cfworker/json-schema`: no `eval`/`new Function`, so it runs on edge
 * runtimes. Internal.
 *
 * @module
 */

import { type Schema, Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "./types.ts";

type Draft = "4" | "7" | "2019-09" | "2020-12";

/** Returns the problems with `args` (`"/path: message"`), or `undefined` when they are valid. */
export type ArgumentValidator = (
  args: Record<string, unknown>,
) => string[] | undefined;

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
 * Compiles a validator for one schema. Returns `undefined` when the schema
 * itself cannot be compiled (the server then validates on its own). A
 * schema whose problem only shows while validating (an unresolvable `$ref`)
 * is likewise left to the server from its first use on.
 */
export function compileValidator(
  schema: JsonSchema,
): ArgumentValidator | undefined {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, draftOf(schema), false);
  } catch {
    return undefined;
  }
  let usable = true;
  return (args) => {
    if (!usable) return undefined;
    let outcome: ReturnType<Validator["validate"]>;
    try {
      outcome = validator.validate(args);
    } catch {
      usable = false;
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
