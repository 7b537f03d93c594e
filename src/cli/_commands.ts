/**
 * What each command of the command line does once its arguments are checked
 * and its config is loaded: start the servers it needs, print, pick the exit
 * code. Internal.
 *
 * @module
 */

import type { Command, Context } from "./_context.ts";
import type { HubServerStatus } from "../hub.ts";
import type { RegisteredTool } from "../tools/registry.ts";
import type {
  InvokeOptions,
  MCPCallResult,
  MCPToolFailure,
  MCPToolResult,
} from "../types.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../adapter/adapter.ts";
import { toolArguments } from "./_tool_args.ts";
import { errorMessage } from "../util/caught.ts";
import { printable, printableText } from "../util/terminal.ts";
import {
  CliError,
  CONNECTION,
  INTERRUPTED,
  OK,
  TOOL_ERROR,
  USAGE,
} from "./_exit.ts";
import { inConfigOrder, namespaceOf, withHub, withTool } from "./_hub.ts";
import {
  binaryOf,
  firstLine,
  ProgressBar,
  writeJson,
  writeRaw,
  writeResult,
  writeTable,
} from "./_output.ts";

/** A tool call as the command line describes it. */
export interface ToolCall {
  /** `ns/tool` or an alias. */
  name: string;
  /** `--args JSON`, taken literally. */
  json: string | undefined;
  /** `key=value` pairs, read by the tool's input schema. */
  pairs: readonly string[];
  timeoutMs: number | undefined;
  /** `--raw`: the first text block, exactly. */
  raw: boolean;
  /** `--output DIR`: where image, audio and blob blocks are saved. */
  outputDir: string | undefined;
}

/** `tools`: every tool of every enabled server. */
export async function toolsCommand(ctx: Context): Promise<number> {
  return await withHub(ctx, (hub, statuses) => {
    const failed = reportFailures(ctx, statuses);
    const tools = inConfigOrder(hub.registry.list(), ctx.servers);
    if (ctx.json) {
      writeJson(
        ctx.stdout,
        tools.map((tool) => ({
          name: tool.name,
          alias: hub.registry.aliasOf(tool.name),
          server: tool.sourceMetadata.server,
          namespace: namespaceOf(tool.name),
          readOnly: tool.capability.readOnly,
          writes: tool.capability.writes,
          taskSupport: tool.execution?.taskSupport ?? "forbidden",
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
        (tool.capability.writes
          ? "writes"
          : tool.capability.readOnly
          ? "read-only"
          : "-") + TASK_MARKS[tool.execution?.taskSupport ?? "forbidden"],
        firstLine(tool.description),
      ]);
      writeTable(ctx.stdout, ["TOOL", "SERVER", "ACCESS", "DESCRIPTION"], rows);
    }
    return Promise.resolve(failed ? CONNECTION : OK);
  });
}

/** `check`: connects each enabled server and reports how that went. */
export async function checkCommand(ctx: Context): Promise<number> {
  return await withHub(ctx, (hub, statuses) => {
    const instructions = hub.instructions();
    if (ctx.json) {
      writeJson(
        ctx.stdout,
        statuses.map((status) =>
          Object.hasOwn(instructions, status.name)
            ? { ...status, instructions: instructions[status.name] }
            : status
        ),
      );
    } else {
      const rows = statuses.map((status) => [
        status.name,
        status.state === "connected" ? "ok" : status.state,
        status.state === "connected"
          ? `protocol ${status.protocolVersion} (${
            status.era ?? "legacy"
          } era) over ${transportOf(ctx, status)}, ${status.toolCount} tool${
            status.toolCount === 1 ? "" : "s"
          }, connected in ${status.connectMs} ms`
          : status.error ?? "",
      ]);
      writeTable(ctx.stdout, ["SERVER", "STATE", "DETAILS"], rows);
      // The server's own text: escaped, and cut (--json has all of it).
      for (const [name, text] of Object.entries(instructions)) {
        const shown = text.length > 300 ? `${text.slice(0, 300)} …` : text;
        ctx.stdout.write(
          `\n${printable(name)} instructions:\n  ${
            printableText(shown).replaceAll("\n", "\n  ")
          }\n`,
        );
      }
    }
    const failed = statuses.some((status) => status.state === "failed");
    return Promise.resolve(failed ? CONNECTION : OK);
  });
}

/** `schema <name>`: prints the tool's input schema. */
export function schemaCommand(name: string): Command {
  return (ctx) =>
    withTool(ctx, name, (tool) => {
      writeJson(ctx.stdout, tool.inputSchema, { printable: true });
      return Promise.resolve(OK);
    });
}

/** `call <name> [args]`: validates, calls, prints the result. */
export function callCommand(call: ToolCall): Command {
  return (ctx) =>
    withTool(ctx, call.name, async (tool) => {
      const args = toolArguments(call.json, call.pairs, tool.inputSchema);
      const result = await watched(
        ctx,
        call.timeoutMs,
        (options) => tool.invoke(args, options),
      );
      if (ctx.json) {
        writeJson(ctx.stdout, result);
      } else if (result.success) {
        const saved = call.outputDir === undefined
          ? new Map<number, string>()
          : await saveBlocks(result.data, call.outputDir, tool.name);
        if (call.raw) {
          if (!writeRaw(ctx.stdout, result.data)) {
            ctx.stderr.write(
              "mcp-adapter: the result has no text block for --raw\n",
            );
            return TOOL_ERROR;
          }
        } else writeResult(ctx.stdout, result.data, saved);
      } else if (result.errorKind === "cancelled" && ctx.signal?.aborted) {
        // Ctrl-C: said once, by the caller, after the servers are stopped.
        throw new CliError(INTERRUPTED, "interrupted");
      } else {
        reportFailedCall(ctx, tool, result, call.timeoutMs);
      }
      return exitCodeOf(result, ctx.signal);
    });
}

/**
 * Runs a call (or a resumed task) with the command line's deadline, its
 * Ctrl-C and, on a terminal, a progress bar; an error it throws becomes
 * the command's exit (`exitOf`, default 3).
 */
export async function watched(
  ctx: Context,
  timeoutMs: number | undefined,
  run: (options: InvokeOptions) => Promise<MCPToolResult>,
  exitOf: (error: unknown) => number = () => CONNECTION,
): Promise<MCPToolResult> {
  const bar = ctx.stderr.isTTY ? new ProgressBar(ctx.stderr) : undefined;
  try {
    return await run({
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(bar
        ? {
          onProgress: (progress) => bar.draw(progress),
          onTaskStatus: (status) => bar.status(status),
        }
        : {}),
    });
  } catch (error) {
    if (ctx.signal?.aborted) throw new CliError(INTERRUPTED, "interrupted");
    throw new CliError(exitOf(error), errorMessage(error));
  } finally {
    bar?.clear();
  }
}

/** A failed call on stderr, with the hint that fits the command line. */
function reportFailedCall(
  ctx: Context,
  tool: RegisteredTool,
  result: MCPToolFailure,
  timeoutMs: number | undefined,
): void {
  if (result.errorKind === "timeout") {
    // The deadline the call had: --timeout, else the server's configured
    // requestTimeoutMs, else the adapter's default.
    const limit = timeoutMs ??
      ctx.servers.find((entry) =>
        entry.config.name === tool.sourceMetadata.server
      )?.requestTimeoutMs ??
      DEFAULT_REQUEST_TIMEOUT_MS;
    ctx.stderr.write(
      `mcp-adapter: ${
        printable(tool.name)
      } timed out after ${limit} ms without an answer or progress; give it longer with --timeout MS (e.g. --timeout ${
        limit * 4
      })\n`,
    );
    return;
  }
  ctx.stderr.write(
    `mcp-adapter: the call failed (${result.errorKind}): ${
      printableText(String(result.error))
    }\n`,
  );
  if (result.errorKind === "validation") {
    ctx.stderr.write(
      `See the arguments it takes: mcp-adapter schema ${
        printable(tool.name)
      }\n`,
    );
  }
}

/** Writes each image, audio and blob block to `dir`; returns block index → file. */
async function saveBlocks(
  data: MCPCallResult,
  dir: string,
  toolName: string,
): Promise<Map<number, string>> {
  const saved = new Map<number, string>();
  const blocks = data.content ?? [];
  if (!blocks.some((block) => binaryOf(block) !== undefined)) return saved;
  const [{ mkdir, writeFile }, { join }] = await Promise.all([
    import("node:fs/promises"),
    import("node:path"),
  ]);
  await mkdir(dir, { recursive: true });
  const stem = toolName.replace(/[^A-Za-z0-9_.-]+/g, "_");
  for (const [index, block] of blocks.entries()) {
    const binary = binaryOf(block);
    if (binary === undefined) continue;
    const file = join(dir, `${stem}-${index + 1}.${binary.extension}`);
    await writeFile(file, decodeBase64(binary.base64));
    saved.set(index, file);
  }
  return saved;
}

function decodeBase64(base64: string): Uint8Array {
  const text = atob(base64.replace(/\s+/g, ""));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The exit code of a call, read or get: by its `errorKind` when it failed. */
export function exitCodeOf(
  result: Pick<MCPToolResult, "success" | "errorKind">,
  signal: AbortSignal | undefined,
): number {
  if (result.success) return OK;
  switch (result.errorKind) {
    case "not_found":
      return USAGE;
    case "connection":
      return CONNECTION;
    case "cancelled":
      return signal?.aborted ? INTERRUPTED : TOOL_ERROR;
    default:
      return TOOL_ERROR;
  }
}

/** Says on stderr which servers failed; returns whether any did. */
export function reportFailures(
  ctx: Context,
  statuses: HubServerStatus[],
): boolean {
  const failed = statuses.filter((status) => status.state === "failed");
  for (const status of failed) {
    ctx.stderr.write(
      `mcp-adapter: server "${printable(status.name)}" failed: ${
        printableText(String(status.error))
      }\n`,
    );
  }
  return failed.length > 0;
}

/** How the access column marks a tool by its `execution.taskSupport`. */
const TASK_MARKS: Record<string, string> = {
  required: ", task",
  optional: ", task optional",
  forbidden: "",
};

/** The transport a server connected over; a fallback says so. */
function transportOf(ctx: Context, status: HubServerStatus): string {
  const configured = ctx.servers.find((entry) =>
    entry.config.name === status.name
  )?.config.transport;
  const used = status.transport ?? configured ?? "?";
  return configured !== undefined && used !== configured
    ? `${used} (fallback from ${configured})`
    : used;
}
