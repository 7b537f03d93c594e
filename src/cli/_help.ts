/**
 * The command line's help texts, rendered from the command table
 * (`_table.ts`). Internal.
 *
 * @module
 */

import { COMMANDS, GLOBAL_OPTIONS, PROGRAM } from "./_table.ts";
import { type CommandSpec, optionLabel, type OptionSpec } from "./_spec.ts";

/** Where the program's help starts the text of each command and option. */
const PROGRAM_COLUMN = 29;

/** The program's own help (`mcp-adapter --help`). */
export function programHelp(): string {
  const commands = COMMANDS.flatMap((command) =>
    command.summary.map(([synopsis, text]) =>
      row("  ", synopsis, text, PROGRAM_COLUMN)
    )
  );
  const sections = (["Servers", "Options"] as const).map((section) =>
    `${section}:\n${
      GLOBAL_OPTIONS.filter((option) => option.section === section).map(
        (option) =>
          row(
            "nested" in option && option.nested ? "      " : "  ",
            option.kind === "rest" ? `-- ${option.value}` : optionLabel(option),
            optionHelp(option),
            PROGRAM_COLUMN,
          ),
      ).join("\n")
    }`
  );
  return paragraphs([
    `Usage: mcp-adapter ${PROGRAM.usage}`,
    PROGRAM.about,
    `Commands:\n${commands.join("\n")}`,
    ...sections,
    PROGRAM.footer,
  ]);
}

/** A command's help (`mcp-adapter <command> --help`). */
export function commandHelp(command: CommandSpec): string {
  const listed = command.options.filter((option) => option.help !== undefined);
  const width = command.helpColumn ??
    Math.max(...listed.map((option) => optionLabel(option).length)) + 3;
  return paragraphs([
    `Usage: mcp-adapter ${command.usage}`,
    command.about,
    listed.length === 0
      ? undefined
      : `Options:\n${
        listed.map((option) =>
          row("  ", optionLabel(option), optionHelp(option), 2 + width)
        ).join("\n")
      }`,
    command.footer,
  ]);
}

/** An option's help; a repeatable one says so. */
function optionHelp(option: OptionSpec): string {
  return `${option.kind === "values" ? "(repeatable) " : ""}${
    option.help ?? ""
  }`;
}

/** `label` then `text` from `column` on; `text`'s further lines indented to it. */
function row(
  indent: string,
  label: string,
  text: string,
  column: number,
): string {
  const start = `${indent}${label}`.padEnd(column);
  return start + text.split("\n").join(`\n${" ".repeat(column)}`);
}

function paragraphs(blocks: readonly (string | undefined)[]): string {
  return `${blocks.filter((block) => block !== undefined).join("\n\n")}\n`;
}
