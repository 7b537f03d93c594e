/**
 * What an entry of the command table (`_table.ts`) is: a command's name,
 * summary, help, options and handler, and an option's name, kind and help.
 * The parser (`_args.ts`), the help (`_help.ts`) and the dispatch
 * (`main.ts`) are derived from these. Internal.
 *
 * @module
 */

import type { Command } from "./_context.ts";

/**
 * What an option is: `flag` takes no value, `value` one, `values` one per
 * use (repeatable); `rest` is the `--` that ends the options (the inline
 * server's command follows it).
 */
export type OptionKind = "flag" | "value" | "values" | "rest";

/** One option of the command line. */
export interface OptionSpec {
  /** The long name, without `--` (`""` for `--` itself). */
  readonly name: string;
  readonly kind: OptionKind;
  /** The one-letter alias, without `-`. */
  readonly short?: string;
  /** What help calls the value: `FILE`, `MS`. */
  readonly value?: string;
  /**
   * The help text; a `\n` starts a continuation line. Without it the option
   * is accepted but not listed.
   */
  readonly help?: string;
}

/** An option every command takes, and where the program's help lists it. */
export interface GlobalOptionSpec extends OptionSpec {
  /** The heading of the program's help it is listed under. */
  readonly section: "Servers" | "Options";
  /** Listed indented, under the option before it. */
  readonly nested?: boolean;
}

/** The value an option of `kind` is read as. */
export type ValueOf<K extends OptionKind> = K extends "flag" ? boolean
  : K extends "values" ? string[]
  : string;

/** The options of `O`, as read: each one absent, or its value. */
export type OptionValues<O extends readonly OptionSpec[]> = {
  readonly [S in O[number] as S["kind"] extends "rest" ? never : S["name"]]?:
    ValueOf<S["kind"]>;
};

/** Any option's value, as read. */
export type OptionValue = ValueOf<OptionKind>;

/** One command of the command line. */
export interface CommandSpec<
  O extends readonly OptionSpec[] = readonly OptionSpec[],
> {
  readonly name: string;
  /** Its lines in the program's help: synopsis, then what it does. */
  readonly summary: readonly (readonly [synopsis: string, text: string])[];
  /** Its usage, after `Usage: mcp-adapter `. */
  readonly usage: string;
  /** What it does: the help's paragraphs before its options. */
  readonly about: string;
  /** The options it takes besides the global ones. */
  readonly options: O;
  /** Where its options' help starts; default 3 columns after the longest. */
  readonly helpColumn?: number;
  /** The help's last paragraph (its exit codes). */
  readonly footer?: string;
  /**
   * Checks the operands and options, and returns what runs the command.
   *
   * @throws {UsageError} When they do not fit.
   */
  prepare(operands: readonly string[], options: OptionValues<O>): Command;
}

/**
 * A table entry, its handler's options typed by the options it declares.
 *
 * @param spec The command.
 * @returns The same command, as the table holds it.
 */
export function defineCommand<const O extends readonly OptionSpec[]>(
  spec: CommandSpec<O>,
): CommandSpec {
  return spec;
}

/** How help shows an option: `-c, --config FILE`. */
export function optionLabel(option: OptionSpec): string {
  return `${option.short ? `-${option.short}, ` : ""}--${option.name}${
    option.value ? ` ${option.value}` : ""
  }`;
}
