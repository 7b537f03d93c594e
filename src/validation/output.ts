/**
 * Checks a tool result's `structuredContent` against the tool's
 * `outputSchema` (the specification: clients SHOULD validate), with the same
 * validators as the argument checks — compiled once per schema object and
 * cached (`validatorFor`), never per call or per tool list. Loaded with the
 * first tool that declares an output schema. Internal.
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";
import { type ArgumentValidator, validatorFor } from "./validation.ts";

/**
 * What is wrong with a successful result of a tool that declares
 * `outputSchema`: no `structuredContent`, or one that does not match (each
 * problem as `"/pointer: message"`). `undefined` when it matches. Results
 * with `isError: true` are not checked: they carry no structured output.
 *
 * @param schema The tool's `outputSchema`.
 * @param result The tool's result.
 * @returns The problem, phrased to follow `Tool "name" `, or `undefined`;
 * a promise only while the schema's validator is being compiled.
 */
export function outputProblem(
  schema: JsonSchema,
  result: Record<string, unknown>,
): string | undefined | Promise<string | undefined> {
  if (result.isError === true) return undefined;
  if (result.structuredContent === undefined) {
    return "declares an output schema but returned no structuredContent";
  }
  const validator = validatorFor(schema, "output");
  // Once compiled, the check runs without a promise.
  return validator instanceof Promise
    ? validator.then((compiled) => problemsOf(compiled, result))
    : problemsOf(validator, result);
}

function problemsOf(
  validator: ArgumentValidator,
  result: Record<string, unknown>,
): string | undefined {
  const problems = validator(
    result.structuredContent as Record<string, unknown>,
  );
  return problems &&
    `returned structuredContent that does not match its output schema: ${
      problems.join("; ")
    }`;
}
