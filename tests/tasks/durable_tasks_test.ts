/**
 * Durable tasks in one process, on both eras: the 2025-11-25 task fixture
 * over streamable HTTP (its tasks bound to no session, so they outlive the
 * session that made them) and the 2026-07-28 tasks-extension server over
 * HTTP. A call that becomes a task is kept in the task store while it runs
 * and removed when it ends; one cut off by `disconnect()` stays, and
 * another adapter resumes it and gets the envelope `invoke()` would have
 * returned; the hub resumes open tasks on `start({ resumeTasks })`. The
 * survival of a SIGKILLed worker is task_survival_test.ts.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPAdapterError,
  MCPNotConnectedError,
  MCPToolAdapter,
  MCPToolHub,
  type MCPToolResult,
  type TaskHandle,
} from "@cleveragents/mcp-adapter";
import { MemoryTaskStore } from "@cleveragents/mcp-adapter/tasks";
import { type TaskHttpServer, taskHttpServer } from "../_task_http.ts";
import { type ModernHttpServer, startModernHttp } from "../_modern.ts";
import { buildTaskServer } from "../_modern_tasks.ts";
import { releaseAfterEach } from "../_helpers.ts";
import { linkedAdapter } from "../_in_memory.ts";
import { createTaskServer } from "../_task_server.ts";

const TEST_MS = 30_000;
const cleanups = releaseAfterEach("together");

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * An envelope without its duration, and without the task id the result
 * names (each run is a task of its own): what two runs of one call share.
 */
function withoutDuration(result: MCPToolResult): unknown {
  const { durationMs: _, ...rest } = result;
  return JSON.parse(
    JSON.stringify(rest),
    (key, value) => key === RELATED_TASK ? "(the task)" : value,
  );
}

/**
 * Each era's server, a task tool that completes by itself (2025: after its
 * steps, in the server; 2026: after a number of polls) and one that fails.
 */
const eras = [
  {
    era: "legacy",
    tool: "slow_task",
    args: { steps: 3, gapMs: 20 },
    failing: ["failing_task", { mode: "isError", delayMs: 20 }],
    start: () => taskHttpServer({ sessionBound: false }),
  },
  {
    era: "modern",
    tool: "slow",
    args: { polls: 3 },
    failing: ["fail", {}],
    start: () => startModernHttp("reject", buildTaskServer),
  },
] as const;

for (const { era, tool, args, failing, start } of eras) {
  describe(`durable tasks (${era})`, () => {
    let server: TaskHttpServer | ModernHttpServer;

    before(async () => {
      server = await start();
    });

    after(async () => {
      await server?.close();
    });

    async function adapter(store: MemoryTaskStore): Promise<MCPToolAdapter> {
      const made = new MCPToolAdapter(
        { name: "tasks", transport: "streamable-http", url: server.url },
        { taskStore: store },
      );
      cleanups.push(() => made.disconnect());
      await made.connect();
      return made;
    }

    /** Starts `name` as a task on `first` and disconnects it under the task; returns the kept handle. */
    async function cutOff(
      store: MemoryTaskStore,
      name: string,
      args: Record<string, unknown>,
    ): Promise<TaskHandle> {
      const first = await adapter(store);
      let created = false;
      await assert.rejects(
        first.invoke(name, args, {
          onTaskStatus: () => {
            if (!created) void first.disconnect();
            created = true;
          },
        }),
        (error) => error instanceof MCPNotConnectedError,
      );
      const open = await store.list("tasks");
      assert.equal(open.length, 1, "the task outlives its call");
      return open[0]!;
    }

    it("a running task is in the store; a finished one is removed", {
      timeout: TEST_MS,
    }, async () => {
      const store = new MemoryTaskStore();
      const made = await adapter(store);
      let running: Promise<TaskHandle[]> | undefined;
      const result = await made.invoke(tool, args, {
        // Recorded before its first status is reported (the memory
        // store's list is taken when called: the task may end soon after).
        onTaskStatus: () => running ??= store.list("tasks"),
      });
      assert.equal(result.success, true, result.error ?? "");
      assert.deepEqual((await running)?.map((task) => task.tool), [tool]);
      assert.deepEqual(await store.list(), []);
    });

    it(
      "a task cut off by disconnect() is resumed by another adapter, with the envelope invoke() returns",
      { timeout: TEST_MS },
      async () => {
        const expected = await (await adapter(new MemoryTaskStore())).invoke(
          tool,
          args,
        );
        assert.equal(expected.success, true, expected.error ?? "");

        const store = new MemoryTaskStore();
        const kept = await cutOff(store, tool, args);
        assert.equal(kept.era, era);
        assert.equal(kept.tool, tool);
        assert.match(kept.id, /^[0-9a-f]{16}$/);
        assert.match(kept.argumentsHash, /^[0-9a-f]{64}$/);
        assert.ok(kept.expiresAt === undefined || kept.expiresAt > Date.now());

        const second = await adapter(store);
        assert.deepEqual(await second.openTasks(), [kept]);
        const statuses: string[] = [];
        const resumed = await second.resumeTask(kept.id, {
          onTaskStatus: (status) => statuses.push(status.status),
        });
        assert.deepEqual(withoutDuration(resumed), withoutDuration(expected));
        assert.equal(statuses.at(-1), "completed");
        assert.deepEqual(await store.list(), [], "removed once it ended");
        await assert.rejects(
          second.resumeTask(kept.id),
          (error) =>
            error instanceof MCPAdapterError &&
            error.code === "task_not_found",
        );
      },
    );

    it("a resumed task that fails is the failure invoke() reports", {
      timeout: TEST_MS,
    }, async () => {
      const [name, failingArgs] = failing;
      const expected = await (await adapter(new MemoryTaskStore())).invoke(
        name,
        failingArgs,
      );
      assert.equal(expected.success, false);
      const store = new MemoryTaskStore();
      const kept = await cutOff(store, name, failingArgs);
      const resumed = await (await adapter(store)).resumeTask(kept.id);
      assert.deepEqual(withoutDuration(resumed), withoutDuration(expected));
      assert.deepEqual(await store.list(), []);
    });

    it(
      "a task another worker holds is not polled; one of another server is refused",
      {
        timeout: TEST_MS,
      },
      async () => {
        const store = new MemoryTaskStore();
        const kept = await cutOff(store, tool, args);
        assert.equal(await store.claim(kept.id, "another-worker"), true);
        const second = await adapter(store);
        await assert.rejects(
          second.resumeTask(kept.id, { waitMs: 0 }),
          (error) =>
            error instanceof MCPAdapterError && error.code === "task_leased" &&
            /another worker/.test(error.message),
        );
        const elsewhere = new MCPToolAdapter(
          { name: "other", transport: "streamable-http", url: server.url },
          { taskStore: store },
        );
        await assert.rejects(
          elsewhere.resumeTask(kept.id, { waitMs: 0 }),
          (error) =>
            error instanceof MCPAdapterError &&
            error.code === "task_elsewhere",
        );
        assert.deepEqual(await store.list(), [kept], "both left it alone");
      },
    );

    it("the hub resumes its servers' open tasks on start({ resumeTasks })", {
      timeout: TEST_MS,
    }, async () => {
      const store = new MemoryTaskStore();
      const kept = await cutOff(store, tool, args);
      const hub = new MCPToolHub(
        [{ name: "tasks", transport: "streamable-http", url: server.url }],
        { adapterOptions: { taskStore: store } },
      );
      cleanups.push(() => hub.close());
      const resumed = new Promise<[MCPToolResult, TaskHandle]>((resolve) =>
        void hub.start({
          resumeTasks: (result, task) => resolve([result, task]),
        })
      );
      const [result, task] = await resumed;
      assert.deepEqual(task, kept);
      assert.equal(result.success, true, result.error ?? "");
      assert.deepEqual(await store.list(), []);
    });
  });
}

describe("durable tasks: what is not recorded", () => {
  it("a store that fails is reported to onError and the call goes on", {
    timeout: TEST_MS,
  }, async () => {
    const server = await startModernHttp("reject", buildTaskServer);
    cleanups.push(() => server.close());
    const errors: Error[] = [];
    const broken = new MemoryTaskStore();
    broken.put = () => Promise.reject(new Error("the store is down"));
    const adapter = new MCPToolAdapter(
      { name: "tasks", transport: "streamable-http", url: server.url },
      { taskStore: broken, onError: (error) => errors.push(error) },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    const result = await adapter.invoke("slow", { polls: 2 });
    assert.equal(result.success, true, result.error ?? "");
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof MCPAdapterError);
    assert.equal(errors[0].code, "task_store");
    assert.match(errors[0].message, /failed to record a task/);
  });

  it("a task of a stdio server is not recorded: it ends with the process", {
    timeout: TEST_MS,
  }, async () => {
    const store = new MemoryTaskStore();
    const { adapter } = linkedAdapter(() => createTaskServer(), {
      taskStore: store,
    });
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    let running: Promise<TaskHandle[]> | undefined;
    const result = await adapter.invoke("slow_task", { steps: 1, gapMs: 1 }, {
      onTaskStatus: () => running ??= store.list(),
    });
    assert.ok(running, "it ran as a task");
    assert.deepEqual(await running, []);
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(await store.list(), []);
  });
});
