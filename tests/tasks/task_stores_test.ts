/**
 * The task store contract, on each store: in memory, in a file, and in
 * Redis (a real redis-server, tests/_redis.ts). A handle is kept and
 * listed per server, oldest first; its lease goes to one owner at a time,
 * is renewed by its holder only, and is free again once released, or
 * once it ran out (a store with a short lease: the holder crashed); a
 * handle past its expiry is gone; a removed handle leaves nothing behind.
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FileTaskStore,
  MemoryTaskStore,
  RedisTaskStore,
  type TaskHandle,
  taskHandleId,
  type TaskStore,
} from "@cleveragents/mcp-adapter/tasks";
import { redisForTests } from "../_redis.ts";
import { waitFor } from "../_helpers.ts";

function handle(
  taskId: string,
  extra: Partial<TaskHandle> = {},
): TaskHandle {
  return {
    id: `id-${taskId}`,
    server: "research",
    endpoint: "0123456789abcdef",
    taskId,
    era: "modern",
    tool: "slow",
    argumentsHash: "00".repeat(32),
    pollIntervalMs: 100,
    createdAt: Date.now(),
    ...extra,
  };
}

describe("task stores", () => {
  const redis = redisForTests();
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-adapter-task-store-"));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stores: [string, (leaseMs?: number) => TaskStore][] = [
    ["memory", (leaseMs) => new MemoryTaskStore({ leaseMs })],
    [
      "file",
      (leaseMs) => new FileTaskStore(join(dir, "tasks.json"), { leaseMs }),
    ],
    [
      "redis",
      (leaseMs) =>
        new RedisTaskStore(redis.client(), {
          leaseMs,
          prefix: `tasks-${crypto.randomUUID()}:`,
        }),
    ],
  ];

  for (const [kind, open] of stores) {
    it(`${kind}: keeps handles per server, oldest first, and removes them whole`, async () => {
      const store = open();
      const first = handle("t1", { createdAt: 1_000 });
      const second = handle("t2", { createdAt: 2_000 });
      const other = handle("t3", { server: "notes" });
      await store.put(second, "w1");
      await store.put(first, "w1");
      await store.put(other, "w2");
      assert.deepEqual(await store.get(first.id), first);
      assert.deepEqual(await store.list("research"), [first, second]);
      assert.deepEqual(
        (await store.list()).map((task) => task.id).sort(),
        [first.id, second.id, other.id].sort(),
      );
      await store.remove(first.id);
      assert.equal(await store.get(first.id), undefined);
      assert.deepEqual(await store.list("research"), [second]);
      // Nothing of it remains: its lease is free for anyone.
      assert.equal(await store.claim(first.id, "w9"), true);
    });

    it(`${kind}: the lease goes to one owner at a time, and to another once released`, async () => {
      const store = open();
      const task = handle("t1");
      await store.put(task, "creator");
      assert.equal(await store.claim(task.id, "second"), false);
      assert.equal(await store.claim(task.id, "creator"), true);
      assert.equal(await store.renew(task.id, "creator"), true);
      assert.equal(await store.renew(task.id, "second"), false);
      await store.release(task.id, "second"); // not theirs: nothing happens
      assert.equal(await store.claim(task.id, "third"), false);
      await store.release(task.id, "creator");
      const claims = await Promise.all(
        ["second", "third", "fourth"].map((owner) =>
          store.claim(task.id, owner)
        ),
      );
      assert.equal(claims.filter(Boolean).length, 1, "exactly one claim wins");
    });

    it(`${kind}: a lease that is not renewed runs out`, async () => {
      const store = open(50);
      const task = handle("t1");
      await store.put(task, "crashed");
      assert.equal(await store.claim(task.id, "next"), false);
      // Taken once the crashed holder's lease has run out.
      assert.ok(await waitFor(() => store.claim(task.id, "next"), 10_000));
      assert.equal(await store.renew(task.id, "crashed"), false);
      assert.equal(await store.renew(task.id, "next"), true);
    });

    it(`${kind}: a handle past its expiry is gone`, async () => {
      const store = open();
      const gone = handle("t1", { expiresAt: Date.now() - 1 });
      const kept = handle("t2", { expiresAt: Date.now() + 60_000 });
      await store.put(gone, "w1");
      await store.put(kept, "w1");
      assert.equal(await store.get(gone.id), undefined);
      assert.deepEqual(await store.list(), [kept]);
    });
  }

  it("file: written 0600 beside its lock, and a file that is not JSON is named", async () => {
    const path = join(dir, "tasks.json");
    const store = new FileTaskStore(path);
    await store.put(handle("t1"), "w1");
    if (process.platform !== "win32") {
      assert.equal((await stat(path)).mode & 0o777, 0o600);
    }
    await store.remove("id-t1");
    assert.deepEqual(await readdir(dir), ["tasks.json"]);
    await writeFile(path, "{ not json");
    await assert.rejects(store.list(), /tasks\.json is not JSON; delete it/);
  });

  it("redis: keys are namespaced, and nothing is left once a handle is removed", async () => {
    const prefix = `tasks-${crypto.randomUUID()}:`;
    const store = new RedisTaskStore(redis.client(), { prefix });
    const task = handle("t1");
    await store.put(task, "w1");
    assert.deepEqual((await redis.client().keys(`${prefix}*`)).sort(), [
      `${prefix}lease:${task.id}`,
      `${prefix}open`,
      `${prefix}task:${task.id}`,
    ]);
    await store.remove(task.id);
    assert.deepEqual(await redis.client().keys(`${prefix}*`), []);
  });

  it("handle ids are 16 hex digits, the same for the same server, URL and task", async () => {
    const id = await taskHandleId("research", "0123456789abcdef", "task-1");
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.equal(
      await taskHandleId("research", "0123456789abcdef", "task-1"),
      id,
    );
    assert.notEqual(
      await taskHandleId("notes", "0123456789abcdef", "task-1"),
      id,
    );
  });

  it("refuses a lease that is not a positive number", () => {
    for (const leaseMs of [0, -5, NaN]) {
      assert.throws(
        () => new MemoryTaskStore({ leaseMs }),
        /leaseMs must be a positive number/,
      );
    }
  });
});
