import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type JSONRPCMessage,
  MCPToolAdapter,
  type MCPToolResult,
  type MCPTransport,
} from "@cleveragents/mcp-adapter";

/**
 * A 2025-era peer with one tool, `echo`, that holds the `tools/call`
 * requests it gets until the test answers them, all at once and
 * synchronously, as a transport does with the lines of one read.
 */
class HeldPeer implements MCPTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly #held: { id: unknown; text: unknown }[] = [];

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!("method" in message) || !("id" in message)) {
      return Promise.resolve();
    }
    const { id, method, params } = message as {
      id: unknown;
      method: string;
      params?: { arguments?: { text?: unknown } };
    };
    const answer = (body: Record<string, unknown>) =>
      queueMicrotask(() =>
        this.onmessage?.({ jsonrpc: "2.0", id, ...body } as JSONRPCMessage)
      );
    if (method === "initialize") {
      answer({
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "held", version: "1" },
        },
      });
    } else if (method === "tools/list") {
      answer({
        result: {
          tools: [{
            name: "echo",
            inputSchema: {
              type: "object",
              properties: { text: { type: "string" } },
              required: ["text"],
            },
          }],
        },
      });
    } else if (method === "tools/call") {
      this.#held.push({ id, text: params?.arguments?.text });
    } else {
      answer({ error: { code: -32601, message: "Method not found" } });
    }
    return Promise.resolve();
  }

  /** Answers every held call now, in this turn: `isError` for text "fail". */
  answerCalls(): number {
    const held = this.#held.splice(0);
    for (const { id, text } of held) {
      this.onmessage?.({
        jsonrpc: "2.0",
        id,
        result: {
          content: [{ type: "text", text: String(text) }],
          ...(text === "fail" ? { isError: true } : {}),
        },
      } as JSONRPCMessage);
    }
    return held.length;
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Lets everything queued run: a macrotask turn. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("invoke() and the microtask queue", () => {
  it("settles a call's envelope in the turn its response is read: one promise per call, no chain behind it", async () => {
    const peer = new HeldPeer();
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
      assert.equal(peer.answerCalls(), 1);
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
      assert.equal(peer.answerCalls(), 64, "all 64 calls went out");
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
