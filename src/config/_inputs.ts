/**
 * Internal: VS Code's `inputs` — the values a config refers to as
 * `${input:id}` — as the file declares them, and where their values come
 * from: a record, or a function that asks (the CLI prompts on a terminal).
 *
 * @module
 */

import { ConfigProblem } from "../_util/problem.ts";
import { isRecord } from "../_util/values.ts";

/** One input of a config file's `inputs` list, as a function that asks for it sees it. */
export interface ConfigInput {
  /** The id that `${input:id}` names. */
  id: string;
  /** VS Code's input type, e.g. `"promptString"` or `"pickString"`, when given. */
  type?: string;
  /** What to ask, as the file words it. */
  description?: string;
  /** `true` when the value is secret: do not echo it. Its value is redacted like an env value. */
  password: boolean;
  /** The value to offer, when the file gives one. */
  default?: string;
  /** `pickString`: the values to choose from. */
  options?: string[];
}

/**
 * Values for `${input:id}`: a record of id → value, or a function that is
 * asked once for each input the file declares and uses (in file order, one
 * at a time, so it may prompt on a terminal).
 */
export type ConfigInputs =
  | Readonly<Record<string, string>>
  | ((input: ConfigInput) => string | Promise<string>);

/**
 * The inputs a file declares, by id. The schema has checked the list's
 * shape; a repeated id is a problem.
 *
 * @param raw The file's `inputs` value.
 * @param problems Receives the problems.
 * @returns The declared inputs, the first of each id.
 */
export function declaredInputs(
  raw: unknown,
  problems: ConfigProblem[],
): Map<string, ConfigInput> {
  const declared = new Map<string, ConfigInput>();
  if (!Array.isArray(raw)) return declared;
  raw.forEach((item, index) => {
    if (!isRecord(item) || typeof item.id !== "string") return;
    if (declared.has(item.id)) {
      problems.push(
        new ConfigProblem(
          ["inputs", index, "id"],
          `input "${item.id}" is declared twice; give each input its own id`,
        ),
      );
      return;
    }
    const input: ConfigInput = {
      id: item.id,
      password: item.password === true,
    };
    if (typeof item.type === "string") input.type = item.type;
    if (typeof item.description === "string") {
      input.description = item.description;
    }
    if (typeof item.default === "string") input.default = item.default;
    if (Array.isArray(item.options)) {
      input.options = item.options.flatMap((option) =>
        typeof option === "string"
          ? [option]
          : isRecord(option) && typeof option.value === "string"
          ? [option.value]
          : []
      );
    }
    declared.set(item.id, input);
  });
  return declared;
}

/**
 * Asks a function for the value of each declared input in `ids`, in order,
 * once each.
 *
 * @param ids The ids the file uses, in file order, repeats included.
 * @param declared The declared inputs; ids not declared are not asked for
 * (the loader reports them).
 * @param ask The function.
 * @returns The answers, by id.
 * @throws What `ask` throws.
 */
export async function askInputs(
  ids: readonly string[],
  declared: ReadonlyMap<string, ConfigInput>,
  ask: (input: ConfigInput) => string | Promise<string>,
): Promise<Map<string, unknown>> {
  const answers = new Map<string, unknown>();
  for (const id of ids) {
    const input = declared.get(id);
    if (input === undefined || answers.has(id)) continue;
    answers.set(id, await ask(structuredClone(input)));
  }
  return answers;
}

/**
 * How `${input:id}` resolves: an answer (a string; anything else is a
 * problem), else the given record's value, else the declared default.
 *
 * @param declared The declared inputs.
 * @param given The record of values, when one was given.
 * @param answers What a function answered.
 * @returns The value, or why there is none (continues "uses ${input:id}, ").
 */
export function inputValue(
  id: string,
  declared: ReadonlyMap<string, ConfigInput>,
  given: Readonly<Record<string, string>> | undefined,
  answers: ReadonlyMap<string, unknown> | undefined,
): string | { missing: string } {
  if (answers?.has(id)) {
    const answer = answers.get(id);
    return typeof answer === "string" ? answer : {
      missing: `but the inputs function answered it with ${
        answer === null ? "null" : typeof answer
      }, not a string`,
    };
  }
  if (given !== undefined && Object.hasOwn(given, id)) {
    const value = given[id];
    if (typeof value === "string") return value;
  }
  const input = declared.get(id);
  if (input === undefined) {
    return {
      missing:
        `but the file's "inputs" list declares no input "${id}"; add { "id": "${id}", "type": "promptString", "description": "..." } to it${
          given === undefined ? "" : `, or pass a value for "${id}" in inputs`
        }`,
    };
  }
  if (input.default !== undefined) return input.default;
  return {
    missing:
      `which has no value; pass the inputs option (a record such as { "${id}": "..." }, or a function that asks for it), or run the CLI on a terminal, which asks`,
  };
}
