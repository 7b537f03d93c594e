/**
 * The command line: reads it, answers help and usage errors from the
 * command table (`_table.ts`), loads the config (or the inline server), and
 * runs the command with the context it needs. `cli.ts` exports it.
 * Internal.
 *
 * @module
 */

export type { CliOutput } from "./_output.ts";
import process from "node:process";
import type { CliOutput } from "./_output.ts";
import { readConfig } from "./_config.ts";
import {
  type CommandLine,
  GLOBAL_NAMES,
  readCommandLine,
} from "./_command_line.ts";
import { type Ask, cliHandlers } from "./_handlers.ts";
import { inlineServer } from "./_inline.ts";
import { errorMessage } from "../util/caught.ts";
import { didYouMean } from "../util/closest.ts";
import { VERSION } from "../version.ts";
import { CliError, INTERRUPTED, OK, USAGE, UsageError } from "./_exit.ts";
import { commandHelp, programHelp } from "./_help.ts";
import { parseMs } from "./_usage.ts";
import { COMMANDS } from "./_table.ts";
import { tokenStorePath } from "../auth/file_store.ts";
import { cliTaskStore } from "./_tasks.ts";
import { printable, printableText } from "../util/terminal.ts";
import { guardedOutput } from "./_stdio.ts";
import { SpanRecorder } from "./_trace.ts";

/** The commands by name. */
const BY_NAME = new Map(COMMANDS.map((command) => [command.name, command]));

/** Options of {@linkcode main}: the process's environment, for tests and embedding. */
export interface CliOptions {
  /**
   * Standard output. Default: `process.stdout`, whose reader going away
   * (`| head`) ends the output quietly.
   */
  stdout?: CliOutput;
  /** Standard error; errors and the progress bar go here. Default: `process.stderr`. */
  stderr?: CliOutput;
  /** Where `mcp.yaml` & co. are looked for. Default: `process.cwd()`. */
  cwd?: string;
  /** Variables for `${VAR}` in the config. Default: the process environment. */
  env?: Record<string, string | undefined>;
  /** Cancels what is running (a tool call is sent `notifications/cancelled`). */
  signal?: AbortSignal;
  /**
   * Asks the user one question (a server's elicitation) and resolves with
   * the answer, `undefined` at end of input. Default: the terminal, when
   * stdin and stderr are one; without it elicitations are declined.
   */
  ask?: (
    question: string,
    options?: { hidden?: boolean },
  ) => Promise<string | undefined>;
}

/**
 * Runs the command line with the given arguments and returns its exit code:
 * 0 ok, 1 the tool reported an error, 2 usage or config error, 3 connection
 * failure (130 when cancelled through `options.signal`). Every server it
 * started is stopped before it returns. It never prints env or header values.
 *
 * @param args The arguments after the program name, e.g. `["call", "notes/get_note", "id=1"]`.
 * @param options Output streams, working directory, environment, cancellation.
 * @returns The exit code.
 *
 * @example List the tools of the servers in ./mcp.yaml
 * ```ts ignore
 * import { main } from "@cleveragents/mcp-adapter/cli";
 *
 * const code = await main(["tools", "--json"]);
 * ```
 */
export async function main(
  args: readonly string[],
  options: CliOptions = {},
): Promise<number> {
  const stdout = options.stdout ?? guardedOutput(process.stdout);
  const stderr = options.stderr ?? guardedOutput(process.stderr);
  let line: CommandLine;
  try {
    line = readCommandLine(args);
  } catch (error) {
    return usageError(stderr, errorMessage(error));
  }
  const { options: values } = line;
  let { command, operands } = line;
  if (values.version) {
    stdout.write(`mcp-adapter ${VERSION}\n`);
    return OK;
  }
  let wantsHelp = values.help ?? false;
  if (command === "help") {
    command = operands[0] ?? "";
    wantsHelp = true;
    operands = [];
  }
  if (command === "") {
    if (wantsHelp) {
      stdout.write(programHelp());
      return OK;
    }
    stderr.write(programHelp());
    return USAGE;
  }
  const spec = BY_NAME.get(command);
  if (spec === undefined) {
    return usageError(
      stderr,
      `unknown command ${JSON.stringify(command)}${
        didYouMean(command, BY_NAME.keys())
      }`,
    );
  }
  if (wantsHelp) {
    stdout.write(commandHelp(spec));
    return OK;
  }
  for (const [option, value] of Object.entries(values)) {
    if (
      value !== undefined && !GLOBAL_NAMES.has(option) &&
      !spec.options.some((own) => own.name === option)
    ) {
      return usageError(
        stderr,
        `--${option} is not an option of "${command}"`,
        command,
      );
    }
  }
  try {
    // The command line is checked before any server is read or started.
    const run = spec.prepare(operands, values);
    const connectTimeoutMs = parseMs(
      "--connect-timeout",
      values["connect-timeout"],
    );
    const cwd = options.cwd ?? process.cwd();
    const inline = inlineServer(values, line.inline, { cwd });
    const ask = options.ask ?? terminalAsk(stderr);
    const servers = inline !== undefined ? [inline] : await readConfig(
      values.config,
      { cwd, env: options.env, ask },
    );
    // `--trace`: the telemetry hooks record into a tiny in-memory tracer.
    const recorder = values.trace ? new SpanRecorder() : undefined;
    const tokens = tokenStorePath(options.env ?? process.env);
    const running = run({
      stdout,
      stderr,
      signal: options.signal,
      json: values.json === true,
      verbose: values.verbose ?? false,
      servers: connectTimeoutMs === undefined
        ? servers
        : servers.map((entry) => ({ ...entry, connectTimeoutMs })),
      adapterOptions: {
        handlers: cliHandlers(ask, stderr),
        ...(values.verbose
          ? {
            onStderr: (line: string) =>
              stderr.write(`[server] ${printable(line)}\n`),
          }
          : {}),
        ...(recorder ? { telemetry: { tracerProvider: recorder } } : {}),
        // A task outlives a run cut off from its server: `tasks` finds it.
        taskStore: cliTaskStore(tokens),
      },
      tokens,
      cwd,
    });
    try {
      return await running;
    } finally {
      recorder?.print(stderr);
    }
  } catch (error) {
    if (options.signal?.aborted) {
      stderr.write("mcp-adapter: interrupted\n");
      return INTERRUPTED;
    }
    // Messages may quote what a server sent: tool names, errors.
    if (error instanceof CliError) {
      stderr.write(`mcp-adapter: ${printableText(error.message)}\n`);
      if (error instanceof UsageError) {
        stderr.write(`Run "mcp-adapter ${command} --help" for usage.\n`);
      }
      return error.exitCode;
    }
    stderr.write(`mcp-adapter: ${printableText(errorMessage(error))}\n`);
    return USAGE;
  }
}

function usageError(stderr: CliOutput, message: string, command = ""): number {
  stderr.write(
    `mcp-adapter: ${printableText(message)}\nRun "mcp-adapter ${
      command ? `${command} ` : ""
    }--help" for usage.\n`,
  );
  return USAGE;
}

/**
 * Questions on the terminal, when stdin and stderr are one; `undefined`
 * otherwise (a pipe, CI), so that elicitations are declined.
 */
function terminalAsk(stderr: CliOutput): Ask | undefined {
  if (!process.stdin.isTTY || !stderr.isTTY) return undefined;
  return async (text, options) => {
    // Questions quote the config's input descriptions and the server's
    // elicitation fields.
    const question = printable(text);
    const { createInterface } = await import("node:readline/promises");
    const readline = createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: true,
    });
    if (options?.hidden) {
      // Echo the question, not what is typed (a password input).
      const internal = readline as unknown as {
        _writeToOutput?: (text: string) => void;
      };
      internal._writeToOutput = (text: string) => {
        if (text.startsWith(question) || text === "\r\n" || text === "\n") {
          stderr.write(text);
        }
      };
    }
    try {
      return await readline.question(question);
    } catch {
      return undefined;
    } finally {
      readline.close();
      if (options?.hidden) stderr.write("\n");
    }
  };
}
