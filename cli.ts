#!/usr/bin/env node
/**
 * The `mcp-adapter` command line: list, call and check the tools of the MCP
 * servers in a config file, and log in to the ones that use OAuth.
 *
 * ```sh
 * deno run -A jsr:@cleveragents/mcp-adapter/cli tools
 * npx @cleveragents/mcp-adapter call notes/search_notes query=milk
 * ```
 *
 * Runs the same on Deno and Node: besides this package it uses only `node:`
 * built-ins that both provide. The `#!` line is for the npm package's `bin`
 * (`deno pack` keeps it); Deno ignores it.
 *
 * @module
 */

import type { CliOutput } from "./src/cli/_output.ts";
export type { CliOutput };
export {
  FileTokenStore,
  type FileTokenStoreOptions,
  tokenStoreAuth,
  tokenStorePath,
} from "./src/auth/token_store.ts";
export {
  type RedisClientLike,
  RedisTokenStore,
  type RedisTokenStoreOptions,
} from "./src/auth/redis_store.ts";
export type {
  LockTiming,
  OAuthTokenStore,
  StoredLogin,
  StoredTokens,
} from "./src/auth/store.ts";
// Types the API above refers to, listed so this entry documents on its own.
export type {
  EnterpriseManagedAuth,
  OAuthLoginAuth,
  ServerAuth,
  ServerEntry,
  WorkloadIdentityAuth,
} from "./src/config/load.ts";
export type { OAuthClientProviderLike } from "./src/transports/oauth.ts";
export type {
  DPoPProofRequest,
  DPoPSessionLike,
} from "./src/transports/_oauth/state.ts";
export type { MCPServerConfig, MCPTransportKind } from "./src/config/server.ts";
export type { CapabilityOverrides } from "./src/tools/capabilities.ts";
export type { JsonSchema, MCPToolFilter, ToolCapability } from "./src/types.ts";
import process from "node:process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  callCommand,
  checkCommand,
  schemaCommand,
  toolsCommand,
} from "./src/cli/_commands.ts";
import type { Command } from "./src/cli/_context.ts";
import { readConfig } from "./src/cli/_config.ts";
import {
  type CommandLine,
  GLOBAL_OPTIONS,
  type Options,
  readCommandLine,
} from "./src/cli/_args.ts";
import { type Ask, cliHandlers } from "./src/cli/_handlers.ts";
import { inlineServer } from "./src/cli/_inline.ts";
import { errorMessage } from "./src/_util/errors.ts";
import { didYouMean } from "./src/_util/closest.ts";
import { VERSION } from "./src/version.ts";
import {
  CliError,
  INTERRUPTED,
  OK,
  USAGE,
  UsageError,
} from "./src/cli/_errors.ts";
import { COMMAND_OPTIONS, HELP } from "./src/cli/_help.ts";
import { loginCommand, logoutCommand } from "./src/cli/_login.ts";
import { pinCheckCommand } from "./src/cli/_pins.ts";
import { tokenStorePath } from "./src/auth/token_store.ts";
import { printable, printableText } from "./src/_util/terminal.ts";
import { guardedOutput } from "./src/cli/_stdio.ts";
import { runAsProgram } from "./src/cli/_program.ts";
import { SpanRecorder } from "./src/cli/_trace.ts";

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
  const help = HELP[command];
  if (help === undefined) {
    return usageError(
      stderr,
      `unknown command ${JSON.stringify(command)}${
        didYouMean(command, Object.keys(HELP).filter(Boolean))
      }`,
    );
  }
  if (wantsHelp) {
    stdout.write(help);
    return OK;
  }
  if (command === "") {
    stderr.write(HELP[""]!);
    return USAGE;
  }
  const allowed = COMMAND_OPTIONS[command] ?? [];
  for (const [option, value] of Object.entries(values)) {
    if (
      value !== undefined && !GLOBAL_OPTIONS.includes(option) &&
      !allowed.includes(option)
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
    const run = prepare(command, operands, values);
    const connectTimeoutMs = parseMs(
      "--connect-timeout",
      values["connect-timeout"],
    );
    const cwd = options.cwd ?? process.cwd();
    const inline = inlineServer(values, line.inline, { cwd });
    const ask = options.ask ?? terminalAsk(stderr);
    const servers = inline !== undefined ? [inline] : await readConfig(
      values.config,
      { cwd, env: options.env, stderr, ask },
    );
    // `--trace`: the telemetry hooks record into a tiny in-memory tracer.
    const recorder = values.trace ? new SpanRecorder() : undefined;
    const running = run({
      stdout,
      stderr,
      signal: options.signal,
      json: values.json ?? false,
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
      },
      tokens: tokenStorePath(options.env ?? process.env),
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

/** Checks a command's operands and options; returns what runs it. */
function prepare(
  command: string,
  operands: readonly string[],
  values: Options,
): Command {
  switch (command) {
    case "tools":
      expectOperands(command, operands, 0);
      return toolsCommand;
    case "check":
      expectOperands(command, operands, 0);
      if (values.pin !== undefined) {
        return pinCheckCommand(values.pin, values.update === true);
      }
      if (values.update) throw new UsageError("--update needs --pin FILE");
      return checkCommand;
    case "schema":
      expectOperands(command, operands, 1);
      return schemaCommand(operands[0]!);
    case "login":
    case "logout": {
      if (operands.length !== 1) {
        throw new UsageError(`"${command}" takes one server name`);
      }
      return command === "login"
        ? loginCommand(operands[0]!, parseMs("--timeout", values.timeout))
        : logoutCommand(operands[0]!);
    }
    default: {
      const [name, ...pairs] = operands;
      if (name === undefined) {
        throw new UsageError(`"call" needs a tool name (ns/tool)`);
      }
      if (values.raw && values.json) {
        throw new UsageError(`--raw and --json exclude each other`);
      }
      return callCommand({
        name,
        json: values.args,
        pairs,
        timeoutMs: parseMs("--timeout", values.timeout),
        raw: values.raw ?? false,
        outputDir: values.output,
      });
    }
  }
}

function expectOperands(
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

function parseMs(
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

/** Whether this file is the program (`deno run cli.ts`, `node cli.js`, an npm bin link). */
function isMain(): boolean {
  const flag = (import.meta as { main?: boolean }).main;
  if (typeof flag === "boolean") return flag;
  const script = process.argv[1];
  if (script === undefined || !import.meta.url.startsWith("file:")) {
    return false;
  }
  try {
    return realpathSync(script) ===
      realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

// `deno run -A cli.ts` (and `jsr:…/cli`) still runs it; the npm bin is bin.ts.
if (isMain()) void runAsProgram(main, import.meta.url);
