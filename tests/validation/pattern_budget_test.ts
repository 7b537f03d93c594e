import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import {
  SCHEMA_STEP_BUDGET,
  STEP_LIMITS,
  vetPatterns,
} from "../../src/validation/_pattern_safety.ts";
import { rawToolsPeer } from "../protocol/_raw_tools.ts";

/**
 * Safe patterns whose analysis takes a while (up to ~300 steps, 5–20 ms on
 * an idle core), so that a wall-clock budget runs out under load.
 */
const SAFE = [
  "^[a-z]{2,8}$",
  "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$",
  "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$",
  "^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$",
  "^([a-z]{2,8}-){0,3}[a-z]{2,8}$",
];

/** A schema with one string property per pattern. */
function schemaOf(patterns: string[]): Record<string, unknown> {
  return {
    type: "object",
    properties: Object.fromEntries(
      patterns.map((pattern, i) => [`p${i}`, { type: "string", pattern }]),
    ),
  };
}

/** Runs `work` while every core is kept busy by spinning workers. */
async function underLoad<T>(work: () => Promise<T>): Promise<T> {
  const workers = Array.from(
    { length: availableParallelism() * 2 },
    () =>
      new Worker(
        `require("node:worker_threads").parentPort.postMessage("spinning"); for (;;) {}`,
        { eval: true },
      ),
  );
  try {
    await Promise.all(
      workers.map((worker) =>
        new Promise((resolve) => worker.once("message", resolve))
      ),
    );
    return await work();
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

describe("pattern vetting is bounded by steps, not by time", () => {
  it("gives a safe pattern the same verdict on a loaded and on an idle machine", async () => {
    const schema = schemaOf(SAFE);
    // Each run starts with no remembered verdicts, as a new process would.
    const loaded = await underLoad(() => vetPatterns(schema, false, new Map()));
    const idle = await vetPatterns(schema, false, new Map());
    assert.deepEqual(loaded.removed, idle.removed);
    assert.deepEqual(loaded.schema, idle.schema);
    assert.deepEqual(idle.removed, [], "every one of them is proven safe");
  });

  it("stops analysing a schema's patterns at its step budget, at the same pattern every time", async () => {
    // Unsafe patterns take every step their analysis is allowed.
    const unsafe = Array.from({ length: 150 }, (_, i) => `^(a+)+${i}$`);
    const schema = schemaOf([...unsafe, "^[a-z]{2,8}$"]);
    const verdicts = new Map();
    const first = await vetPatterns(schema, false, verdicts);
    const perPattern = STEP_LIMITS.reduce((sum, steps) => sum + steps, 0);
    assert.ok(
      verdicts.size <= Math.ceil(SCHEMA_STEP_BUDGET / perPattern),
      `${verdicts.size} patterns were analysed`,
    );
    // Past the budget even a safe pattern is left to the server.
    assert.ok(first.removed.includes("^[a-z]{2,8}$"));
    // Every verdict is remembered, unsafe ones too, and the budget counts
    // remembered verdicts alike: the second run finds the same.
    const analysed = [...verdicts.keys()];
    assert.ok(verdicts.get(unsafe[0]!)?.safe === false);
    const again = await vetPatterns(schema, false, verdicts);
    assert.deepEqual([...verdicts.keys()], analysed, "nothing analysed twice");
    assert.deepEqual(again.removed, first.removed);
    assert.deepEqual(
      (await vetPatterns(schema, false, new Map())).removed,
      first.removed,
    );
  });

  it("counts building the validator against the call's deadline", async () => {
    const unsafe = Array.from({ length: 150 }, (_, i) => `^(b+)+${i}$`);
    const { adapter, calls } = await rawToolsPeer([{
      name: "t",
      inputSchema: schemaOf(unsafe),
    }]);
    try {
      const late = await adapter.invoke("t", {}, { timeoutMs: 1 });
      assert.equal(late.errorKind, "timeout", late.error ?? "");
      assert.match(late.error!, /input schema was prepared for validation/);
      assert.equal(calls.length, 0);
      // The validator was finished meanwhile and is kept: the next call goes through.
      const next = await adapter.invoke("t", { p0: "x" });
      assert.equal(next.success, true, next.error ?? "");
      assert.equal(calls.length, 1);
    } finally {
      await adapter.disconnect();
    }
  });
});
