import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MCPToolAdapter, type MCPToolResult } from "@cleveragents/mcp-adapter";
import { type HeldCall, LegacyPeer } from "../_legacy_peer.ts";

/**
 * A peer that holds the `tools/call` requests it gets until the test
 * answers them, all at once and synchronously, as a transport does with
 * the lines of one read.
 */
function heldPeer(): { peer: LegacyPeer; answerCalls(): number } {
  const held: HeldCall[] = [];
  const peer = new LegacyPeer((call) => held.push(call));
  return {
    peer,
    /** Answers every held call now, in this turn: `isError` for text "fail". */
    answerCalls() {
      const calls = held.splice(0);
      for (const { id, text } of calls) {
        peer.answer(id, {
          result: {
            content: [{ type: "text", text: String(text) }],
            ...(text === "fail" ? { isError: true } : {}),
          },
        });
      }
      return calls.length;
    },
  };
}

/** Lets everything queued run: a macrotask turn. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("invoke() and the microtask queue", () => {
  it("settles a call's envelope in the turn its response is read: one promise per call, no chain behind it", async () => {
    const { peer, answerCalls } = heldPeer();
    const adapter = new MCPToolAdapter(
      { name: "held", transport: "stdio", command: "unused" },
      { transport: peer },
    );
    try {
      await adapter.connect();
      await adapter.discoverTools();
      // The first call loads the envelopes and compiles the validator.
      const warm = adapter.invoke("echo", { text: "warm" });
      await settle();
      assert.equal(answerCalls(), 1);
      assert.equal((await warm).success, true);

      const texts = Array.from({ length: 64 }, (_, i) => `m${i}`);
      texts[7] = "fail";
      const results: (MCPToolResult | undefined)[] = texts.map(() => undefined);
      const calls = texts.map((text, i) =>
        adapter.invoke("echo", { text }).then((result) => {
          results[i] = result;
        })
      );
      await settle();
      assert.equal(answerCalls(), 64, "all 64 calls went out");
      // One turn of the microtask queue: each call's promise was settled
      // as its response was read, so its reaction has run by now. A chain
      // of promises (session, stages, envelope) would need more turns.
      await null;
      assert.deepEqual(
        results.map((result) => result?.success),
        texts.map((text) => text !== "fail"),
        "every envelope was there one turn after the responses",
      );
      assert.deepEqual(
        (results[0] as { data?: unknown }).data,
        { content: [{ type: "text", text: "m0" }] },
      );
      assert.match(String(results[7]?.error), /fail/);
      await Promise.all(calls);
    } finally {
      await adapter.disconnect();
    }
  });
});
