/**
 * A modern (2026-07-28) server with the `io.modelcontextprotocol/tasks`
 * extension, on the official SDK v2's `McpServer`: the SDK has no tasks
 * support of its own (2.4.0), so `tools/call`, `tasks/get`, `tasks/update`
 * and `tasks/cancel` are its raw request handlers, as the extension's
 * specification lays them out. Task state lives in the module, so the
 * per-request servers of HTTP share it.
 *
 * Tools: `slow` (done after `polls` polls), `ask` (input_required: an
 * elicitation, answered through tasks/update), `fail` (failed with a
 * JSON-RPC error), `forever` (working until cancelled), `inline` (no
 * task: the result at once) and `greedy` (hostile: input_required for
 * ever, asking for a new input key on every tasks/get).
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const TASKS = "io.modelcontextprotocol/tasks";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

interface Task {
  tool: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  polls: number;
  arguments: Record<string, unknown>;
  answer?: unknown;
  updated: number;
}

/** Every task, and what the client did with them. */
export const taskLog = {
  tasks: new Map<string, Task>(),
  /** Methods received, with the task id where there is one. */
  calls: [] as string[],
  /** tools/call requests that did not declare the tasks extension. */
  undeclared: 0,
};

/** Whether the request's envelope (the SDK's `ctx.mcpReq.envelope`) accepts tasks. */
function declaresTasks(context: unknown): boolean {
  const envelope =
    (context as { mcpReq?: { envelope?: Record<string, unknown> } })
      .mcpReq?.envelope;
  const capabilities = envelope?.[CAPABILITIES] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS] !== undefined;
}

function view(id: string, task: Task): Record<string, unknown> {
  const base: Record<string, unknown> = {
    taskId: id,
    status: task.status,
    createdAt: "2026-12-01T00:00:00Z",
    lastUpdatedAt: new Date(task.updated).toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 10,
  };
  if (task.status === "completed") {
    base.result = {
      content: [{
        type: "text",
        text: task.tool === "ask"
          ? `hello ${JSON.stringify(task.answer)}`
          : `${task.tool} done after ${task.polls} polls`,
      }],
    };
  } else if (task.status === "failed") {
    base.statusMessage = "the disk is full";
    base.error = { code: -32603, message: "Disk full" };
  } else if (task.status === "input_required") {
    // `greedy` asks for a key it never asked for before, every time.
    const key = task.tool === "greedy" ? `key${task.polls}` : "name";
    base.inputRequests = {
      [key]: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Name?",
          requestedSchema: {
            type: "object",
            properties: { name: { type: "string" } },
            required: ["name"],
          },
        },
      },
    };
  }
  return base;
}

const taskParams = z.looseObject({ taskId: z.string() });

/** The server of one request (HTTP) or of the process (stdio). */
export function buildTaskServer(): McpServer {
  const server = new McpServer(
    { name: "modern-tasks", version: "1.0.0" },
    { capabilities: { extensions: { [TASKS]: {} } } },
  );
  for (const name of ["slow", "ask", "fail", "forever", "inline", "greedy"]) {
    server.registerTool(name, {
      description: `task tool ${name}`,
      inputSchema: z.object({ polls: z.number().optional() }),
    }, () => ({ content: [] }));
  }
  server.server.setRequestHandler(
    "tools/call",
    { params: z.looseObject({ name: z.string() }) },
    (params, context) => {
      taskLog.calls.push(`tools/call ${params.name}`);
      if (params.name === "inline") {
        return { content: [{ type: "text", text: "inline result" }] };
      }
      if (!declaresTasks(context)) {
        taskLog.undeclared++;
        return { content: [{ type: "text", text: "no task: undeclared" }] };
      }
      const id = `task-${taskLog.tasks.size + 1}`;
      const task: Task = {
        tool: params.name,
        status: "working",
        polls: 0,
        arguments: (params.arguments ?? {}) as Record<string, unknown>,
        updated: Date.now(),
      };
      taskLog.tasks.set(id, task);
      return { resultType: "task", ...view(id, task) } as never;
    },
  );
  server.server.setRequestHandler("tasks/get", { params: taskParams }, (
    params,
  ) => {
    taskLog.calls.push(`tasks/get ${params.taskId}`);
    const task = taskLog.tasks.get(params.taskId);
    if (!task) throw Object.assign(new Error("Unknown task"), { code: -32602 });
    if (task.status === "working" || task.status === "input_required") {
      task.polls++;
      const wanted = Number(task.arguments.polls ?? 2);
      if (task.tool === "slow" && task.polls >= wanted) {
        task.status = "completed";
      } else if (task.tool === "fail" && task.polls >= 1) {
        task.status = "failed";
      } else if (task.tool === "ask" && task.answer === undefined) {
        task.status = "input_required";
      } else if (task.tool === "ask") task.status = "completed";
      else if (task.tool === "greedy") task.status = "input_required";
      task.updated = Date.now() + task.polls;
    }
    return { resultType: "complete", ...view(params.taskId, task) } as never;
  });
  server.server.setRequestHandler("tasks/update", { params: taskParams }, (
    params,
    context,
  ) => {
    taskLog.calls.push(`tasks/update ${params.taskId}`);
    const task = taskLog.tasks.get(params.taskId);
    // The SDK lifts `inputResponses` out of the params into the context.
    const responses = (context.mcpReq as { inputResponses?: unknown })
      .inputResponses as Record<string, unknown> | undefined;
    const name = responses?.name as
      | { action?: string; content?: { name?: unknown } }
      | undefined;
    if (task && name?.action === "accept") task.answer = name.content?.name;
    return { resultType: "complete" } as never;
  });
  server.server.setRequestHandler("tasks/cancel", { params: taskParams }, (
    params,
  ) => {
    taskLog.calls.push(`tasks/cancel ${params.taskId}`);
    const task = taskLog.tasks.get(params.taskId);
    if (task) task.status = "cancelled";
    return { resultType: "complete" } as never;
  });
  return server;
}
