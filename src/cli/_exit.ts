/**
 * The command line's exit codes and the errors that carry one: how a
 * command ends. Internal.
 *
 * @module
 */

/** Success. */
export const OK = 0;
/** The tool reported an error (validation, its own error, timeout). */
export const TOOL_ERROR = 1;
/** A malformed command line, or a missing or bad config file. */
export const USAGE = 2;
/** A server could not be reached. */
export const CONNECTION = 3;
/** `check --pin`: the servers' tools differ from their pins. */
export const DRIFT = 4;
/** Cancelled through the caller's signal (Ctrl-C). */
export const INTERRUPTED = 130;

/** Reported to the user with an exit code; the message is shown as is. */
export class CliError extends Error {
  constructor(readonly exitCode: number, message: string) {
    super(message);
    this.name = "CliError";
  }
}

/** Arguments that do not fit the tool's schema, caught before the call: exit 1, like a validation failure. */
export class ArgumentError extends CliError {
  constructor(message: string) {
    super(TOOL_ERROR, message);
    this.name = "ArgumentError";
  }
}

/** A malformed command line: exit 2, with a pointer to the command's help. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(USAGE, message);
    this.name = "UsageError";
  }
}
