/**
 * An SDK `McpServer` for the protocol-completeness tests: task-augmented
 * tools (2025-11-25, experimental) that complete, fail, are cancelled by the
 * server, need input, or accept either mode; tools whose `structuredContent`
 * breaks or omits their `outputSchema`; and logging that honours
 * `logging/setLevel`. Runs under `deno test` and, transpiled, under
 * `node --test`.
 *
 * The SDK's task plumbing (`tasks/get`, `tasks/result`, `tasks/cancel`,
 * `tasks/list`, the side channel that delivers a task's elicitation through
 * `tasks/result`) is used as it is; only the store is ours, so a test can
 * see and steer every task.
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTaskMessageQueue } from "@modelcontextprotocol/sdk/experimental/tasks";
import type {
  CreateTaskRequestHandlerExtra,
  TaskRequestHandlerExtra,
} from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type JSONRPCMessage,
  type LoggingLevel,
  LoggingLevelSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import type { Extra } from "./_in_memory.ts";
import { FixtureTaskStore, isTerminal, rpcError } from "./_task_store.ts";

/** The syslog levels of `notifications/message`, least severe first: the SDK's own list. */
export const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

/** What the server saw and did, for assertions. */
export interface TaskServerLog {
  /** Every message the client sent, in arrival order (responses as `"response"`). */
  received: { method: string; taskId?: string; at: number }[];
  /** Every task created, and whether its `tools/call` carried `params.task`. */
  created: { tool: string; taskId: string; augmented: boolean }[];
  /** Tasks whose work noticed it was cancelled and stopped. */
  stopped: string[];
  /** Every level `logging/setLevel` accepted. */
  levels: LoggingLevel[];
}

/** An empty {@linkcode TaskServerLog}. */
export function newTaskServerLog(): TaskServerLog {
  return { received: [], created: [], stopped: [], levels: [] };
}

/** The methods `log.received` recorded, in order, optionally only those of one task. */
export function receivedMethods(log: TaskServerLog, taskId?: string): string[] {
  return log.received
    .filter((entry) => taskId === undefined || entry.taskId === taskId)
    .map((entry) => entry.method);
}

/** Options of {@linkcode createTaskServer}. */
export interface TaskServerOptions {
  /** The `pollInterval` every task suggests, in ms. Default 20. */
  pollIntervalMs?: number;
  /** Share one store between servers (e.g. HTTP sessions) to test task isolation. */
  store?: FixtureTaskStore;
}

const text = (value: string) => ({
  content: [{ type: "text" as const, text: value }],
});

const sleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `registerToolTask` requires these; the SDK 1.32 never calls them (its own `tasks/get` and `tasks/result` read the store). */
const unusedTaskHandlers = {
  getTask: (_args: unknown, extra: TaskRequestHandlerExtra) =>
    extra.taskStore.getTask(extra.taskId),
  getTaskResult: (_args: unknown, extra: TaskRequestHandlerExtra) =>
    extra.taskStore.getTaskResult(extra.taskId) as never,
};

const SUM_OUTPUT = { sum: z.number(), label: z.string() };

/**
 * An SDK McpServer with the protocol-completeness fixtures. A fresh one per
 * connection (it keeps per-connection state: the log level).
 *
 * Tools (taskSupport in brackets):
 * - `slow_task` [required] `{steps, gapMs, violate?}`: one step per `gapMs`,
 *   each a progress notification (on the `tools/call` progress token) and a
 *   status message; completes with `structuredContent: {steps}` (a string
 *   when `violate`, against its outputSchema). Stops when cancelled.
 * - `poll_task` [required] `{polls}`: completes on the `polls`-th
 *   `tasks/get`, with progress on each poll. A client that only waits on
 *   `tasks/result` never sees it finish: it proves the client polls.
 * - `failing_task` [required] `{mode, delayMs?}`: ends `failed`, with a
 *   statusMessage; `tasks/result` gives an `isError` result (`mode:
 *   "isError"`) or the JSON-RPC error -32050 (`mode: "rpcError"`).
 * - `server_cancelled_task` [required] `{delayMs?}`: the server cancels it.
 * - `input_task` [required] `{kind}`: moves to `input_required` and sends
 *   `elicitation/create` (or `sampling/createMessage`) through the
 *   `tasks/result` side channel, then completes with the answer.
 * - `optional_task` [optional] `{delayMs?}`: says whether it ran as a task.
 * - `plain_tool` [forbidden] `{message}`: echoes.
 * - `structured_ok` / `structured_bad` / `structured_missing` `{a, b}`:
 *   outputSchema `{sum: number, label: string}`; `bad` returns `{sum: "<a+b>"}`
 *   (wrong type at `/sum`, `label` missing), `missing` no structuredContent.
 * - `log` `{levels?, message?}`: one `notifications/message` per level
 *   (default all eight), on the call's own response stream, skipping those
 *   below the level set with `logging/setLevel`.
 * - `log_later` `{level, delayMs, message?}`: one log message `delayMs` after
 *   answering, not tied to any request (over HTTP: the GET stream).
 */
export function createTaskServer(
  log: TaskServerLog = newTaskServerLog(),
  options: TaskServerOptions = {},
): McpServer {
  const store = options.store ??
    new FixtureTaskStore(options.pollIntervalMs ?? 20);
  const server = new McpServer({ name: "task-fixture", version: "1.0.0" }, {
    capabilities: {
      logging: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    taskStore: store,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  });
  let minLevel: LoggingLevel | undefined;
  const sendLog = async (
    level: LoggingLevel,
    data: unknown,
    send: (message: JSONRPCMessageLike) => Promise<void>,
  ): Promise<boolean> => {
    if (
      minLevel !== undefined &&
      LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(minLevel)
    ) return false;
    await send({
      method: "notifications/message",
      params: { level, logger: "task-fixture", data },
    });
    return true;
  };
  const progress = (
    token: string | number | undefined,
    value: number,
    total: number,
    message: string,
  ) => {
    if (token === undefined) return Promise.resolve();
    // Not tied to the tools/call, which has been answered: over HTTP it
    // goes out on the GET stream.
    return told(server.server.notification({
      method: "notifications/progress",
      params: { progressToken: token, progress: value, total, message },
    }));
  };
  /** Creates a task with a minute to live and logs it as created. */
  const newTask = async (extra: CreateTaskRequestHandlerExtra) => {
    const task = await extra.taskStore.createTask({ ttl: 60_000 });
    const origin = store.origin(task.taskId)!;
    log.created.push({ taskId: task.taskId, ...origin });
    return task;
  };
  /**
   * What a task tells its client (progress, a status notification after
   * the store is updated) when the client's session may be gone: a task
   * outlives the session that created it, so the work goes on.
   */
  const told = (sent: Promise<void>) =>
    sent.catch((error) => {
      if (!/not connected/i.test(String(error))) throw error;
    });
  const background = (taskId: string, work: () => Promise<void>) => {
    work().catch((error) => {
      // A cancelled task refuses further changes: that ends the work.
      if (store.peek(taskId)?.status === "cancelled") {
        log.stopped.push(taskId);
        return;
      }
      throw error;
    });
  };

  // Records what the client sends. Protocol.connect() keeps an onmessage set
  // before it and calls it first, so this sees every message before the SDK
  // handles it.
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    transport.onmessage = (message: JSONRPCMessage) => {
      const method = "method" in message ? message.method : "response";
      const params = ("params" in message ? message.params : undefined) as
        | { taskId?: unknown }
        | undefined;
      const taskId = typeof params?.taskId === "string"
        ? params.taskId
        : undefined;
      log.received.push({
        method,
        ...(taskId === undefined ? {} : { taskId }),
        at: performance.now(),
      });
      if (method === "tasks/get" && taskId !== undefined) onPoll(taskId);
    };
    return connect(transport);
  };

  // poll_task: completes on its n-th poll. Runs before the SDK reads the
  // store for that poll, so the n-th tasks/get already says "completed".
  const pollTargets = new Map<
    string,
    { polls: number; token: string | number | undefined }
  >();
  const onPoll = (taskId: string) => {
    const target = pollTargets.get(taskId);
    const task = store.peek(taskId);
    if (!target || !task || isTerminal(task.status)) return;
    const count = store.countPoll(taskId);
    void progress(target.token, count, target.polls, `poll ${count}`);
    if (count >= target.polls) {
      void store.storeTaskResult(
        taskId,
        "completed",
        text(`done after ${count} polls`),
      );
    }
  };

  server.experimental.tasks.registerToolTask("slow_task", {
    description:
      "Works `steps` steps of `gapMs` each, reporting progress; a task (required)",
    inputSchema: {
      steps: z.number().int().min(1),
      gapMs: z.number().min(0),
      violate: z.boolean().optional(),
    },
    outputSchema: { steps: z.number() },
    execution: { taskSupport: "required" },
  }, {
    createTask: async (
      { steps, gapMs, violate }: {
        steps: number;
        gapMs: number;
        violate?: boolean;
      },
      extra: CreateTaskRequestHandlerExtra,
    ) => {
      const task = await newTask(extra);
      const token = extra._meta?.progressToken;
      background(task.taskId, async () => {
        for (let step = 1; step <= steps; step++) {
          await sleep(gapMs);
          if (store.peek(task.taskId)?.status === "cancelled") {
            log.stopped.push(task.taskId);
            return;
          }
          await progress(token, step, steps, `step ${step}`);
          await told(extra.taskStore.updateTaskStatus(
            task.taskId,
            "working",
            `step ${step}/${steps}`,
          ));
        }
        await told(extra.taskStore.storeTaskResult(task.taskId, "completed", {
          ...text(`done ${steps}`),
          structuredContent: { steps: violate ? String(steps) : steps },
        }));
      });
      return { task };
    },
    ...unusedTaskHandlers,
  });

  server.experimental.tasks.registerToolTask("poll_task", {
    description: "Completes on its `polls`-th tasks/get; a task (required)",
    inputSchema: { polls: z.number().int().min(1) },
    execution: { taskSupport: "required" },
  }, {
    createTask: async (
      { polls }: { polls: number },
      extra: CreateTaskRequestHandlerExtra,
    ) => {
      const task = await newTask(extra);
      pollTargets.set(task.taskId, {
        polls,
        token: extra._meta?.progressToken,
      });
      return { task };
    },
    ...unusedTaskHandlers,
  });

  server.experimental.tasks.registerToolTask("failing_task", {
    description: "A task that fails (required)",
    inputSchema: {
      mode: z.enum(["isError", "rpcError"]),
      delayMs: z.number().min(0).optional(),
    },
    execution: { taskSupport: "required" },
  }, {
    createTask: async (
      { mode, delayMs }: { mode: "isError" | "rpcError"; delayMs?: number },
      extra: CreateTaskRequestHandlerExtra,
    ) => {
      const task = await newTask(extra);
      background(task.taskId, async () => {
        await sleep(delayMs ?? 30);
        store.setStatusMessage(
          task.taskId,
          "Tool execution failed: disk on fire",
        );
        if (mode === "rpcError") {
          store.setResultError(task.taskId, -32050, "disk on fire");
        }
        await told(extra.taskStore.storeTaskResult(task.taskId, "failed", {
          isError: true,
          ...text("disk on fire"),
        }));
      });
      return { task };
    },
    ...unusedTaskHandlers,
  });

  server.experimental.tasks.registerToolTask("server_cancelled_task", {
    description: "A task the server cancels (required)",
    inputSchema: { delayMs: z.number().min(0).optional() },
    execution: { taskSupport: "required" },
  }, {
    createTask: async (
      { delayMs }: { delayMs?: number },
      extra: CreateTaskRequestHandlerExtra,
    ) => {
      const task = await newTask(extra);
      background(task.taskId, async () => {
        await sleep(delayMs ?? 30);
        await extra.taskStore.updateTaskStatus(
          task.taskId,
          "cancelled",
          "Cancelled by the server: quota exhausted",
        );
      });
      return { task };
    },
    ...unusedTaskHandlers,
  });

  server.experimental.tasks.registerToolTask("input_task", {
    description:
      "Needs input: asks the client through elicitation or sampling (required)",
    inputSchema: { kind: z.enum(["elicitation", "sampling"]) },
    execution: { taskSupport: "required" },
  }, {
    createTask: async (
      { kind }: { kind: "elicitation" | "sampling" },
      extra: CreateTaskRequestHandlerExtra,
    ) => {
      const task = await newTask(extra);
      const relatedTask = { taskId: task.taskId };
      background(task.taskId, async () => {
        await sleep(10);
        let answer: string;
        try {
          // Spec: the task moves to input_required, and the request
          // carries the related-task _meta. With relatedTask the SDK queues
          // it: it reaches the client inside the tasks/result response.
          await extra.taskStore.updateTaskStatus(
            task.taskId,
            "input_required",
            `Waiting for ${kind}`,
          );
          if (kind === "elicitation") {
            const result = await server.server.request(
              {
                method: "elicitation/create",
                params: {
                  message: "Which colour?",
                  requestedSchema: {
                    type: "object",
                    properties: { colour: { type: "string" } },
                    required: ["colour"],
                  },
                },
              },
              ElicitResultSchema,
              { relatedTask },
            );
            answer = result.action === "accept"
              ? `colour ${String(result.content?.colour)}`
              : `user chose ${result.action}`;
          } else {
            const result = await server.server.request(
              {
                method: "sampling/createMessage",
                params: {
                  messages: [{
                    role: "user",
                    content: { type: "text", text: "Name a colour" },
                  }],
                  maxTokens: 20,
                },
              },
              CreateMessageResultSchema,
              { relatedTask },
            );
            const content = result.content as { type: string; text?: string };
            answer = `model said ${content.text ?? content.type}`;
          }
        } catch (error) {
          if (store.peek(task.taskId)?.status === "cancelled") {
            log.stopped.push(task.taskId);
            return;
          }
          store.setStatusMessage(task.taskId, `No input: ${String(error)}`);
          await extra.taskStore.storeTaskResult(task.taskId, "failed", {
            isError: true,
            ...text(`no input: ${String(error)}`),
          });
          return;
        }
        await extra.taskStore.updateTaskStatus(
          task.taskId,
          "working",
          "got the input",
        );
        await extra.taskStore.storeTaskResult(
          task.taskId,
          "completed",
          text(answer),
        );
      });
      return { task };
    },
    ...unusedTaskHandlers,
  });

  server.experimental.tasks.registerToolTask("optional_task", {
    description:
      "Runs as a task or inline, as the client chooses (optional); says which",
    inputSchema: { delayMs: z.number().min(0).optional() },
    execution: { taskSupport: "optional" },
  }, {
    createTask: async (
      { delayMs }: { delayMs?: number },
      extra: CreateTaskRequestHandlerExtra,
    ) => {
      // Called inline too: the SDK then polls the store itself.
      const task = await newTask(extra);
      const augmented = store.origin(task.taskId)!.augmented;
      background(task.taskId, async () => {
        await sleep(delayMs ?? 10);
        await extra.taskStore.storeTaskResult(
          task.taskId,
          "completed",
          text(augmented ? "ran as a task" : "ran inline"),
        );
      });
      return { task };
    },
    ...unusedTaskHandlers,
  });

  server.registerTool("plain_tool", {
    description: "Echoes; never a task (forbidden)",
    inputSchema: { message: z.string() },
  }, ({ message }: { message: string }) => text(message));

  const sum = ({ a, b }: { a: number; b: number }) => a + b;
  const structured = { a: z.number(), b: z.number() };
  server.registerTool("structured_ok", {
    description: "Adds; structuredContent matches its outputSchema",
    inputSchema: structured,
    outputSchema: SUM_OUTPUT,
  }, (args: { a: number; b: number }) => ({
    ...text(String(sum(args))),
    structuredContent: { sum: sum(args), label: "sum" },
  }));
  server.registerTool("structured_bad", {
    description:
      "Adds; structuredContent breaks its outputSchema (/sum a string, no label)",
    inputSchema: structured,
    outputSchema: SUM_OUTPUT,
  }, (args: { a: number; b: number }) => ({
    ...text(String(sum(args))),
    structuredContent: { sum: String(sum(args)) },
  }));
  server.registerTool("structured_missing", {
    description:
      "Adds; declares an outputSchema but sends no structuredContent",
    inputSchema: structured,
    outputSchema: SUM_OUTPUT,
  }, (args: { a: number; b: number }) => text(String(sum(args))));
  // McpServer checks its own output and would turn both into isError
  // results; a broken server does not, and that is what the client must
  // catch. validateToolOutput is private API: task_server_test.ts proves the
  // payloads still go out unchanged.
  const internals = server as unknown as {
    validateToolOutput: (
      tool: unknown,
      result: unknown,
      name: string,
    ) => Promise<void>;
  };
  const validateToolOutput = internals.validateToolOutput.bind(server);
  internals.validateToolOutput = (tool, result, name) =>
    name === "structured_bad" || name === "structured_missing"
      ? Promise.resolve()
      : validateToolOutput(tool, result, name);

  const levelSchema = z.enum(LOG_LEVELS as [LoggingLevel, ...LoggingLevel[]]);
  server.registerTool("log", {
    description:
      "Sends one notifications/message per level, honouring logging/setLevel",
    inputSchema: {
      levels: z.array(levelSchema).optional(),
      message: z.string().optional(),
    },
  }, async (
    { levels, message }: { levels?: LoggingLevel[]; message?: string },
    extra: Extra,
  ) => {
    let sent = 0;
    for (const level of levels ?? LOG_LEVELS) {
      const data = { message: message ?? `a ${level} message`, level };
      // On the call's own stream, so the messages arrive before the result.
      if (
        await sendLog(level, data, (m) => extra.sendNotification(m as never))
      ) {
        sent++;
      }
    }
    return text(`sent ${sent}`);
  });
  server.registerTool("log_later", {
    description: "Sends one log message after `delayMs`, tied to no request",
    inputSchema: {
      level: levelSchema,
      delayMs: z.number().min(0),
      message: z.string().optional(),
    },
  }, (
    { level, delayMs, message }: {
      level: LoggingLevel;
      delayMs: number;
      message?: string;
    },
  ) => {
    setTimeout(() => {
      void sendLog(
        level,
        message ?? `a later ${level} message`,
        (m) => server.server.notification(m as never),
      ).catch(() => {});
    }, delayMs);
    return text("scheduled");
  });

  // The SDK's own handler answers an unknown level with -32603 (a zod error
  // text); the spec says -32602. Its schema is replaced by a looser one so
  // the level is checked here.
  server.server.setRequestHandler(
    z.object({
      method: z.literal("logging/setLevel"),
      params: z.object({ level: z.unknown() }).passthrough(),
    }),
    (request: { params: { level: unknown } }) => {
      const level = request.params.level;
      if (!LOG_LEVELS.includes(level as LoggingLevel)) {
        throw rpcError(
          -32602,
          `Unknown log level ${JSON.stringify(level)}; expected one of ${
            LOG_LEVELS.join(", ")
          }`,
        );
      }
      minLevel = level as LoggingLevel;
      log.levels.push(minLevel);
      return {};
    },
  );
  return server;
}

/** A JSON-RPC notification without the `jsonrpc` field, as the SDK's senders take it. */
type JSONRPCMessageLike = { method: string; params: Record<string, unknown> };
