/**
 * Reads the command line: the command, its operands, the options, and an
 * inline server after `--`. Unknown or malformed options get this
 * program's own message, with a did-you-mean. Internal.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { closest } from "../util/closest.ts";
import { UsageError } from "./_exit.ts";
import type { OptionKind, OptionSpec, OptionValue } from "./_spec.ts";
import { COMMANDS, GLOBAL_OPTIONS, type GlobalOptions } from "./_table.ts";

/** The options, as read: the global ones typed, a command's by name. */
export type Options = GlobalOptions & {
  readonly [name: string]: OptionValue | undefined;
};

/** A command line, read. */
export interface CommandLine {
  /** The command (`""` when none was given). */
  command: string;
  /** The operands after the command. */
  operands: string[];
  options: Options;
  /** The server command after `--`, if any: `["npx", "-y", "…"]`. */
  inline: string[];
}

/** The names of the options every command takes. */
export const GLOBAL_NAMES: ReadonlySet<string> = new Set(
  GLOBAL_OPTIONS.filter((option) => option.kind !== "rest").map((option) =>
    option.name
  ),
);

/** Every option of the table by name: the global ones, then the commands'. */
const OPTIONS = new Map<string, OptionSpec>();
for (
  const option of [
    ...GLOBAL_OPTIONS,
    ...COMMANDS.flatMap((command) => command.options),
  ]
) {
  if (option.kind === "rest") continue;
  const known = OPTIONS.get(option.name);
  if (known !== undefined && known.kind !== option.kind) {
    // Commands share one parser: an option is read the same for all.
    throw new Error(
      `the command table reads --${option.name} as ${known.kind} and as ${option.kind}`,
    );
  }
  OPTIONS.set(option.name, option);
}

/** The options as `node:util`'s `parseArgs` takes them. */
const PARSE_OPTIONS = Object.fromEntries(
  [...OPTIONS.values()].map((option) => [
    option.name,
    {
      type: option.kind === "flag" ? "boolean" : "string",
      ...(option.short ? { short: option.short } : {}),
      ...(option.kind === "values" ? { multiple: true } : {}),
    } as const,
  ]),
);

/**
 * Reads `args`.
 *
 * @throws {UsageError} On an unknown option, a missing value, or a value
 * given to a flag.
 */
export function readCommandLine(args: readonly string[]): CommandLine {
  const separator = args.indexOf("--");
  const own = separator === -1 ? args : args.slice(0, separator);
  const inline = separator === -1 ? [] : args.slice(separator + 1);
  const { tokens } = parseArgs({
    args: [...own],
    options: PARSE_OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const options: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const kind: OptionKind | undefined = OPTIONS.get(token.name)?.kind;
    if (kind === undefined) {
      const near = closest(token.name, OPTIONS.keys());
      throw new UsageError(
        `unknown option ${JSON.stringify(token.rawName)}${
          near === undefined ? "" : ` (did you mean "--${near}"?)`
        }`,
      );
    }
    if (kind === "flag") {
      if (token.value !== undefined) {
        throw new UsageError(`${token.rawName} takes no value`);
      }
      options[token.name] = true;
    } else {
      if (token.value === undefined) {
        throw new UsageError(`${token.rawName} needs a value`);
      }
      if (kind === "values") {
        ((options[token.name] ??= []) as string[]).push(token.value);
      } else options[token.name] = token.value;
    }
  }
  const [command = "", ...operands] = positionals;
  return { command, operands, options: options as Options, inline };
}
