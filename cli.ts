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

import process from "node:process";
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as startTimer } from "node:timers";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type HubServerStatus,
  type MCPProgress,
  MCPToolHub,
  type MCPToolResult,
  type RegisteredTool,
} from "./mod.ts";
import { loadConfig, type ServerEntry } from "./config.ts";

/** Where the command line writes: `process.stdout` / `process.stderr` or a test double. */
export interface CliOutput {
  /** Writes text as is (no newline added). */
  write(text: string): unknown;
  /** Whether this is a terminal; the progress bar is drawn only on one. */
  isTTY?: boolean;
  /** The terminal's width in columns, when known. */
  columns?: number;
}

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

const OK = 0;
const TOOL_ERROR = 1;
const USAGE = 2;
const CONNECTION = 3;
const INTERRUPTED = 130;

const CONFIG_FILES = ["mcp.yaml", "mcp.json", ".mcp.json"];
const EXAMPLE_CONFIG = new URL("./examples/mcp.yaml", import.meta.url);
const BAR_WIDTH = 24;

const HELP: Record<string, string> = {
  "": `Usage: mcp-adapter [--config FILE] <command> [options]

List, call and check the tools of the MCP servers in a config file.

Commands:
  tools                      every tool of every server: name, server, access, description
  call <ns/tool> [args...]   validate and call a tool, print its result
  check                      connect to each server: protocol version, tool count, latency
  schema <ns/tool>           print a tool's input schema

Options:
  -c, --config FILE   config file; default ./mcp.yaml, ./mcp.json or ./.mcp.json
  -h, --help          help; also after a command ("mcp-adapter call --help")

Exit codes: 0 ok, 1 the tool reported an error, 2 usage or config error,
3 connection failure.
`,
  tools: `Usage: mcp-adapter tools [--json] [--config FILE]

Connects to every enabled server and lists its tools: name ({namespace}/{tool}),
server, access (read-only, writes or -) and description.

Options:
  --json   print a JSON array instead (name, alias, server, namespace,
           readOnly, writes, description, inputSchema)

Exits 3 when a server cannot be reached (the others are still listed).
`,
  call:
    `Usage: mcp-adapter call <ns/tool> [--args JSON | key=value ...] [--timeout MS] [--json]

Validates the arguments against the tool's input schema, calls the tool and
prints its text content, then its structured content as JSON. A progress bar
is shown on a terminal while the server reports progress.

Arguments:
  <ns/tool>      the tool, as "mcp-adapter tools" lists it (or its alias)
  key=value      one argument; the value is parsed as JSON when it parses
                 (n=3, tags='["a"]', flag=true), else taken as a string
                 (query=milk). Quote to force a string: id='"42"'

Options:
  --args JSON    all arguments as a JSON object; key=value pairs override
  --timeout MS   give up after MS milliseconds without an answer or progress
  --json         print the whole result envelope as JSON

Exits 1 when the call fails (validation, the tool's own error, timeout),
2 when the tool does not exist, 3 when its server cannot be reached.
`,
  check: `Usage: mcp-adapter check [--json] [--config FILE]

Connects to each enabled server and prints its protocol version, tool count
and connect latency (start + handshake).

Options:
  --json   print the statuses as a JSON array

Exits 3 when any server failed.
`,
  schema: `Usage: mcp-adapter schema <ns/tool> [--config FILE]

Prints the tool's input schema (JSON Schema).
`,
};

/** Options each command accepts, besides --config and --help. */
const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  tools: ["json"],
  call: ["args", "timeout", "json"],
  check: ["json"],
  schema: ["json"],
};

const PARSE_OPTIONS = {
  config: { type: "string", short: "c" },
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  args: { type: "string" },
  timeout: { type: "string" },
} as const;

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: PARSE_OPTIONS,
  });
}

/** Reported to the user with an exit code; the message is shown as is. */
class CliError extends Error {
  constructor(readonly exitCode: number, message: string) {
    super(message);
    this.name = "CliError";
  }
}

/** A malformed command line: exit 2, with a pointer to the command's help. */
class UsageError extends CliError {
  constructor(message: string) {
    super(USAGE, message);
    this.name = "UsageError";
  }
}

type Command = (ctx: Context, servers: ServerEntry[]) => Promise<number>;

interface Context {
  stdout: CliOutput;
  stderr: CliOutput;
  signal: AbortSignal | undefined;
  json: boolean;
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
  const ctx: Context = {
    stdout,
    stderr,
    signal: options.signal,
    json: values.json ?? false,
  };
  try {
    // The command line is checked before the config is read.
    const run = prepare(command, rest, values);
    const servers = await readConfig(
      values.config,
      options.cwd ?? process.cwd(),
      options.env,
      stderr,
    );
    return await run(ctx, servers);
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
    case "schema": {
      expectOperands(command, operands, 1);
      const name = operands[0]!;
      return (ctx, servers) => schemaCommand(ctx, servers, name);
    }
    default: {
      const [name, ...pairs] = operands;
      if (name === undefined) {
        throw new UsageError(`"call" needs a tool name (ns/tool)`);
      }
      const args = buildArguments(values.args, pairs);
      const timeoutMs = parseTimeout(values.timeout);
      return (ctx, servers) => callCommand(ctx, servers, name, args, timeoutMs);
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

/** Finds and loads the config: --config, else ./mcp.yaml & co., else the repo's example (Deno only). */
async function readConfig(
  explicit: string | undefined,
  cwd: string,
  env: Record<string, string | undefined> | undefined,
  stderr: CliOutput,
): Promise<ServerEntry[]> {
  let path: string;
  let example = false;
  if (explicit !== undefined) {
    path = resolve(cwd, explicit);
    if (!existsSync(path)) {
      throw new CliError(USAGE, `config file ${path} does not exist`);
    }
  } else {
    const found = CONFIG_FILES.map((name) => resolve(cwd, name)).find((file) =>
      existsSync(file)
    );
    if (found !== undefined) {
      path = found;
    } else if (
      "Deno" in globalThis && EXAMPLE_CONFIG.protocol === "file:" &&
      existsSync(EXAMPLE_CONFIG)
    ) {
      path = fileURLToPath(EXAMPLE_CONFIG);
      example = true;
      stderr.write(
        `mcp-adapter: no ${
          CONFIG_FILES.join(", ")
        } here; using the example config ${path}\n`,
      );
    } else {
      throw new CliError(
        USAGE,
        `no config file found: looked for ${
          CONFIG_FILES.map((name) => resolve(cwd, name)).join(", ")
        }; write one (see the README) or pass --config FILE`,
      );
    }
  }
  let servers: ServerEntry[];
  try {
    servers = (await loadConfig(path, env ? { env } : {})).servers;
  } catch (error) {
    throw new CliError(USAGE, errorMessage(error));
  }
  if (servers.length === 0) {
    throw new CliError(USAGE, `${path} configures no servers`);
  }
  return example ? servers.map(runnableExample) : servers;
}

/**
 * The example config starts `deno` in the repository: use this Deno (it may
 * not be on PATH) and the repository as working directory, wherever we run.
 */
function runnableExample(entry: ServerEntry): ServerEntry {
  const config = { ...entry.config };
  if (config.command === "deno") config.command = process.execPath;
  config.cwd ??= fileURLToPath(new URL(".", import.meta.url));
  return { ...entry, config };
}

async function withHub<T>(
  ctx: Context,
  servers: readonly ServerEntry[],
  run: (hub: MCPToolHub, statuses: HubServerStatus[]) => Promise<T>,
): Promise<T> {
  const hub = new MCPToolHub(servers);
  const onAbort = () => void hub.close();
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const statuses = await hub.start();
    if (ctx.signal?.aborted) throw new CliError(INTERRUPTED, "interrupted");
    return await run(hub, statuses);
  } finally {
    ctx.signal?.removeEventListener("abort", onAbort);
    await hub.close();
  }
}

function reportFailures(ctx: Context, statuses: HubServerStatus[]): boolean {
  const failed = statuses.filter((status) => status.state === "failed");
  for (const status of failed) {
    ctx.stderr.write(
      `mcp-adapter: server "${status.name}" failed: ${status.error}\n`,
    );
  }
  return failed.length > 0;
}

async function toolsCommand(
  ctx: Context,
  servers: ServerEntry[],
): Promise<number> {
  return await withHub(ctx, servers, (hub, statuses) => {
    const failed = reportFailures(ctx, statuses);
    const tools = hub.registry.list();
    if (ctx.json) {
      writeJson(
        ctx,
        tools.map((tool) => ({
          name: tool.name,
          alias: hub.registry.aliasOf(tool.name),
          server: tool.sourceMetadata.server,
          namespace: namespaceOf(tool.name),
          readOnly: tool.capability.readOnly,
          writes: tool.capability.writes,
          description: tool.description,
          inputSchema: tool.inputSchema,
        })),
      );
    } else if (tools.length === 0) {
      ctx.stdout.write("No tools.\n");
    } else {
      const rows = tools.map((tool) => [
        tool.name,
        tool.sourceMetadata.server,
        tool.capability.writes
          ? "writes"
          : tool.capability.readOnly
          ? "read-only"
          : "-",
        firstLine(tool.description),
      ]);
      writeTable(ctx.stdout, ["TOOL", "SERVER", "ACCESS", "DESCRIPTION"], rows);
    }
    return Promise.resolve(failed ? CONNECTION : OK);
  });
}

async function checkCommand(
  ctx: Context,
  servers: ServerEntry[],
): Promise<number> {
  return await withHub(ctx, servers, (_hub, statuses) => {
    if (ctx.json) {
      writeJson(ctx, statuses);
    } else {
      const rows = statuses.map((status) => [
        status.name,
        status.state === "connected" ? "ok" : status.state,
        status.state === "connected"
          ? `protocol ${status.protocolVersion}, ${status.toolCount} tool${
            status.toolCount === 1 ? "" : "s"
          }, connected in ${status.connectMs} ms`
          : status.error ?? "",
      ]);
      writeTable(ctx.stdout, ["SERVER", "STATE", "DETAILS"], rows);
    }
    const failed = statuses.some((status) => status.state === "failed");
    return Promise.resolve(failed ? CONNECTION : OK);
  });
}

async function schemaCommand(
  ctx: Context,
  servers: ServerEntry[],
  name: string,
): Promise<number> {
  return await withTool(ctx, servers, name, (tool) => {
    writeJson(ctx, tool.inputSchema);
    return Promise.resolve(OK);
  });
}

async function callCommand(
  ctx: Context,
  servers: ServerEntry[],
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number | undefined,
): Promise<number> {
  return await withTool(ctx, servers, name, async (tool, hub) => {
    const adapter = hub.adapter(tool.sourceMetadata.server)!;
    const bar = ctx.stderr.isTTY ? new ProgressBar(ctx.stderr) : undefined;
    let result: MCPToolResult;
    try {
      result = await adapter.invoke(toolPart(tool.name), args, {
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(bar ? { onProgress: (progress) => bar.draw(progress) } : {}),
      });
    } catch (error) {
      if (ctx.signal?.aborted) throw new CliError(INTERRUPTED, "interrupted");
      throw new CliError(CONNECTION, errorMessage(error));
    } finally {
      bar?.clear();
    }
    if (ctx.json) {
      writeJson(ctx, result);
    } else if (result.success) {
      writeResult(ctx.stdout, result.data);
    } else {
      ctx.stderr.write(
        `mcp-adapter: the call failed (${result.errorKind}): ${result.error}\n`,
      );
      if (result.errorKind === "validation") {
        ctx.stderr.write(
          `See the arguments it takes: mcp-adapter schema ${tool.name}\n`,
        );
      }
    }
    if (result.success) return OK;
    switch (result.errorKind) {
      case "not_found":
        return USAGE;
      case "connection":
        return CONNECTION;
      case "cancelled":
        return ctx.signal?.aborted ? INTERRUPTED : TOOL_ERROR;
      default:
        return TOOL_ERROR;
    }
  });
}

/**
 * Starts the server(s) a tool name needs and finds the tool. `ns/tool` starts
 * only the server of namespace `ns`; an alias starts them all.
 */
async function withTool(
  ctx: Context,
  servers: ServerEntry[],
  name: string,
  run: (tool: RegisteredTool, hub: MCPToolHub) => Promise<number>,
): Promise<number> {
  let needed = servers.filter((entry) => entry.enabled);
  if (name.includes("/")) {
    const namespace = namespaceOf(name);
    const entry = servers.find((server) => server.namespace === namespace);
    if (!entry) {
      throw new CliError(
        USAGE,
        `no server has the namespace ${
          JSON.stringify(namespace)
        }; namespaces: ${servers.map((server) => server.namespace).join(", ")}`,
      );
    }
    if (!entry.enabled) {
      throw new CliError(
        USAGE,
        `server "${entry.config.name}" (namespace ${
          JSON.stringify(namespace)
        }) is disabled in the config`,
      );
    }
    needed = [entry];
  }
  return await withHub(ctx, needed, async (hub, statuses) => {
    const tool = hub.registry.resolve(name);
    if (tool) return await run(tool, hub);
    const failed = statuses.filter((status) => status.state === "failed");
    if (failed.length > 0) {
      throw new CliError(
        CONNECTION,
        failed.map((status) =>
          `server "${status.name}" failed: ${status.error}`
        ).join("\n"),
      );
    }
    const known = (name.includes("/")
      ? hub.registry.listNamespace(namespaceOf(name))
      : hub.registry.list()).map((entry) =>
        entry.name
      );
    throw new CliError(
      USAGE,
      `no tool ${JSON.stringify(name)}; ${
        known.length === 0
          ? "the server exposes no tools"
          : `available: ${known.slice(0, 20).join(", ")}${
            known.length > 20 ? ", …" : ""
          }`
      } (see "mcp-adapter tools")`,
    );
  });
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

/** Text content as is, other content as a one-line summary, then structured content as JSON. */
function writeResult(out: CliOutput, data: Record<string, unknown>): void {
  const content = Array.isArray(data.content) ? data.content : [];
  for (const item of content as Record<string, unknown>[]) {
    if (item?.type === "text" && typeof item.text === "string") {
      out.write(item.text.endsWith("\n") ? item.text : `${item.text}\n`);
    } else if (item?.type === "image" || item?.type === "audio") {
      const size = typeof item.data === "string"
        ? ` ${Math.floor(item.data.length * 3 / 4)} bytes`
        : "";
      out.write(`[${item.type} ${item.mimeType ?? ""}${size}]\n`);
    } else if (item?.type === "resource_link") {
      out.write(`[resource link ${item.uri ?? ""}]\n`);
    } else if (item?.type === "resource") {
      const resource = item.resource as Record<string, unknown> | undefined;
      out.write(
        typeof resource?.text === "string"
          ? `${resource.text}\n`
          : `[resource ${resource?.uri ?? ""}]\n`,
      );
    } else {
      out.write(`${JSON.stringify(item)}\n`);
    }
  }
  if (data.structuredContent !== undefined) {
    out.write(`${JSON.stringify(data.structuredContent, null, 2)}\n`);
  }
}

function writeJson(ctx: Context, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Left-aligned columns; the last one is cut to the terminal's width. */
function writeTable(
  out: CliOutput,
  header: readonly string[],
  rows: readonly string[][],
): void {
  const all = [header, ...rows];
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? "").length))
  );
  for (const row of all) {
    let line = row.map((cell, column) =>
      column === row.length - 1 ? cell : cell.padEnd(widths[column]!)
    ).join("  ").trimEnd();
    if (out.isTTY && out.columns && line.length > out.columns) {
      line = `${line.slice(0, out.columns - 1)}…`;
    }
    out.write(`${line}\n`);
  }
}

/** A one-line progress bar redrawn in place with `\r`. */
class ProgressBar {
  #out: CliOutput;
  #drawn = false;

  constructor(out: CliOutput) {
    this.#out = out;
  }

  draw({ progress, total, message }: MCPProgress): void {
    let line: string;
    if (total !== undefined && total > 0) {
      const ratio = Math.min(1, Math.max(0, progress / total));
      const filled = Math.round(ratio * BAR_WIDTH);
      line = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${
        Math.round(ratio * 100)
      }% ${progress}/${total}`;
    } else {
      line = `progress ${progress}`;
    }
    if (message) line += ` ${message}`;
    // A pseudo-terminal without a size reports 0 columns.
    const width = (this.#out.columns || 80) - 1;
    if (line.length > width) line = line.slice(0, width);
    this.#out.write(`\r${line}\x1b[K`);
    this.#drawn = true;
  }

  clear(): void {
    if (this.#drawn) this.#out.write("\r\x1b[K");
    this.#drawn = false;
  }
}

function namespaceOf(name: string): string {
  return name.slice(0, name.indexOf("/"));
}

function toolPart(name: string): string {
  return name.slice(name.indexOf("/") + 1);
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]!.trim();
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
