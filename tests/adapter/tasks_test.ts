/**
 * Tool calls run as tasks (MCP 2025-11-25, experimental), against the SDK
 * task fixture in-process and over streamable HTTP: completion, polling,
 * progress, failure, cancellation by either side, input through
 * elicitation and sampling, deadlines, and a session that ends under a task.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ElicitationRequest,
  MCPNotConnectedError,
  type MCPProgress,
  type MCPTaskStatus,
  type MCPToolAdapter,
  type MCPToolAdapterOptions,
  type MCPToolResult,
} from "@cleveragents/mcp-adapter";
import { linkedAdapter } from "../_in_memory.ts";
import {
  createTaskServer,
  newTaskServerLog,
  receivedMethods,
  type TaskServerLog,
  type TaskServerOptions,
} from "../_task_server.ts";
import { FixtureTaskStore } from "../_task_store.ts";
import { connectedOverHttp } from "../_task_http.ts";
import { releaseAfterEach, text, waitFor } from "../_helpers.ts";

const TEST_MS = 15_000;
const RELATED_TASK = "io.modelcontextprotocol/related-task";
const cleanups = releaseAfterEach("together");

async function connected(
  log: TaskServerLog = newTaskServerLog(),
  options: Omit<MCPToolAdapterOptions, "transport"> = {},
  server: TaskServerOptions = {},
): Promise<MCPToolAdapter> {
  const { adapter } = linkedAdapter(
    () => createTaskServer(log, server),
    options,
  );
  cleanups.push(() => adapter.disconnect());
  await adapter.connect();
  return adapter;
}

/**
 * Calls failing_task, which sits "working" for 2 s before it fails; resolves
 * once the task exists, with the call still pending.
 */
async function runningTask(
  adapter: MCPToolAdapter,
): Promise<{ call: Promise<MCPToolResult> }> {
  let created!: () => void;
  const running = new Promise<void>((resolve) => created = resolve);
  const call = adapter.invoke("failing_task", {
    mode: "isError",
    delayMs: 2_000,
  }, { onTaskStatus: () => created() });
  await running;
  return { call };
}

/** The task ids the fixture created, in order. */
const taskIds = (log: TaskServerLog) => log.created.map((task) => task.taskId);

describe("tasks", () => {
  it(
    "lists execution.taskSupport on each tool",
    { timeout: TEST_MS },
    async () => {
      const adapter = await connected();
      const tools = await adapter.discoverTools();
      const support = Object.fromEntries(
        tools.map((tool) => [tool.name, tool.execution?.taskSupport]),
      );
      assert.equal(support.slow_task, "required");
      assert.equal(support.optional_task, "optional");
      assert.equal(support.plain_tool, "forbidden");
    },
  );

  it(
    "calls a required-task tool as a task: polls it to the end, relays progress and status, returns its result",
    {
      timeout: TEST_MS,
    },
    async () => {
      const log = newTaskServerLog();
      const adapter = await connected(log);
      const progress: MCPProgress[] = [];
      const statuses: MCPTaskStatus[] = [];
      const result = await adapter.invoke(
        "slow_task",
        { steps: 3, gapMs: 30 },
        {
          onProgress: (report) => void progress.push(report),
          onTaskStatus: (status) => void statuses.push(status),
        },
      );
      assert.equal(result.success, true, result.error ?? "");
      assert.equal(text(result), "done 3");
      assert.deepEqual(result.data.structuredContent, { steps: 3 });
      // Progress on the call's token keeps coming after the task was created.
      assert.deepEqual(progress.map((report) => report.progress), [1, 2, 3]);
      const [taskId] = taskIds(log);
      assert.deepEqual(log.created, [{
        tool: "slow_task",
        taskId,
        augmented: true,
      }]);
      assert.equal(statuses[0]?.status, "working");
      assert.equal(statuses[0]?.taskId, taskId);
      assert.ok(statuses.some((s) => s.statusMessage === "step 2/3"));
      const methods = receivedMethods(log, taskId);
      assert.ok(methods.includes("tasks/get"), methods.join());
      assert.equal(methods.at(-1), "tasks/result");
      assert.ok(!methods.includes("tasks/cancel"));
    },
  );

  it(
    "polls tasks/get until the task completes (a task that only ends when polled)",
    {
      timeout: TEST_MS,
    },
    async () => {
      const log = newTaskServerLog();
      const adapter = await connected(log);
      const result = await adapter.invoke("poll_task", { polls: 3 });
      assert.equal(result.success, true, result.error ?? "");
      assert.equal(text(result), "done after 3 polls");
      const methods = receivedMethods(log, taskIds(log)[0]);
      assert.equal(methods.filter((m) => m === "tasks/get").length, 3);
    },
  );

  it(
    "a task that fails with an isError result is a server error with the server's text",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = await connected();
      const result = await adapter.invoke("failing_task", { mode: "isError" });
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /disk on fire/);
      assert.equal(result.data.isError, true);
    },
  );

  it(
    "a task that fails with a JSON-RPC error is a server error with its code",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = await connected();
      const result = await adapter.invoke("failing_task", { mode: "rpcError" });
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /disk on fire \(code -32050\)/);
    },
  );

  it(
    "a task the server cancels is errorKind cancelled with its reason, and no tasks/result is asked",
    {
      timeout: TEST_MS,
    },
    async () => {
      const log = newTaskServerLog();
      const adapter = await connected(log);
      const result = await adapter.invoke("server_cancelled_task", {});
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "cancelled");
      assert.match(result.error!, /cancelled by the server: .*quota exhausted/);
      assert.ok(
        !receivedMethods(log, taskIds(log)[0]).includes("tasks/result"),
      );
    },
  );

  it(
    "input_required: the task's elicitation reaches the handler, the answer completes it",
    {
      timeout: TEST_MS,
    },
    async () => {
      const asked: ElicitationRequest[] = [];
      const statuses: string[] = [];
      const adapter = await connected(newTaskServerLog(), {
        handlers: {
          elicitation: (request) => {
            asked.push(request);
            return { action: "accept", content: { colour: "teal" } };
          },
        },
      });
      const result = await adapter.invoke(
        "input_task",
        { kind: "elicitation" },
        {
          onTaskStatus: (status) => void statuses.push(status.status),
        },
      );
      assert.equal(result.success, true, result.error ?? "");
      assert.equal(text(result), "colour teal");
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.message, "Which colour?");
      assert.ok(
        (asked[0]!._meta as Record<string, unknown>)[RELATED_TASK],
        "the request names its task",
      );
      assert.ok(statuses.includes("input_required"), statuses.join());
    },
  );

  it("input_required: the task's sampling request reaches the handler", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = await connected(newTaskServerLog(), {
      handlers: {
        sampling: () => ({
          role: "assistant",
          model: "fake",
          content: { type: "text", text: "teal" },
        }),
      },
    });
    const result = await adapter.invoke("input_task", { kind: "sampling" });
    assert.equal(result.success, true, result.error ?? "");
    assert.equal(text(result), "model said teal");
  });

  it(
    "input_required without a handler: the server's failure comes back as a server error",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = await connected();
      const result = await adapter.invoke("input_task", {
        kind: "elicitation",
      });
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /no input/);
    },
  );

  it(
    "an optional-task tool runs inline by default and as a task with task: true; a forbidden one never",
    {
      timeout: TEST_MS,
    },
    async () => {
      const log = newTaskServerLog();
      const adapter = await connected(log);
      assert.equal(
        text(await adapter.invoke("optional_task", {})),
        "ran inline",
      );
      assert.equal(
        text(await adapter.invoke("optional_task", {}, { task: true })),
        "ran as a task",
      );
      assert.deepEqual(log.created.map((task) => task.augmented), [
        false,
        true,
      ]);
      const plain = await adapter.invoke("plain_tool", { message: "hi" }, {
        task: true,
      });
      assert.equal(text(plain), "hi");
      assert.equal(log.created.length, 2);
    },
  );

  it("checks a task's structuredContent against the output schema", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = await connected();
    const result = await adapter.invoke("slow_task", {
      steps: 1,
      gapMs: 0,
      violate: true,
    });
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /output schema: \/steps: /);
    assert.deepEqual(result.data.structuredContent, { steps: "1" });
  });

  it(
    "progress keeps a task alive past timeoutMs; without progress or change it times out and is cancelled",
    {
      timeout: TEST_MS,
    },
    async () => {
      const log = newTaskServerLog();
      const adapter = await connected(log);
      const alive = await adapter.invoke("slow_task", { steps: 6, gapMs: 60 }, {
        timeoutMs: 250,
      });
      assert.equal(alive.success, true, alive.error ?? "");

      // failing_task sits "working", unchanged, for delayMs.
      const idle = await adapter.invoke("failing_task", {
        mode: "isError",
        delayMs: 3_000,
      }, { timeoutMs: 200 });
      assert.equal(idle.errorKind, "timeout");
      assert.match(idle.error!, /no progress or change for 200 ms/);
      assert.match(idle.error!, /tasks\/cancel/);
      const taskId = taskIds(log).at(-1)!;
      assert.ok(
        await waitFor(
          () => receivedMethods(log, taskId).includes("tasks/cancel"),
          2_000,
        ),
      );
    },
  );

  it("totalTimeoutMs bounds the whole task, progress or not, and cancels it", {
    timeout: TEST_MS,
  }, async () => {
    const log = newTaskServerLog();
    const adapter = await connected(log);
    const started = performance.now();
    // The task would run 40 s: ending in a quarter of that is the deadline's doing.
    const result = await adapter.invoke("slow_task", {
      steps: 2_000,
      gapMs: 20,
    }, { timeoutMs: 1_000, totalTimeoutMs: 300 });
    assert.equal(result.errorKind, "timeout");
    assert.match(result.error!, /total deadline of 300 ms/);
    assert.ok(performance.now() - started < 10_000);
    const taskId = taskIds(log)[0]!;
    assert.ok(await waitFor(() => log.stopped.includes(taskId), 2_000));
  });

  it("aborting the signal cancels the task with tasks/cancel", {
    timeout: TEST_MS,
  }, async () => {
    const log = newTaskServerLog();
    const adapter = await connected(log);
    const abort = new AbortController();
    const result = await adapter.invoke("slow_task", {
      steps: 200,
      gapMs: 20,
    }, {
      signal: abort.signal,
      onProgress: (report) => {
        if (report.progress === 2) abort.abort(new Error("user gave up"));
      },
    });
    assert.equal(result.errorKind, "cancelled");
    assert.match(result.error!, /user gave up/);
    const taskId = taskIds(log)[0]!;
    assert.ok(await waitFor(() => log.stopped.includes(taskId), 2_000));
    assert.ok(receivedMethods(log, taskId).includes("tasks/cancel"));
  });

  it(
    "notifications/tasks/status wakes the poll: a long pollInterval does not delay the result",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = await connected(newTaskServerLog(), {}, {
        pollIntervalMs: 60_000,
      });
      const started = performance.now();
      const result = await adapter.invoke("slow_task", { steps: 2, gapMs: 20 });
      assert.equal(result.success, true, result.error ?? "");
      // The interval is clamped to 5 s; the status notifications beat it.
      assert.ok(performance.now() - started < 3_000);
    },
  );

  it("a disconnect under a running task rejects the call at once", {
    timeout: TEST_MS,
  }, async () => {
    const log = newTaskServerLog();
    const store = new FixtureTaskStore(4_000);
    const adapter = await connected(log, {}, { store });
    const { call } = await runningTask(adapter);
    const started = performance.now();
    await adapter.disconnect();
    await assert.rejects(call, MCPNotConnectedError);
    // The next poll is 4 s away: rejecting well before it is the disconnect's doing.
    assert.ok(performance.now() - started < 3_000);
    // The server's work would outlive its connection: end it quietly.
    await store.updateTaskStatus(taskIds(log)[0]!, "cancelled");
  });
});

describe("tasks over streamable HTTP", () => {
  it(
    "runs a task with progress (GET stream) and elicitation (tasks/result stream)",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { adapter } = await connectedOverHttp(cleanups, {
        handlers: {
          elicitation: () => ({ action: "accept", content: { colour: "red" } }),
        },
      });
      const progress: number[] = [];
      const slow = await adapter.invoke("slow_task", { steps: 3, gapMs: 30 }, {
        onProgress: (report) => void progress.push(report.progress),
      });
      assert.equal(slow.success, true, slow.error ?? "");
      assert.deepEqual(progress, [1, 2, 3]);
      const input = await adapter.invoke("input_task", { kind: "elicitation" });
      assert.equal(text(input), "colour red");
    },
  );

  it(
    "a session the server forgot under a running task fails the call clearly; the task id is never sent in the new session",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { server, adapter } = await connectedOverHttp(cleanups);
      const { call } = await runningTask(adapter);
      const [oldSession] = server.sessions.keys();
      // The server forgets the session (a restart): its next poll gets 404.
      server.sessions.clear();
      const result = await call;
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "connection");
      assert.match(result.error!, /renewed/);
      assert.match(result.error!, /never carried into another session/);
      const [newSession] = server.sessions.keys();
      assert.ok(newSession !== undefined && newSession !== oldSession);
      const taskId = taskIds(server.log)[0]!;
      const afterRenewal = server.requests.filter((r) =>
        r.headers["mcp-session-id"] === newSession &&
        r.rpcMethod?.startsWith("tasks/")
      );
      assert.deepEqual(
        afterRenewal,
        [],
        `task ${taskId} was asked about in the new session`,
      );
      // The renewed session serves later calls.
      const plain = await adapter.invoke("plain_tool", {
        message: "still here",
      });
      assert.equal(text(plain), "still here");
      // The old session's work would outlive it: end it quietly.
      await server.store.updateTaskStatus(taskId, "cancelled");
    },
  );
});
