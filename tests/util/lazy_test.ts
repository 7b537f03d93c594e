import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lazy } from "../../src/util/lazy.ts";

describe("lazy()", () => {
  it("loads once, on the first load(), and shares that load with concurrent callers", async () => {
    let loads = 0;
    const value = lazy(() => Promise.resolve(++loads));
    assert.equal(loads, 0, "nothing is loaded before it is asked for");
    assert.equal(value.value, undefined);
    const [a, b] = await Promise.all([value.load(), value.load()]);
    assert.deepEqual([a, b, loads], [1, 1, 1]);
    assert.equal(value.value, 1, "the loaded value is read without a promise");
    assert.equal(await value.load(), 1);
    assert.equal(loads, 1);
  });

  it("tries a failed load again on the next call", async () => {
    let calls = 0;
    const value = lazy(() =>
      ++calls === 1
        ? Promise.reject(new Error("offline"))
        : Promise.resolve("ok")
    );
    await assert.rejects(value.load(), /offline/);
    assert.equal(value.value, undefined);
    assert.equal(await value.load(), "ok");
    assert.equal(calls, 2);
  });
});
