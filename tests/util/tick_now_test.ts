import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { tickNow } from "../../src/util/time.ts";
import { connectedAdapter, createTestServer } from "../_in_memory.ts";

/** Counts `performance.now()` reads while `body` runs; the clock itself is untouched. */
async function countingClockReads<T>(
  body: (reads: () => number) => Promise<T>,
): Promise<T> {
  const real = performance.now;
  let reads = 0;
  performance.now = function (this: Performance) {
    reads++;
    return real.call(this);
  };
  try {
    return await body(() => reads);
  } finally {
    // The own property goes; the prototype's method is back.
    delete (performance as { now?: unknown }).now;
    assert.equal(performance.now, real);
  }
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("tickNow()", () => {
  it("reads the clock once for a turn of the microtask queue, and again after it", async () => {
    await nextTask();
    await countingClockReads(async (reads) => {
      const first = tickNow();
      for (let i = 0; i < 63; i++) assert.equal(tickNow(), first);
      assert.equal(reads(), 1);
      await nextTask();
      const later = tickNow();
      assert.equal(reads(), 2);
      assert.ok(later >= first, "the clock does not go back");
    });
  });

  it("is what 64 calls started together read: once, not once each, with sane durations", async () => {
    const adapter = await connectedAdapter(createTestServer(), "clock");
    try {
      await adapter.discoverTools();
      // Warm: the envelopes and the validator load on the first call.
      assert.equal(
        (await adapter.invoke("echo", { message: "w" })).success,
        true,
      );
      await nextTask();
      const results = await countingClockReads(async (reads) => {
        const calls = Array.from(
          { length: 64 },
          (_, i) => adapter.invoke("echo", { message: `m${i}` }),
        );
        assert.equal(reads(), 1, "the 64 calls started at one reading");
        return await Promise.all(calls);
      });
      for (const [i, result] of results.entries()) {
        assert.ok(result.success, "the call succeeded");
        assert.deepEqual(result.data.content?.[0], {
          type: "text",
          text: `m${i}`,
        });
        assert.ok(result.durationMs >= 0 && result.durationMs < 60_000);
      }
    } finally {
      await adapter.disconnect();
    }
  });
});
