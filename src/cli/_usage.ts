/**
 * Usage checks of what the command line read (`_command_line.ts`): a
 * command's operands and the millisecond values of its options, each a
 * `UsageError` worded for the user. Internal.
 *
 * @module
 */

import { UsageError } from "./_exit.ts";

/**
 * Checks that `command` got `count` operands (0 or 1 tool name).
 *
 * @throws {UsageError} When it got another number.
 */
export function expectOperands(
  command: string,
  operands: readonly string[],
  count: number,
): void {
  if (operands.length === count) return;
  throw new UsageError(
    count === 0
      ? `"${command}" takes no arguments, got ${JSON.stringify(operands[0])}`
      : operands.length === 0
      ? `"${command}" needs a tool name (ns/tool)`
      : `"${command}" takes one tool name, got ${operands.length} arguments`,
  );
}

/**
 * The milliseconds `option` was given, if it was.
 *
 * @throws {UsageError} When `value` is not a positive whole number.
 */
export function parseMs(
  option: string,
  value: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new UsageError(
      `${option} must be a positive number of milliseconds, e.g. ${option} 30000; got ${
        JSON.stringify(value)
      }`,
    );
  }
  return ms;
}
