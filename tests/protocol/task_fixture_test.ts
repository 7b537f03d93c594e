/**
 * Proves the task fixture (`_task_server.ts`, `_task_http.ts`) behaves as
 * the 2025-11-25 specification says, by driving it with the SDK's own
 * `Client` and its experimental task API — so the adapter's tests can trust
 * it.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResponseMessage } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CallToolResultSchema,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  type Request,
  type TaskStatusNotification,
  TaskStatusNotificationSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  createTaskServer,
  FixtureTaskStore,
  LOG_LEVELS,
  newTaskServerLog,
  receivedMethods,
  type TaskServerLog,
} from "../_task_server.ts";
import { taskHttpServer } from "../_task_http.ts";
import { within } from "../_remote.ts";
import { waitFor } from "../_helpers.ts";

const TEST_MS = 15_000;
const RELATED_TASK = "io.modelcontextprotocol/related-task";

interface Linked {
  client: Client;
  log: TaskServerLog;
  statuses: TaskStatusNotification["params"][];
  logs: LoggingMessageNotification["params"][];
  /** Requests the server sent the client, with their params. */
  serverRequests: { method: string; params: Record<string, unknown> }[];
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** An SDK client linked in-process to a fresh fixture server; tools listed. */
async function link(): Promise<Linked> {
  const log = newTaskServerLog();
  const server = createTaskServer(log);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  open.push(() => server.close());
  return await sdkClient(clientSide, log);
}

/** An SDK client over `transport` that records status, log and server requests; tools listed. */
async function sdkClient(
  transport: Transport,
  log: TaskServerLog,
): Promise<Linked> {
  const client = new Client({ name: "fixture-test", version: "1.0.0" }, {
    capabilities: { elicitation: {}, sampling: {} },
  });
  const linked: Linked = {
    client,
    log,
    statuses: [],
    logs: [],
    serverRequests: [],
  };
  client.setNotificationHandler(
    TaskStatusNotificationSchema,
    (n: TaskStatusNotification) => void linked.statuses.push(n.params),
  );
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (n: LoggingMessageNotification) => void linked.logs.push(n.params),
  );
  client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
    linked.serverRequests.push(request as never);
    return { action: "accept", content: { colour: "teal" } };
  });
  client.setRequestHandler(
    CreateMessageRequestSchema,
    (request: CreateMessageRequest) => {
      linked.serverRequests.push(request as never);
      return {
        role: "assistant",
        content: { type: "text", text: "teal" },
        model: "fake",
      };
    },
  );
  await client.connect(transport);
  open.push(() => client.close());
  await client.listTools(); // the SDK client learns each tool's taskSupport
  return linked;
}

/** Runs a tool through the SDK's task stream; every message it yielded. */
async function stream(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (progress: { progress: number; total?: number }) => void,
): Promise<ResponseMessage<never>[]> {
  const messages: ResponseMessage<never>[] = [];
  const run = async () => {
    for await (
      const message of client.experimental.tasks.callToolStream(
        { name, arguments: args },
        CallToolResultSchema,
        { ...(onprogress ? { onprogress } : {}), timeout: 10_000 },
      )
    ) messages.push(message as ResponseMessage<never>);
  };
  await within(run(), 10_000, `task "${name}"`);
  return messages;
}

function taskIdOf(messages: ResponseMessage<never>[]): string {
  const created = messages.find((m) => m.type === "taskCreated");
  assert.ok(created, `no taskCreated in ${JSON.stringify(messages)}`);
  return (created as { task: { taskId: string } }).task.taskId;
}

const statusesOf = (messages: ResponseMessage<never>[]) =>
  messages.filter((m) => m.type === "taskStatus").map((m) =>
    (m as { task: { status: string } }).task.status
  );

const last = <T>(items: T[]): T => items[items.length - 1]!;

describe("task fixture server, driven by the SDK Client", () => {
  it(
    "lists each tool's execution.taskSupport and outputSchema, and declares tasks and logging",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(capabilities?.tasks, {
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      assert.deepEqual(capabilities?.logging, {});
      const { tools } = await client.listTools();
      const support = Object.fromEntries(
        tools.map((tool: Tool) => [tool.name, tool.execution?.taskSupport]),
      );
      assert.deepEqual(support, {
        slow_task: "required",
        poll_task: "required",
        failing_task: "required",
        server_cancelled_task: "required",
        input_task: "required",
        optional_task: "optional",
        // McpServer always sends "forbidden" for a plain tool: never absent.
        plain_tool: "forbidden",
        structured_ok: "forbidden",
        structured_bad: "forbidden",
        structured_missing: "forbidden",
        log: "forbidden",
        log_later: "forbidden",
      });
      const output = tools.find((tool: Tool) => tool.name === "structured_bad")
        ?.outputSchema;
      assert.deepEqual(output?.required, ["sum", "label"]);
    },
  );

  it(
    "slow_task: created working, polled at its pollInterval, progress on the call's token, then the result",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, log, statuses } = await link();
      const progress: number[] = [];
      const messages = await stream(
        client,
        "slow_task",
        { steps: 3, gapMs: 40 },
        (p) => void progress.push(p.progress),
      );
      const taskId = taskIdOf(messages);
      const created = messages[0] as { task: Record<string, unknown> };
      assert.equal(created.task.status, "working");
      assert.equal(created.task.pollInterval, 20);
      assert.equal(created.task.ttl, 60_000);
      assert.equal(typeof created.task.createdAt, "string");
      assert.equal(typeof created.task.lastUpdatedAt, "string");
      assert.equal(last(statusesOf(messages)), "completed");
      const result = last(messages) as {
        type: string;
        result: Record<string, unknown>;
      };
      assert.equal(result.type, "result");
      assert.deepEqual(result.result.structuredContent, { steps: 3 });
      // tasks/result carries the related-task _meta (spec: MUST).
      assert.deepEqual(
        (result.result._meta as Record<string, unknown>)[RELATED_TASK],
        { taskId },
      );
      assert.deepEqual(progress, [1, 2, 3]);
      assert.ok(
        statuses.some((s) =>
          s.taskId === taskId && s.statusMessage === "step 2/3"
        ),
      );
      const methods = receivedMethods(log, taskId);
      assert.ok(
        methods.filter((m) => m === "tasks/get").length >= 3,
        methods.join(),
      );
      assert.equal(last(methods), "tasks/result");
      assert.deepEqual(log.created, [{
        tool: "slow_task",
        taskId,
        augmented: true,
      }]);
    },
  );

  it(
    "poll_task completes on exactly its n-th tasks/get, with progress on each poll",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, log } = await link();
      const progress: number[] = [];
      const messages = await stream(
        client,
        "poll_task",
        { polls: 3 },
        (p) => void progress.push(p.progress),
      );
      assert.deepEqual(statusesOf(messages), [
        "working",
        "working",
        "completed",
      ]);
      const taskId = taskIdOf(messages);
      assert.equal(
        receivedMethods(log, taskId).filter((m) => m === "tasks/get").length,
        3,
      );
      assert.deepEqual(progress, [1, 2, 3]);
      const result = last(messages) as { result: { content: unknown } };
      assert.deepEqual(result.result.content, [{
        type: "text",
        text: "done after 3 polls",
      }]);
    },
  );

  it(
    "failing_task ends failed with a statusMessage; tasks/result gives the isError result or the JSON-RPC error",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, statuses } = await link();
      for (const mode of ["isError", "rpcError"] as const) {
        const messages = await stream(client, "failing_task", { mode });
        const taskId = taskIdOf(messages);
        assert.equal(last(statusesOf(messages)), "failed");
        // The SDK's stream reports only "Task … failed"; the outcome needs tasks/result.
        assert.equal(last(messages).type, "error");
        const task = await client.experimental.tasks.getTask(taskId);
        assert.equal(task.statusMessage, "Tool execution failed: disk on fire");
        assert.ok(
          statuses.some((s) => s.taskId === taskId && s.status === "failed"),
        );
        const outcome = client.experimental.tasks.getTaskResult(
          taskId,
          CallToolResultSchema,
        );
        if (mode === "isError") {
          const result = await outcome;
          assert.equal(result.isError, true);
          assert.deepEqual(result.content, [{
            type: "text",
            text: "disk on fire",
          }]);
        } else {
          await assert.rejects(
            outcome,
            (error: { code?: number; message: string }) => {
              assert.equal(error.code, -32050);
              assert.match(error.message, /disk on fire/);
              assert.doesNotMatch(error.message, /MCP error -32050: MCP error/);
              return true;
            },
          );
        }
      }
    },
  );

  it(
    "server_cancelled_task ends cancelled with the server's reason; tasks/result has no result",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      const messages = await stream(client, "server_cancelled_task", {});
      const taskId = taskIdOf(messages);
      assert.equal(last(statusesOf(messages)), "cancelled");
      const task = await client.experimental.tasks.getTask(taskId);
      assert.equal(
        task.statusMessage,
        "Cancelled by the server: quota exhausted",
      );
      await assert.rejects(
        client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
        /cancelled and has no result/,
      );
    },
  );

  for (const kind of ["elicitation", "sampling"] as const) {
    it(
      `input_task (${kind}): input_required, the request arrives inside tasks/result with related-task _meta, the answer completes it`,
      {
        timeout: TEST_MS,
      },
      async () => {
        const { client, log, serverRequests, statuses } = await link();
        const messages = await stream(client, "input_task", { kind });
        const taskId = taskIdOf(messages);
        assert.ok(statusesOf(messages).includes("input_required"));
        assert.ok(
          statuses.some((s) =>
            s.taskId === taskId && s.status === "input_required" &&
            s.statusMessage === `Waiting for ${kind}`
          ),
        );
        assert.equal(serverRequests.length, 1);
        const request = serverRequests[0]!;
        assert.equal(
          request.method,
          kind === "elicitation"
            ? "elicitation/create"
            : "sampling/createMessage",
        );
        assert.deepEqual(
          (request.params._meta as Record<string, unknown>)[RELATED_TASK],
          { taskId },
        );
        const result = last(messages) as {
          type: string;
          result: { content: unknown };
        };
        assert.equal(result.type, "result");
        assert.deepEqual(result.result.content, [{
          type: "text",
          text: kind === "elicitation" ? "colour teal" : "model said teal",
        }]);
        // The client's answer went back as a plain response, during tasks/result.
        const methods = receivedMethods(log);
        const resultAt = methods.lastIndexOf("tasks/result");
        assert.ok(
          methods.indexOf("response", resultAt) > resultAt,
          methods.join(),
        );
      },
    );
  }

  it(
    "tasks/cancel cancels a running task, its work stops, and a second cancel is -32602",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, log } = await link();
      const created = await client.request({
        method: "tools/call",
        params: {
          name: "slow_task",
          arguments: { steps: 50, gapMs: 20 },
          task: {},
        },
      }, CreateTaskResultSchema);
      const taskId = created.task.taskId;
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, "cancelled");
      assert.equal(cancelled.taskId, taskId);
      assert.ok(await waitFor(() => log.stopped.includes(taskId), 2_000));
      await assert.rejects(
        client.experimental.tasks.cancelTask(taskId),
        (error: { code?: number }) => error.code === -32602,
      );
      assert.equal(
        (await client.experimental.tasks.getTask(taskId)).status,
        "cancelled",
      );
    },
  );

  it(
    "an unknown task id is -32602 for tasks/get, tasks/result and tasks/cancel",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      for (
        const call of [
          () => client.experimental.tasks.getTask("no-such-task"),
          () =>
            client.experimental.tasks.getTaskResult(
              "no-such-task",
              CallToolResultSchema,
            ),
          () => client.experimental.tasks.cancelTask("no-such-task"),
        ]
      ) {
        await assert.rejects(call(), (error: { code?: number }) => {
          assert.ok(
            error.code === -32602 || error.code === -32603,
            String(error.code),
          );
          return true;
        });
      }
    },
  );

  it("optional_task runs inline without params.task and as a task with it", {
    timeout: TEST_MS,
  }, async () => {
    const { client, log } = await link();
    const inline = await client.callTool({
      name: "optional_task",
      arguments: {},
    });
    assert.deepEqual(inline.content, [{ type: "text", text: "ran inline" }]);
    const messages = await stream(client, "optional_task", {});
    assert.ok(messages.some((m) => m.type === "taskCreated"));
    assert.deepEqual(
      (last(messages) as { result: { content: unknown } }).result.content,
      [{
        type: "text",
        text: "ran as a task",
      }],
    );
    assert.deepEqual(log.created.map((c) => c.augmented), [false, true]);
  });

  it(
    "a required-task tool called plainly, and a forbidden one called as a task, are refused (McpServer's quirks)",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      // McpServer answers with an isError result quoting -32601, not a JSON-RPC error.
      const plain = await client.request({
        method: "tools/call",
        params: { name: "slow_task", arguments: { steps: 1, gapMs: 0 } },
      }, CallToolResultSchema);
      assert.equal(plain.isError, true);
      assert.match(
        JSON.stringify(plain.content),
        /-32601.*requires task augmentation/,
      );
      // A forbidden tool run as a task: -32602 "Invalid task creation result" (spec: SHOULD be -32601).
      await assert.rejects(
        client.request({
          method: "tools/call",
          params: {
            name: "plain_tool",
            arguments: { message: "hi" },
            task: {},
          },
        }, CreateTaskResultSchema),
        (error: { code?: number; message: string }) => {
          assert.equal(error.code, -32602);
          assert.match(error.message, /Invalid task creation result/);
          return true;
        },
      );
    },
  );

  it(
    "slow_task with violate: the task's final structuredContent breaks its outputSchema",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      const messages = await stream(client, "slow_task", {
        steps: 1,
        gapMs: 0,
        violate: true,
      });
      // The SDK validates a task's result too.
      const end = last(messages) as { type: string; error?: Error };
      assert.equal(end.type, "error");
      assert.match(String(end.error), /output schema/);
    },
  );

  it(
    "structured tools send their payloads unchanged: valid, violating, missing",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      const raw = (name: string) =>
        client.request({
          method: "tools/call",
          params: { name, arguments: { a: 1, b: 2 } },
        }, CallToolResultSchema);
      assert.deepEqual((await raw("structured_ok")).structuredContent, {
        sum: 3,
        label: "sum",
      });
      const bad = await raw("structured_bad");
      assert.deepEqual(bad.structuredContent, { sum: "3" });
      assert.equal(bad.isError, undefined);
      const missing = await raw("structured_missing");
      assert.equal(missing.structuredContent, undefined);
      assert.equal(missing.isError, undefined);
      // The SDK client's own check (it validates, as the spec suggests):
      await client.callTool({
        name: "structured_ok",
        arguments: { a: 1, b: 2 },
      });
      await assert.rejects(
        client.callTool({ name: "structured_bad", arguments: { a: 1, b: 2 } }),
        /does not match the tool's output schema/,
      );
      await assert.rejects(
        client.callTool({
          name: "structured_missing",
          arguments: { a: 1, b: 2 },
        }),
        /did not return structured content/,
      );
    },
  );

  it(
    "log sends every level before its result; logging/setLevel filters; an unknown level is -32602",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, logs, log } = await link();
      const first = await client.callTool({
        name: "log",
        arguments: { message: "hello" },
      });
      assert.deepEqual(first.content, [{ type: "text", text: "sent 8" }]);
      assert.deepEqual(logs.map((l) => l.level), LOG_LEVELS);
      assert.deepEqual(logs[0], {
        level: "debug",
        logger: "task-fixture",
        data: { message: "hello", level: "debug" },
      });
      logs.length = 0;
      await client.setLoggingLevel("warning");
      assert.deepEqual(log.levels, ["warning"]);
      await client.callTool({ name: "log", arguments: {} });
      assert.deepEqual(logs.map((l) => l.level), LOG_LEVELS.slice(3));
      await assert.rejects(
        client.request(
          { method: "logging/setLevel", params: { level: "loud" } } as Request,
          CallToolResultSchema.partial(),
        ),
        (error: { code?: number; message: string }) => {
          assert.equal(error.code, -32602);
          assert.match(error.message, /Unknown log level "loud"/);
          return true;
        },
      );
    },
  );

  it(
    "log_later sends a log message tied to no request, after the call answered",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, logs } = await link();
      await client.callTool({
        name: "log_later",
        arguments: { level: "notice", delayMs: 30, message: "later" },
      });
      assert.equal(logs.length, 0);
      assert.ok(await waitFor(() => logs.length === 1, 2_000));
      assert.deepEqual(logs[0], {
        level: "notice",
        logger: "task-fixture",
        data: "later",
      });
    },
  );
});

describe("task fixture server over streamable HTTP", () => {
  it(
    "runs tasks with progress and elicitation, sends unsolicited logs, and keeps each task to its session",
    {
      timeout: TEST_MS,
    },
    async () => {
      const server = await taskHttpServer();
      open.push(() => server.close());
      const connect = () =>
        sdkClient(
          new StreamableHTTPClientTransport(new URL(server.url)),
          server.log,
        );
      const a = await connect();
      const progress: number[] = [];
      const slow = await stream(
        a.client,
        "slow_task",
        { steps: 3, gapMs: 40 },
        (p) => void progress.push(p.progress),
      );
      assert.equal(last(slow).type, "result");
      // Tied to no open request, progress travels on the GET stream.
      assert.deepEqual(progress, [1, 2, 3]);
      const input = await stream(a.client, "input_task", {
        kind: "elicitation",
      });
      assert.deepEqual(
        (last(input) as { result: { content: unknown } }).result.content,
        [{ type: "text", text: "colour teal" }],
      );
      await a.client.callTool({
        name: "log_later",
        arguments: { level: "error", delayMs: 10, message: "on GET" },
      });
      assert.ok(await waitFor(() => a.logs.length === 1, 2_000));

      const b = await connect();
      const taskId = taskIdOf(slow);
      for (
        const call of [
          () => b.client.experimental.tasks.getTask(taskId),
          () => b.client.experimental.tasks.cancelTask(taskId),
          () =>
            b.client.experimental.tasks.getTaskResult(
              taskId,
              CallToolResultSchema,
            ),
        ]
      ) {
        await assert.rejects(call(), /not found/i);
      }
      assert.deepEqual(
        (await b.client.experimental.tasks.listTasks()).tasks,
        [],
      );
      assert.equal(
        (await a.client.experimental.tasks.getTask(taskId)).status,
        "completed",
      );
    },
  );
});

describe("FixtureTaskStore", () => {
  it("keeps a task within its session: another session finds nothing", async () => {
    const store = new FixtureTaskStore();
    const request = { method: "tools/call", params: { name: "x", task: {} } };
    const task = await store.createTask({}, 1, request, "session-a");
    assert.equal(
      (await store.getTask(task.taskId, "session-a"))?.taskId,
      task.taskId,
    );
    assert.equal(await store.getTask(task.taskId, "session-b"), null);
    await assert.rejects(
      store.getTaskResult(task.taskId, "session-b"),
      /not found/,
    );
    await assert.rejects(
      store.updateTaskStatus(task.taskId, "cancelled", undefined, "session-b"),
      /not found/,
    );
    assert.deepEqual((await store.listTasks(undefined, "session-b")).tasks, []);
  });

  it("refuses to change a task in a terminal status", async () => {
    const store = new FixtureTaskStore();
    const task = await store.createTask({}, 1, { method: "tools/call" });
    await store.storeTaskResult(task.taskId, "completed", { content: [] });
    await assert.rejects(
      store.updateTaskStatus(task.taskId, "working"),
      /already completed/,
    );
  });
});
