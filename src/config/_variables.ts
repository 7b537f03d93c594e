/**
 * Internal: stage 3 of loading a config, variables. What `${…}` references
 * resolve against: the environment, `${workspaceFolder}`, `${userHome}`,
 * and VS Code's `inputs` — the values a config refers to as `${input:id}` —
 * as the file declares them, with their values from a record, or from a
 * function that asks (the CLI prompts on a terminal).
 *
 * @module
 */

import { ConfigProblem } from "../util/problem.ts";
import { isRecord } from "../util/values.ts";
import { envLookup, type Variables } from "./_interpolate.ts";
import type { Servers } from "./_drafts.ts";
import type { ParsedConfig } from "./_parse.ts";
import type {
  ConfigInput,
  LoadConfigOptions,
  ParseConfigOptions,
} from "./types.ts";

/** Folders in which editors keep a project's `mcp.json`: the project is the folder above. */
const EDITOR_FOLDERS = new Set([".vscode", ".cursor"]);

/** The variables of a config, with the inputs it declares. */
export interface ConfigVariables extends Variables {
  /** The declared inputs, by id: a `password` input's value is a secret. */
  declared: ReadonlyMap<string, ConfigInput>;
}

/**
 * The variables of a config whose input values, if any, are given as a
 * record. Problems of the `inputs` list go to `parsed.problems`.
 *
 * @param parsed The parsed config.
 * @param options The caller's variables and input values.
 * @returns The variables.
 */
export function variablesOf(
  parsed: ParsedConfig,
  options: ParseConfigOptions,
): ConfigVariables {
  const declared = declaredInputs(parsed.root.inputs, parsed.problems);
  return variables(parsed, declared, options, options.inputs, undefined);
}

/**
 * The variables of a config; when the input values come from a function,
 * it is asked first for each declared input the readable servers use.
 *
 * @param parsed The parsed config.
 * @param servers Its servers.
 * @param options The caller's variables, and input values or the function.
 * @returns The variables.
 * @throws What an `inputs` function throws.
 */
export async function askVariables(
  parsed: ParsedConfig,
  servers: Servers,
  options: LoadConfigOptions,
): Promise<ConfigVariables> {
  const { inputs } = options;
  const declared = declaredInputs(parsed.root.inputs, parsed.problems);
  if (typeof inputs !== "function") {
    return variables(parsed, declared, options, inputs, undefined);
  }
  const used = servers.readable.flatMap((draft) => draft.inputs);
  const answers = await askInputs(used, declared, inputs);
  return variables(parsed, declared, options, undefined, answers);
}

function variables(
  parsed: ParsedConfig,
  declared: ReadonlyMap<string, ConfigInput>,
  options: LoadConfigOptions,
  given: Readonly<Record<string, string>> | undefined,
  answers: ReadonlyMap<string, unknown> | undefined,
): ConfigVariables {
  const workspaceFolder = options.workspaceFolder ??
    (parsed.folder === undefined ? undefined : workspaceOf(parsed.folder));
  return {
    env: envLookup(options.env),
    workspaceFolder: workspaceFolder ?? {
      missing:
        "but the config was given as text, which has no folder; pass the workspaceFolder option",
    },
    ...(options.userHome === undefined ? {} : { userHome: options.userHome }),
    input: (id) => inputValue(id, declared, given, answers),
    declared,
  };
}

/** `${workspaceFolder}` of a file in `folder` (an absolute path). */
function workspaceOf(folder: string): string {
  const separator = Math.max(folder.lastIndexOf("/"), folder.lastIndexOf("\\"));
  const name = folder.slice(separator + 1);
  return EDITOR_FOLDERS.has(name) && separator > 0
    ? folder.slice(0, separator)
    : folder;
}

/**
 * The inputs a file declares, by id. The schema has checked the list's
 * shape; a repeated id is a problem.
 *
 * @param raw The file's `inputs` value.
 * @param problems Receives the problems.
 * @returns The declared inputs, the first of each id.
 */
function declaredInputs(
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
async function askInputs(
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
function inputValue(
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
