#!/usr/bin/env node
/**
 * The `mcp-adapter` command line: list, call and check the tools of the MCP
 * servers in a config file.
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
import process from "node:process";
import { realpathSync } from "node:fs";
import { setTimeout as startTimer } from "node:timers";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  callCommand,
  checkCommand,
  type Command,
  schemaCommand,
  toolsCommand,
} from "./src/cli/_commands.ts";
import { readConfig } from "./src/cli/_config.ts";
import { errorMessage } from "./src/_util/errors.ts";
import {
  CliError,
  INTERRUPTED,
  OK,
  USAGE,
  UsageError,
} from "./src/cli/_errors.ts";
import { COMMAND_OPTIONS, HELP } from "./src/cli/_help.ts";

/** Options of {@linkcode main}: the process's environment, for tests and embedding. */
export interface CliOptions {
  /** Standard output. Default: `process.stdout`. */
  stdout?: CliOutput;
  /** Standard error; errors and the progress bar go here. Default: `process.stderr`. */
  stderr?: CliOutput;
  /** Where `mcp.yaml` & co. are looked for. Default: `process.cwd()`. */
  cwd?: string;
  /** Variables for `${VAR}` in the config. Default: the process environment. */
  env?: Record<string, string | undefined>;
  /** Cancels what is running (a tool call is sent `notifications/cancelled`). */
  signal?: AbortSignal;
}

const PARSE_OPTIONS = {
  config: { type: "string", short: "c" },
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  args: { type: "string" },
  timeout: { type: "string" },
  verbose: { type: "boolean", short: "v" },
} as const;

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: PARSE_OPTIONS,
  });
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
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return usageError(stderr, errorMessage(error));
  }
  const { values, positionals } = parsed;
  let [command = "", ...rest] = positionals;
  let wantsHelp = values.help ?? false;
  if (command === "help") {
    command = rest[0] ?? "";
    wantsHelp = true;
    rest = [];
  }
  const help = HELP[command];
  if (help === undefined) {
    return usageError(stderr, `unknown command ${JSON.stringify(command)}`);
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
  for (const option of ["json", "args", "timeout"] as const) {
    if (values[option] !== undefined && !allowed.includes(option)) {
      return usageError(
        stderr,
        `--${option} is not an option of "${command}"`,
        command,
      );
    }
  }
  try {
    // The command line is checked before the config is read.
    const run = prepare(command, rest, values);
    const servers = await readConfig(values.config, {
      cwd: options.cwd ?? process.cwd(),
      env: options.env,
      stderr,
    });
    return await run({
      stdout,
      stderr,
      signal: options.signal,
      json: values.json ?? false,
      verbose: values.verbose ?? false,
      servers,
    });
  } catch (error) {
    if (options.signal?.aborted) {
      stderr.write("mcp-adapter: interrupted\n");
      return INTERRUPTED;
    }
    if (error instanceof CliError) {
      stderr.write(`mcp-adapter: ${error.message}\n`);
      if (error instanceof UsageError) {
        stderr.write(`Run "mcp-adapter ${command} --help" for usage.\n`);
      }
      return error.exitCode;
    }
    stderr.write(`mcp-adapter: ${errorMessage(error)}\n`);
    return USAGE;
  }
}

function usageError(stderr: CliOutput, message: string, command = ""): number {
  stderr.write(
    `mcp-adapter: ${message}\nRun "mcp-adapter ${
      command ? `${command} ` : ""
    }--help" for usage.\n`,
  );
  return USAGE;
}

/** Checks a command's operands and options; returns what runs it. */
function prepare(
  command: string,
  operands: readonly string[],
  values: { args?: string; timeout?: string },
): Command {
  switch (command) {
    case "tools":
      expectOperands(command, operands, 0);
      return toolsCommand;
    case "check":
      expectOperands(command, operands, 0);
      return checkCommand;
    case "schema":
      expectOperands(command, operands, 1);
      return schemaCommand(operands[0]!);
    default: {
      const [name, ...pairs] = operands;
      if (name === undefined) {
        throw new UsageError(`"call" needs a tool name (ns/tool)`);
      }
      return callCommand({
        name,
        args: buildArguments(values.args, pairs),
        timeoutMs: parseTimeout(values.timeout),
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

/** `--args JSON` overlaid with `key=value` pairs. */
function buildArguments(
  json: string | undefined,
  pairs: readonly string[],
): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      throw new UsageError(
        `--args is not valid JSON (${
          errorMessage(error)
        }); write an object, e.g. --args '{"query":"milk"}'`,
      );
    }
    if (
      typeof parsed !== "object" || parsed === null || Array.isArray(parsed)
    ) {
      throw new UsageError(
        `--args must be a JSON object of named arguments, e.g. '{"query":"milk"}'`,
      );
    }
    args = parsed as Record<string, unknown>;
  }
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) {
      throw new UsageError(
        `expected key=value, got ${JSON.stringify(pair)}`,
      );
    }
    const value = pair.slice(equals + 1);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = value;
    }
    args[pair.slice(0, equals)] = parsed;
  }
  return args;
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new UsageError(
      `--timeout must be a positive number of milliseconds, e.g. --timeout 30000; got ${
        JSON.stringify(value)
      }`,
    );
  }
  return ms;
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

if (isMain()) {
  const abort = new AbortController();
  const onInterrupt = () => abort.abort(new Error("interrupted (Ctrl-C)"));
  process.once("SIGINT", onInterrupt);
  const code = await main(process.argv.slice(2), { signal: abort.signal });
  process.off("SIGINT", onInterrupt);
  process.exitCode = code;
  // Exit even if something still holds the event loop; output is flushed by now.
  startTimer(() => process.exit(code), 1000).unref();
}
