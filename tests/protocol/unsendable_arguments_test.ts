import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RawPeer, rawToolsPeer } from "./_raw_tools.ts";

describe("invoke() with arguments JSON cannot carry", () => {
  let peer: RawPeer;
  before(async () => {
    peer = await rawToolsPeer([
      {
        name: "num",
        inputSchema: { type: "object", properties: { a: { type: "number" } } },
      },
      { name: "open", inputSchema: { type: "object" } },
      { name: "bounded", inputSchema: { properties: { a: { minimum: 0 } } } },
      // cfworker cannot compile this $id; the JSON rule holds all the same.
      { name: "broken", inputSchema: { type: "object", $id: "http://[x" } },
    ]);
  });
  after(() => peer.adapter.disconnect());

  /** Calls `tool` and checks it failed as a validation error naming `expected`, never reaching the server. */
  async function refused(
    tool: string,
    args: Record<string, unknown>,
    expected: RegExp,
  ) {
    const before = peer.calls.length;
    const result = await peer.adapter.invoke(tool, args);
    assert.equal(result.success, false, `${tool} succeeded`);
    assert.equal(result.errorKind, "validation", result.error ?? "");
    assert.match(result.error!, expected);
    assert.equal(peer.calls.length, before, "the call reached the server");
  }

  it("refuses NaN and Infinity for a number, instead of sending null", async () => {
    await refused("num", { a: NaN }, /\/a: NaN is not a JSON number/);
    await refused("num", { a: -Infinity }, /\/a: -Infinity is not a JSON/);
    await refused("bounded", { a: Infinity }, /\/a: Infinity is not a JSON/);
    await refused("open", { deep: { list: [1, NaN] } }, /\/deep\/list\/1: NaN/);
  });

  it("refuses a BigInt, a circular value and a function, saying where", async () => {
    await refused("num", { a: 10n }, /\/a: a BigInt cannot be sent as JSON/);
    const loop: Record<string, unknown> = { name: "x" };
    loop.self = loop;
    await refused("open", { loop }, /\/loop\/self: .*circular reference/);
    await refused("open", { f: () => 1 }, /\/f: a function cannot be sent/);
    await refused("broken", { big: 1n }, /\/big: a BigInt/);
  });

  it("turns a getter that throws into a validation error instead of throwing", async () => {
    const args = {
      get a(): number {
        throw new Error("the getter blew up");
      },
    };
    await refused("num", args, /\/a: reading it threw: the getter blew up/);
    await refused("open", args, /\/a: reading it threw/);
  });

  it("still sends what JSON carries as written: finite numbers, undefined properties left out", async () => {
    const result = await peer.adapter.invoke("num", { a: 1.5, b: undefined });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(peer.calls.at(-1), { a: 1.5 });
  });
});
