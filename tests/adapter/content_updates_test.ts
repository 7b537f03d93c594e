/**
 * Change notices and caching of resources across a connection's life: a
 * subscription survives a reconnect on both eras (and its listener is told
 * a change may have been missed), an unsubscribed URI is no longer
 * followed, and a modern server's `ttlMs` decides how long a list is kept.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { McpServer } from "@modelcontextprotocol/server";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { everythingStdioAdapter } from "../_everything.ts";
import { modernStdioCommand, startModernHttp } from "../_modern.ts";
import { addContent } from "../_modern_content.ts";

const TEST_MS = 60_000;

/** Calls of a listener, and a promise for the next one. */
function recorder() {
  const calls: string[] = [];
  let next = Promise.withResolvers<string>();
  return {
    calls,
    listener: (uri: string) => {
      calls.push(uri);
      next.resolve(uri);
      next = Promise.withResolvers<string>();
    },
    /** The next call from now on. */
    next: () => next.promise,
  };
}

describe("resource subscriptions across a connection's life", () => {
  it("modern: survive a reconnect, and stop once unsubscribed", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = new MCPToolAdapter({
      name: "modern",
      transport: "stdio",
      ...modernStdioCommand("reject"),
    });
    try {
      await adapter.connect({ timeoutMs: 45_000 });
      const doc2 = recorder();
      const stop2 = await adapter.subscribeResource(
        "fixture://doc/2",
        doc2.listener,
      );
      // A new server process knows nothing of the subscription: it is made
      // again, and the listener told that a change may have been missed.
      const missed = doc2.next();
      await adapter.reconnect({ timeoutMs: 45_000 });
      assert.equal(await missed, "fixture://doc/2");
      const touched = doc2.next();
      assert.ok(
        (await adapter.invoke("touch", { uri: "fixture://doc/2" })).success,
      );
      assert.equal(await touched, "fixture://doc/2");

      // Unsubscribed: an update of doc/2 reaches nobody, while doc/3's,
      // sent after it on the same stream, arrives.
      await stop2();
      const doc3 = recorder();
      const stop3 = await adapter.subscribeResource(
        "fixture://doc/3",
        doc3.listener,
      );
      const before = doc2.calls.length;
      const third = doc3.next();
      await adapter.invoke("touch", { uri: "fixture://doc/2" });
      await adapter.invoke("touch", { uri: "fixture://doc/3" });
      assert.equal(await third, "fixture://doc/3");
      assert.equal(doc2.calls.length, before);
      await stop3();
    } finally {
      await adapter.disconnect();
    }
  });

  it("2025 era: a subscription is made again after a reconnect", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = everythingStdioAdapter();
    try {
      await adapter.connect({ timeoutMs: 45_000 });
      const [resource] = await adapter.listResources();
      const seen = recorder();
      await adapter.subscribeResource(resource!.uri, seen.listener);
      const missed = seen.next();
      await adapter.reconnect({ timeoutMs: 45_000 });
      assert.equal(await missed, resource!.uri);
      // The new server process got resources/subscribe: its updates come.
      const update = seen.next();
      assert.ok(
        (await adapter.invoke("toggle-subscriber-updates", {})).success,
      );
      assert.equal(await update, resource!.uri);
    } finally {
      await adapter.disconnect();
    }
  });

  it("a server without resource subscriptions says so", {
    timeout: TEST_MS,
  }, async () => {
    const server = await startModernHttp("reject", (changed, notify) => {
      const plain = new McpServer({ name: "plain", version: "1.0.0" });
      addContent(plain, notify);
      void changed;
      return plain;
    });
    const adapter = new MCPToolAdapter({
      name: "plain",
      transport: "streamable-http",
      url: server.url,
    });
    try {
      await adapter.connect();
      await assert.rejects(
        adapter.subscribeResource("fixture://doc/1", () => {}),
        (error: Error & { code?: string }) =>
          error.code === "not_supported" &&
          /does not offer resource subscriptions/.test(error.message),
      );
    } finally {
      await adapter.disconnect();
      await server.close();
    }
  });
});

describe("a modern server's cache hints", () => {
  let close: () => Promise<void> = () => Promise.resolve();
  after(() => close());

  it("keeps a list for its ttlMs and lists again when it is 0", {
    timeout: TEST_MS,
  }, async () => {
    const server = await startModernHttp("reject", (_changed, notify) => {
      const cached = new McpServer({ name: "cached", version: "1.0.0" }, {
        cacheHints: {
          "resources/list": { ttlMs: 3_600_000, cacheScope: "public" },
          "prompts/list": { ttlMs: 0, cacheScope: "public" },
        },
      });
      addContent(cached, notify);
      return cached;
    });
    close = () => server.close();
    const adapter = new MCPToolAdapter({
      name: "cached",
      transport: "streamable-http",
      url: server.url,
    });
    const count = (method: string) =>
      server.seen.filter((request) => request.method === method).length;
    try {
      await adapter.connect();
      await adapter.listResources();
      const pages = count("resources/list");
      assert.equal(pages, 3, "three pages");
      await adapter.listResources();
      assert.equal(count("resources/list"), pages, "served from the cache");
      await adapter.listResources({ refresh: true });
      assert.equal(count("resources/list"), 2 * pages, "refresh lists again");
      await adapter.listPrompts();
      const prompts = count("prompts/list");
      await adapter.listPrompts();
      assert.equal(
        count("prompts/list"),
        2 * prompts,
        "ttlMs 0: stale at once",
      );
    } finally {
      await adapter.disconnect();
    }
  });
});
