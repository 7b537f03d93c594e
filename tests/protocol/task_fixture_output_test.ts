/**
 * Proves the task fixture's structured-output and logging tools, the fixture
 * over streamable HTTP (`_task_http.ts`) and its task store behave as the
 * 2025-11-25 specification says, by driving them with the SDK's own
 * `Client` — so the adapter's tests can trust them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  type Request,
} from "@modelcontextprotocol/sdk/types.js";
import { LOG_LEVELS } from "../_task_server.ts";
import { FixtureTaskStore } from "../_task_store.ts";
import { taskHttpServer } from "../_task_http.ts";
import { waitFor } from "../_helpers.ts";

import {
  last,
  stream,
  taskClients,
  taskIdOf,
  TEST_MS,
} from "./_task_client.ts";

const { link, sdkClient, cleanups } = taskClients();

describe("task fixture server, driven by the SDK Client: output and logs", () => {
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
      cleanups.push(() => server.close());
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
