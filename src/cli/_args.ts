/**
 * Reads the command line: the command, its operands, the options, and an
 * inline server after `--`. Unknown or malformed options get this
 * program's own message, with a did-you-mean. Internal.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { closest } from "../_util/closest.ts";
import { UsageError } from "./_errors.ts";

/** What each option is: a flag, a value, or a value that may repeat. */
const OPTIONS = {
  config: { type: "string", short: "c" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  json: { type: "boolean" },
  raw: { type: "boolean" },
  trace: { type: "boolean" },
  output: { type: "string" },
  args: { type: "string" },
  timeout: { type: "string" },
  "connect-timeout": { type: "string" },
  url: { type: "string" },
  header: { type: "string", multiple: true },
  transport: { type: "string" },
  env: { type: "string", multiple: true },
  cwd: { type: "string" },
  name: { type: "string" },
  pin: { type: "string" },
  update: { type: "boolean" },
} as const;

/** The options, as read. */
export interface Options {
  config?: string;
  help?: boolean;
  version?: boolean;
  verbose?: boolean;
  json?: boolean;
  raw?: boolean;
  trace?: boolean;
  output?: string;
  args?: string;
  timeout?: string;
  "connect-timeout"?: string;
  url?: string;
  header?: string[];
  transport?: string;
  env?: string[];
  cwd?: string;
  name?: string;
  pin?: string;
  update?: boolean;
}

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

/** Options every command takes; the rest belong to some commands only. */
export const GLOBAL_OPTIONS: readonly string[] = [
  "config",
  "help",
  "version",
  "verbose",
  "connect-timeout",
  "url",
  "header",
  "transport",
  "env",
  "cwd",
  "name",
];

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
    options: OPTIONS,
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
    const spec =
      (OPTIONS as Record<string, { type: string; multiple?: boolean }>)[
        token.name
      ];
    if (spec === undefined) {
      const near = closest(token.name, Object.keys(OPTIONS));
      throw new UsageError(
        `unknown option ${JSON.stringify(token.rawName)}${
          near === undefined ? "" : ` (did you mean "--${near}"?)`
        }`,
      );
    }
    if (spec.type === "boolean") {
      if (token.value !== undefined) {
        throw new UsageError(`${token.rawName} takes no value`);
      }
      options[token.name] = true;
    } else {
      if (token.value === undefined) {
        throw new UsageError(`${token.rawName} needs a value`);
      }
      if (spec.multiple) {
        ((options[token.name] ??= []) as string[]).push(token.value);
      } else options[token.name] = token.value;
    }
  }
  const [command = "", ...operands] = positionals;
  return { command, operands, options: options as Options, inline };
}
