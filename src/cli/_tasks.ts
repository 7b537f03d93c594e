/**
 * `mcp-adapter tasks` and `tasks resume <id>`: the tool calls that became
 * tasks on their server and have not ended (a run killed, or cut off from
 * its server, leaves its task running there and its handle in the task
 * store), and waiting for one. The store is a JSON file beside the token
 * store (`tasks.json`), which `call` writes through the adapters.
 * Internal.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { Command, Context } from "./_context.ts";
import type { MCPToolResult } from "../types.ts";
import type { TaskHandle } from "../tasks/store.ts";
import { FileTaskStore } from "../tasks/file_store.ts";
import { MCPAdapterError } from "../errors.ts";
import { printable, printableText } from "../util/terminal.ts";
import {
  CliError,
  CONNECTION,
  INTERRUPTED,
  OK,
  TOOL_ERROR,
  USAGE,
} from "./_exit.ts";
import { withHub } from "./_hub.ts";
import { watched } from "./_commands.ts";
import { writeJson, writeRaw, writeResult, writeTable } from "./_output.ts";

/**
 * The command line's task store: `tasks.json` beside the token store.
 *
 * @param tokens The token store's file.
 */
export function cliTaskStore(tokens: string): FileTaskStore {
  return new FileTaskStore(join(dirname(tokens), "tasks.json"));
}

/** `tasks`: the open tasks of the config's servers. */
export async function tasksCommand(ctx: Context): Promise<number> {
  const names = new Set(ctx.servers.map((entry) => entry.config.name));
  const open = (await cliTaskStore(ctx.tokens).list()).filter((task) =>
    names.has(task.server)
  );
  if (ctx.json) {
    // Task ids are the servers' text: escaped for the terminal, same JSON.
    writeJson(ctx.stdout, open, { printable: true });
  } else if (open.length === 0) {
    ctx.stdout.write("No open tasks.\n");
  } else {
    const now = Date.now();
    writeTable(
      ctx.stdout,
      ["ID", "SERVER", "TOOL", "STARTED", "ENDS"],
      open.map((task) => [
        task.id,
        printable(task.server),
        printable(task.tool),
        `${ago(now - task.createdAt)} ago`,
        task.expiresAt === undefined ? "-" : `in ${ago(task.expiresAt - now)}`,
      ]),
    );
  }
  return OK;
}

/** How `tasks resume` prints and waits. */
export interface TaskResume {
  id: string;
  timeoutMs: number | undefined;
  raw: boolean;
}

/** `tasks resume <id>`: connects to the task's server, waits, prints the result. */
export function resumeCommand(resume: TaskResume): Command {
  return async (ctx) => {
    const task = await cliTaskStore(ctx.tokens).get(resume.id);
    const entry = task &&
      ctx.servers.find((server) => server.config.name === task.server);
    if (task === undefined || entry === undefined) {
      throw new CliError(
        USAGE,
        task === undefined
          ? `no open task ${
            JSON.stringify(resume.id)
          }: it ended, expired, or was never recorded; "mcp-adapter tasks" lists the open ones`
          : `task ${JSON.stringify(resume.id)} belongs to server ${
            JSON.stringify(task.server)
          }, which the config does not have`,
      );
    }
    return await withHub(
      { ...ctx, servers: [entry] },
      async (hub, [status]) => {
        const adapter = hub.adapter(task.server);
        if (status?.state !== "connected" || adapter === undefined) {
          throw new CliError(
            CONNECTION,
            `server "${printable(task.server)}" failed: ${
              printableText(String(status?.error))
            }`,
          );
        }
        const result = await watched(
          ctx,
          resume.timeoutMs,
          (options) => adapter.resumeTask(task.id, options),
          (error) =>
            error instanceof MCPAdapterError && error.code === "task_leased"
              ? TOOL_ERROR
              : CONNECTION,
        );
        return printResult(ctx, task, result, resume.raw);
      },
    );
  };
}

/** Prints a resumed task's envelope as `call` prints a call's. */
function printResult(
  ctx: Context,
  task: TaskHandle,
  result: MCPToolResult,
  raw: boolean,
): number {
  if (ctx.json) {
    writeJson(ctx.stdout, result);
  } else if (result.success) {
    if (raw && !writeRaw(ctx.stdout, result.data)) {
      ctx.stderr.write("mcp-adapter: the result has no text block for --raw\n");
      return TOOL_ERROR;
    }
    if (!raw) writeResult(ctx.stdout, result.data);
  } else if (result.errorKind === "cancelled" && ctx.signal?.aborted) {
    throw new CliError(INTERRUPTED, "interrupted");
  } else {
    ctx.stderr.write(
      `mcp-adapter: the task of ${
        printable(task.tool)
      } failed (${result.errorKind}): ${printableText(String(result.error))}\n`,
    );
  }
  if (result.success) return OK;
  return result.errorKind === "connection" ? CONNECTION : TOOL_ERROR;
}

/** A duration for people: `42 s`, `5 min`, `3 h`, `2 d`. */
function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}
