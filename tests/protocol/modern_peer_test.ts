/**
 * `subscriptions/listen` and cacheable tool lists against a scripted
 * modern peer: the edges a real server rarely shows on cue (a subscription
 * the server ends, a stale subscription id, a filter it will not honour, a
 * refusal, a ttlMs, a private list), and the cancellation a stdio client
 * owes the server when it disconnects.
 */
import { describe, it } from "node:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import assert from "node:assert/strict";
import {
  type JSONRPCMessage,
  MCPToolAdapter,
  type MCPTransport,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";

const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

type Id = string | number;

/** A modern (2026-07-28) server on a custom transport, scripted by the test. */
class ModernPeer implements MCPTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly sent: JSONRPCMessage[] = [];
  /** The ids of the listens received, in order. */
  readonly listens: Id[] = [];
  tools = ["first"];
  /** Input schemas by tool name (default `{ type: "object" }`). */
  schemas: Record<string, Record<string, unknown>> = {};
  /** What tools/list says about caching. */
  cache: Record<string, unknown> = { ttlMs: 0, cacheScope: "public" };
  /** `finishAuth()` calls (the adapter's new logins). */
  logins = 0;
  #waiters: (() => void)[] = [];

  constructor(
    readonly answerListen: (id: Id) => void = (id) =>
      this.push("notifications/subscriptions/acknowledged", id, {
        notifications: { toolsListChanged: true },
      }),
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    if (!("method" in message) || !("id" in message)) {
      return Promise.resolve();
    }
    const id = message.id as Id;
    const reply = (result: Record<string, unknown>) =>
      queueMicrotask(() =>
        this.onmessage?.({ jsonrpc: "2.0", id, result } as JSONRPCMessage)
      );
    switch (message.method) {
      case "server/discover":
        reply({
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: { listChanged: true } },
          _meta: {
            "io.modelcontextprotocol/serverInfo": {
              name: "peer",
              version: "1",
            },
          },
        });
        break;
      case "tools/list":
        reply({
          resultType: "complete",
          tools: this.tools.map((name) => ({
            name,
            inputSchema: this.schemas[name] ?? { type: "object" },
          })),
          ...this.cache,
        });
        break;
      case "tools/call":
        reply({
          resultType: "complete",
          content: [{ type: "text", text: "called" }],
        });
        break;
      case "subscriptions/listen":
        this.listens.push(id);
        queueMicrotask(() => {
          this.answerListen(id);
          for (const wake of this.#waiters.splice(0)) wake();
        });
        break;
    }
    return Promise.resolve();
  }

  /** A notification of subscription `id`. */
  push(method: string, id: Id, params: Record<string, unknown> = {}): void {
    this.onmessage?.({
      jsonrpc: "2.0",
      method,
      params: { ...params, _meta: { [SUBSCRIPTION]: id } },
    } as JSONRPCMessage);
  }

  /** Resolves once `count` listens have been received and answered. */
  async listened(count: number): Promise<void> {
    while (this.listens.length < count) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  finishAuth(): Promise<void> {
    this.logins++;
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }

  /** How many tools/list requests were received. */
  get listings(): number {
    return this.sent.filter((message) =>
      "method" in message && message.method === "tools/list"
    ).length;
  }
}

function adapterFor(peer: ModernPeer, notes: Error[] = []): MCPToolAdapter {
  return new MCPToolAdapter(
    { name: "peer", transport: "stdio", command: "unused" },
    { transport: peer, onError: (error) => notes.push(error) },
  );
}

describe("subscriptions/listen", () => {
  it("connect() waits for the acknowledgement; a change on the subscription reaches onToolsChanged", async () => {
    const peer = new ModernPeer();
    const adapter = adapterFor(peer);
    try {
      await adapter.connect();
      assert.equal(adapter.serverInfo?.era, "modern");
      assert.equal(peer.listens.length, 1);
      const listen = peer.sent.find((message) =>
        "method" in message && message.method === "subscriptions/listen"
      ) as { params: Record<string, unknown> };
      assert.deepEqual(listen.params.notifications, { toolsListChanged: true });
      assert.equal(
        (listen.params._meta as Record<string, unknown>)[
          "io.modelcontextprotocol/protocolVersion"
        ],
        "2026-07-28",
      );
      assert.deepEqual(
        (await adapter.discoverTools()).map((tool) => tool.name),
        ["first"],
      );
      let heard = 0;
      adapter.onToolsChanged(() => heard++);
      // Another subscription's notification (not ours) changes nothing.
      peer.push("notifications/tools/list_changed", "someone-else");
      assert.equal(heard, 0);
      peer.tools = ["first", "second"];
      peer.push("notifications/tools/list_changed", peer.listens[0]!);
      assert.equal(heard, 1);
      assert.deepEqual(
        (await adapter.discoverTools()).map((tool) => tool.name),
        ["first", "second"],
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("a subscription the server ends is opened again, and the list counts as changed (changes may have been missed)", async () => {
    const peer = new ModernPeer();
    const adapter = adapterFor(peer);
    try {
      await adapter.connect();
      let heard = 0;
      adapter.onToolsChanged(() => heard++);
      const first = peer.listens[0]!;
      // The server tears the subscription down (stdio's way).
      peer.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: first },
      } as JSONRPCMessage);
      await peer.listened(2);
      assert.notEqual(peer.listens[1], first);
      assert.equal(heard, 1);
      // The old subscription's notifications are dropped; the new one's count.
      peer.push("notifications/tools/list_changed", first);
      assert.equal(heard, 1);
      peer.push("notifications/tools/list_changed", peer.listens[1]!);
      assert.equal(heard, 2);
      // A graceful end (the listen's response) is followed by a new listen too.
      peer.onmessage?.({
        jsonrpc: "2.0",
        id: peer.listens[1]!,
        result: { resultType: "complete" },
      } as JSONRPCMessage);
      await peer.listened(3);
      assert.equal(heard, 3);
    } finally {
      await adapter.disconnect();
    }
  });

  it("disconnect() tells a stdio server the subscription is over (notifications/cancelled)", async () => {
    const peer = new ModernPeer();
    const adapter = adapterFor(peer);
    await adapter.connect();
    await adapter.disconnect();
    const cancelled = peer.sent.filter((message) =>
      "method" in message && message.method === "notifications/cancelled"
    ) as unknown as { params: { requestId: Id } }[];
    assert.deepEqual(cancelled.map((message) => message.params.requestId), [
      peer.listens[0],
    ]);
  });

  it("a server that will not honour tool-list changes, or refuses the listen, is noted and not asked again", async () => {
    const refusing = new ModernPeer((id) =>
      refusing.onmessage?.({
        jsonrpc: "2.0",
        id,
        error: { code: -32603, message: "Subscription limit reached" },
      } as JSONRPCMessage)
    );
    const unhonouredPeer = new ModernPeer((id) =>
      unhonouredPeer.push("notifications/subscriptions/acknowledged", id, {
        notifications: {},
      })
    );
    for (
      const [peer, said] of [
        [unhonouredPeer, /without tool-list changes/],
        [refusing, /refused it: Subscription limit reached \(code -32603\)/],
      ] as const
    ) {
      const notes: Error[] = [];
      const adapter = adapterFor(peer, notes);
      try {
        await adapter.connect();
        assert.equal(adapter.connected, true);
        assert.equal(notes.length, 1);
        assert.match(notes[0]!.message, said);
        assert.match(notes[0]!.message, /call discoverTools\(\)/);
        assert.equal(peer.listens.length, 1);
        // The tools still work.
        assert.equal((await adapter.discoverTools()).length, 1);
      } finally {
        await adapter.disconnect();
      }
    }
  });
});

describe("cacheable tool lists (ttlMs, cacheScope)", () => {
  it("registerTools() reuses a list while its ttlMs lasts, lists again once it is stale; invoke() keeps the last list", async () => {
    for (
      const [cache, listings] of [
        [{ ttlMs: 3_600_000, cacheScope: "public" }, 1],
        [{ ttlMs: 0, cacheScope: "public" }, 2],
        // An older server's list without ttlMs is stale at once, too.
        [{}, 2],
        [{ ttlMs: -5, cacheScope: "public" }, 2],
      ] as const
    ) {
      const peer = new ModernPeer();
      peer.cache = cache;
      const adapter = adapterFor(peer);
      try {
        await adapter.connect();
        await adapter.discoverTools();
        await adapter.registerTools(new ToolRegistry());
        assert.equal(peer.listings, listings, JSON.stringify(cache));
        // invoke() validates with the list it has: no listing per call.
        const called = await adapter.invoke("first", {});
        assert.equal(called.success, true, called.error ?? "");
        assert.equal(peer.listings, listings);
      } finally {
        await adapter.disconnect();
      }
    }
  });

  it("a private list is not kept across a new login; a public one is", async () => {
    for (const [scope, listings] of [["private", 2], ["public", 1]] as const) {
      const peer = new ModernPeer();
      peer.cache = { ttlMs: 3_600_000, cacheScope: scope };
      const adapter = adapterFor(peer);
      try {
        await adapter.connect();
        await adapter.discoverTools();
        await adapter.finishAuth("code");
        assert.equal(peer.logins, 1);
        await adapter.registerTools(new ToolRegistry());
        assert.equal(peer.listings, listings, scope);
      } finally {
        await adapter.disconnect();
      }
    }
  });
});

/** The conformance suite's JSON Schema 2020-12 fixture (SEP-1613, SEP-2106). */
const RICH_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: {
    properties: { contactMethod: { const: "phone" } },
    required: ["contactMethod"],
  },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

describe("JSON Schema as MCP 2026-07-28 says", () => {
  it("keeps every keyword of a 2020-12 schema, and checks arguments with all of them", async () => {
    const peer = new ModernPeer();
    peer.tools = ["rich"];
    peer.schemas.rich = RICH_SCHEMA;
    const adapter = adapterFor(peer);
    try {
      await adapter.connect();
      const [tool] = await adapter.discoverTools();
      assert.deepEqual(tool!.inputSchema, RICH_SCHEMA);
      const ok = await adapter.invoke("rich", {
        contactMethod: "phone",
        phone: "1",
        address: { city: "Paris" },
      });
      assert.equal(ok.success, true, ok.error ?? "");
      // if/then: contactMethod "phone" needs a phone; $ref into $defs is checked too.
      const noPhone = await adapter.invoke("rich", {
        contactMethod: "phone",
        email: "a@b",
      });
      assert.equal(noPhone.errorKind, "validation");
      const badAddress = await adapter.invoke("rich", {
        email: "a@b",
        address: { city: 5 },
      });
      assert.match(badAddress.error ?? "", /\/address\/city/);
    } finally {
      await adapter.disconnect();
    }
  });

  it("never fetches a network $ref, and refuses arguments it would have to check against one", async () => {
    let fetched = 0;
    const canary = createServer((_request, response) => {
      fetched++;
      response.writeHead(200, { "content-type": "application/json" })
        .end('{"type":"object"}');
    });
    await new Promise<void>((resolve) =>
      canary.listen(0, "127.0.0.1", resolve)
    );
    const url = `http://127.0.0.1:${
      (canary.address() as AddressInfo).port
    }/profile-schema.json`;
    const peer = new ModernPeer();
    peer.tools = ["lookup_user"];
    peer.schemas.lookup_user = {
      type: "object",
      $defs: { userId: { type: "string", pattern: "^[a-z0-9-]+$" } },
      properties: { id: { $ref: "#/$defs/userId" }, profile: { $ref: url } },
      required: ["id"],
    };
    const adapter = adapterFor(peer);
    try {
      await adapter.connect();
      await adapter.discoverTools();
      // Arguments that never reach the network $ref are checked as usual.
      const plain = await adapter.invoke("lookup_user", { id: "ada-1" });
      assert.equal(plain.success, true, plain.error ?? "");
      const badId = await adapter.invoke("lookup_user", { id: "NOT OK" });
      assert.equal(badId.errorKind, "validation");
      const reaching = await adapter.invoke("lookup_user", {
        id: "ada-1",
        profile: { displayName: "Ada" },
      });
      assert.equal(reaching.success, false);
      assert.equal(reaching.errorKind, "validation");
      assert.match(reaching.error ?? "", /never fetches a \$ref/);
      assert.ok(reaching.error!.includes(url));
      assert.equal(fetched, 0);
    } finally {
      await adapter.disconnect();
      await new Promise((resolve) => canary.close(resolve));
    }
  });
});
