/**
 * A task survives the worker that started it, with real processes
 * (tests/fixtures/task_worker.ts), a real redis-server (tests/_redis.ts)
 * as their task store, and a task server on loopback, on both eras: the
 * 2025-11-25 task fixture over streamable HTTP (its tasks bound to no
 * session) and the 2026-07-28 tasks-extension server. A worker starts a
 * task that runs until the test ends it and is SIGKILLed once the task
 * exists; a second worker resumes it from Redis (its lease taken once the
 * dead worker's runs out); a third that tries while the second polls is
 * refused by the lease and sends no `tasks/get`; the second gets the
 * task's result, and the store is left empty. Every wait is for an event.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { RedisTaskStore } from "@cleveragents/mcp-adapter/tasks";
import { redisForTests } from "../_redis.ts";
import { taskHttpServer } from "../_task_http.ts";
import { startModernHttp } from "../_modern.ts";
import { buildTaskServer, taskLog } from "../_modern_tasks.ts";
import { workerPool } from "../_worker.ts";

const TEST_TIMEOUT_MS = 120_000;
const LEASE_MS = 1_000;
const startWorker = workerPool("task_worker");

/** An era's server, a task tool that runs until `finish`, and the result it ends with. */
interface Era {
  era: "legacy" | "modern";
  start(): Promise<{ url: string; close(): Promise<void> }>;
  tool: string;
  args: Record<string, unknown>;
  /** Ends the task; resolves with the text of its result. */
  finish(taskId: string): Promise<string>;
}

let legacy: Awaited<ReturnType<typeof taskHttpServer>> | undefined;
const eras: Era[] = [
  {
    era: "legacy",
    start: async () => legacy = await taskHttpServer({ sessionBound: false }),
    // Completes on its millionth poll in the session that made it: never,
    // here, until the test stores its result.
    tool: "poll_task",
    args: { polls: 1_000_000 },
    finish: async (taskId) => {
      await legacy!.store.storeTaskResult(taskId, "completed", {
        content: [{ type: "text", text: "survived its worker" }],
      });
      return "survived its worker";
    },
  },
  {
    era: "modern",
    start: () => startModernHttp("reject", buildTaskServer),
    tool: "forever",
    args: {},
    finish: (taskId) => {
      const task = taskLog.tasks.get(taskId)!;
      task.status = "completed";
      task.updated = Date.now();
      return Promise.resolve(`forever done after ${task.polls} polls`);
    },
  },
];

describe("a task survives the worker that started it", {
  skip: process.platform === "win32" && "needs redis-server",
}, () => {
  const redis = redisForTests();

  for (const era of eras) {
    it(
      `${era.era}: SIGKILL the worker, a second resumes from Redis, a third is held off by the lease`,
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        const server = await era.start();
        try {
          const prefix = `survive-${crypto.randomUUID()}:`;
          const store = new RedisTaskStore(redis.client(), {
            prefix,
            leaseMs: LEASE_MS,
          });
          const where = {
            url: server.url,
            socket: redis.server().socket,
            prefix,
            leaseMs: LEASE_MS,
          };
          const first = startWorker({
            ...where,
            mode: "start",
            tool: era.tool,
            args: era.args,
          });
          const taskId = (await first.line("created ")).slice(8);
          first.child.kill("SIGKILL");
          await first.exited;

          const [handle] = await store.list("tasks");
          assert.ok(handle, "the task's handle is in Redis");
          assert.equal(handle.taskId, taskId);
          assert.equal(handle.era, era.era);
          assert.equal(handle.tool, era.tool);

          const second = startWorker({
            ...where,
            mode: "resume",
            id: handle.id,
          });
          await second.line("resumed"); // it holds the lease and polls
          const third = startWorker({
            ...where,
            mode: "resume",
            id: handle.id,
            waitMs: 0,
          });
          assert.equal(
            await Promise.race([third.line("refused "), third.line("resumed")]),
            "refused task_leased",
          );
          assert.equal(
            await third.line("polls "),
            "polls 0",
            "it never polled",
          );
          assert.equal(await third.exited, 0);

          const text = await era.finish(taskId);
          const done = JSON.parse((await second.line("done ")).slice(5));
          assert.deepEqual(
            {
              success: done.success,
              error: done.error,
              content: done.data.content,
            },
            { success: true, error: null, content: [{ type: "text", text }] },
          );
          assert.notEqual(await second.line("polls "), "polls 0");
          assert.equal(await second.exited, 0);
          assert.deepEqual(await store.list(), [], "the ended task is removed");
          assert.deepEqual(await redis.client().keys(`${prefix}*`), []);
        } finally {
          await server.close();
        }
      },
    );
  }
});
