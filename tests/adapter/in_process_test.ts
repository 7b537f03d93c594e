import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type ListToolsRequest,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  MCPConnectionError,
  MCPNotConnectedError,
  type MCPProgress,
  MCPToolAdapter,
  type MCPTransport,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  type CallLog,
  connectedAdapter,
  createTestServer,
  linkedAdapter,
  linkServer,
} from "../_in_memory.ts";
import { releaseAfterEach, waitFor } from "../_helpers.ts";

/** A connected adapter whose server records the calls it received. */
async function connected(options: { requestTimeoutMs?: number } = {}) {
  const calls: CallLog = new Map();
  const { adapter, servers } = linkedAdapter(
    () => createTestServer(calls),
    options,
  );
  await adapter.connect();
  return { adapter, calls, servers };
}

describe("MCPToolAdapter with an in-process SDK McpServer", () => {
  const cleanups = releaseAfterEach("together");
  const use = async (options: { requestTimeoutMs?: number } = {}) => {
    const result = await connected(options);
    cleanups.push(() => result.adapter.disconnect());
    return result;
  };

  it("the SDK's InMemoryTransport is an MCPTransport", () => {
    const [client] = InMemoryTransport.createLinkedPair();
    const transport: MCPTransport = client;
    assert.equal(typeof transport.send, "function");
  });

  it("connect() negotiates the newest protocol version and exposes server info", async () => {
    const { adapter } = await use();
    assert.equal(adapter.connected, true);
    assert.equal(adapter.serverInfo?.protocolVersion, "2025-11-25");
    assert.equal(adapter.serverInfo?.serverInfo.name, "test-server");
  });

  it("discoverTools() returns descriptors with name, description and schema", async () => {
    const { adapter } = await use();
    const tools = await adapter.discoverTools();
    const add = tools.find((tool) => tool.name === "add");
    assert.ok(add);
    assert.equal(add.description, "Add numbers");
    assert.deepEqual(add.inputSchema.required, ["a", "b"]);
    assert.equal(typeof add.outputSchema, "object");
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      "add",
      "delete_file",
      "echo",
      "fail",
      "progress",
      "sleep",
      "throw_rpc",
    ]);
  });

  it("discoverTools() applies include/exclude filters with globs, exclude winning", async () => {
    const { adapter } = await use();
    const tools = await adapter.discoverTools({
      include: ["e*", "add", "sleep"],
      exclude: ["sleep"],
    });
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["add", "echo"]);
  });

  it("invoke() returns the server's content and structuredContent", async () => {
    const { adapter } = await use();
    const result = await adapter.invoke("add", { a: 2, b: 40 });
    assert.equal(result.success, true);
    assert.equal(result.error, null);
    assert.equal(result.errorKind, undefined);
    assert.deepEqual(result.data.structuredContent, { sum: 42 });
    assert.deepEqual(result.data.content, [{ type: "text", text: "42" }]);
    assert.ok(result.durationMs >= 0 && result.durationMs < 5000);
  });

  it("invoke() returns a validation error without calling the server", async () => {
    const { adapter, calls } = await use();
    const result = await adapter.invoke("add", { a: "two" });
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "validation");
    assert.match(result.error!, /validation/);
    assert.match(
      result.error!,
      /\/a: /,
      "names the JSON pointer of the bad value",
    );
    assert.match(result.error!, /\/: .*"b"/, "names the missing property");
    assert.equal(calls.get("add"), undefined);
  });

  it("invoke() rejects non-object arguments as a validation error", async () => {
    const { adapter, calls } = await use();
    const result = await adapter.invoke(
      "echo",
      ["hi"] as unknown as Record<string, unknown>,
    );
    assert.equal(result.errorKind, "validation");
    assert.match(result.error!, /must be an object/);
    assert.equal(calls.get("echo"), undefined);
  });

  it("invoke() reports an unknown tool as not found, listing what exists", async () => {
    const { adapter } = await use();
    const result = await adapter.invoke("nope", {});
    assert.equal(result.errorKind, "not_found");
    assert.match(result.error!, /not found/);
    assert.match(result.error!, /echo/);
    const typo = await adapter.invoke("ecco", {});
    assert.match(typo.error!, /did you mean "echo"\?/);
  });

  it("invoke() refuses a tool the filter excluded", async () => {
    const { adapter, calls } = await use();
    await adapter.discoverTools({ exclude: ["echo"] });
    const result = await adapter.invoke("echo", { message: "hi" });
    assert.equal(result.errorKind, "not_found");
    assert.equal(calls.get("echo"), undefined);
  });

  it("invoke() turns isError results into server errors carrying the server's text", async () => {
    const { adapter } = await use();
    const result = await adapter.invoke("fail", {});
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /server error: disk on fire/);
    assert.deepEqual(result.data.content, [{
      type: "text",
      text: "disk on fire",
    }]);
  });

  it("invoke() reports a thrown handler as a server error", async () => {
    const { adapter } = await use();
    const result = await adapter.invoke("throw_rpc", {});
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /server error/);
    assert.match(result.error!, /kaboom/);
  });

  it("invoke() times out, says so, and tells the server to cancel", async () => {
    const { adapter, calls } = await use();
    const result = await adapter.invoke("sleep", { ms: 5000 }, {
      timeoutMs: 100,
    });
    assert.equal(result.errorKind, "timeout");
    assert.match(result.error!, /timeout/);
    assert.ok(
      result.durationMs >= 95 && result.durationMs < 2000,
      `durationMs ${result.durationMs}`,
    );
    assert.ok(await waitFor(() => calls.get("sleep:aborted") === 1, 2000));
  });

  it("invoke() honours an AbortSignal and cancels on the server", async () => {
    const { adapter, calls } = await use();
    const controller = new AbortController();
    const pending = adapter.invoke("sleep", { ms: 5000 }, {
      signal: controller.signal,
    });
    assert.ok(await waitFor(() => calls.get("sleep") === 1, 2000));
    controller.abort(new Error("user pressed stop"));
    const result = await pending;
    assert.equal(result.errorKind, "cancelled");
    assert.match(result.error!, /user pressed stop/);
    assert.ok(await waitFor(() => calls.get("sleep:aborted") === 1, 2000));
  });

  it("invoke() delivers every progress report, including one right before the result", async () => {
    const { adapter } = await use();
    const seen: MCPProgress[] = [];
    const result = await adapter.invoke("progress", { steps: 5, gapMs: 1 }, {
      onProgress: (p) => seen.push(p),
    });
    assert.equal(result.success, true);
    assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3, 4, 5]);
    assert.deepEqual(seen[4], { progress: 5, total: 5, message: "step 5" });
  });

  it("progress pushes the deadline back, so long tools that report progress finish", async () => {
    const { adapter } = await use({ requestTimeoutMs: 150 });
    const result = await adapter.invoke("progress", { steps: 8, gapMs: 60 });
    assert.equal(result.success, true, result.error ?? "");
    assert.ok(
      result.durationMs > 150 * 2,
      `ran ${result.durationMs} ms, longer than two timeouts`,
    );
  });

  it("totalTimeoutMs bounds a call even while progress keeps arriving", async () => {
    const { adapter } = await use();
    const result = await adapter.invoke("progress", { steps: 50, gapMs: 20 }, {
      timeoutMs: 200,
      totalTimeoutMs: 150,
    });
    assert.equal(result.errorKind, "timeout");
    assert.match(result.error!, /total deadline of 150 ms/);
  });

  it("hundreds of concurrent invokes multiplex over one connection with matched results", async () => {
    const { adapter, calls } = await use();
    const results = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) => adapter.invoke("add", { a: i, b: 1000 }),
      ),
    );
    results.forEach((result, i) =>
      assert.deepEqual(result.data.structuredContent, { sum: i + 1000 })
    );
    assert.equal(calls.get("add"), 300);
  });

  it("concurrent connect() calls share one connection attempt", async () => {
    const { adapter, servers } = linkedAdapter();
    cleanups.push(() => adapter.disconnect());
    await Promise.all([
      adapter.connect(),
      adapter.connect(),
      adapter.connect(),
    ]);
    assert.equal(servers.length, 1);
  });

  it("invoke() issued while connect() is in progress waits for it", async () => {
    const { adapter } = linkedAdapter();
    cleanups.push(() => adapter.disconnect());
    const connecting = adapter.connect();
    const result = await adapter.invoke("echo", { message: "early" });
    await connecting;
    assert.equal(result.success, true);
  });

  it("invoke() before connect() throws MCPNotConnectedError", async () => {
    const { adapter } = linkedAdapter();
    await assert.rejects(
      adapter.invoke("echo", { message: "x" }),
      MCPNotConnectedError,
    );
    await assert.rejects(adapter.discoverTools(), (error: Error) => {
      assert.ok(error instanceof MCPNotConnectedError);
      assert.match(error.message, /call connect\(\) first/);
      return true;
    });
  });

  it("disconnect() settles every in-flight call and is idempotent", async () => {
    const { adapter, calls } = await use();
    const inFlight = Array.from(
      { length: 10 },
      () => adapter.invoke("sleep", { ms: 10_000 }),
    );
    assert.ok(await waitFor(() => calls.get("sleep") === 10, 2000));
    await adapter.disconnect();
    const settled = await Promise.allSettled(inFlight);
    for (const outcome of settled) {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.reason instanceof MCPNotConnectedError);
    }
    await adapter.disconnect();
    assert.equal(adapter.connected, false);
    await assert.rejects(
      adapter.invoke("echo", { message: "x" }),
      MCPNotConnectedError,
    );
  });

  it("a dropped connection rejects in-flight calls promptly and later calls throw", async () => {
    const { adapter, calls, servers } = await use();
    const inFlight = adapter.invoke("sleep", { ms: 10_000 });
    assert.ok(await waitFor(() => calls.get("sleep") === 1, 2000));
    const started = performance.now();
    await servers[0]!.close();
    await assert.rejects(inFlight, (error: Error) => {
      assert.ok(error instanceof MCPNotConnectedError);
      assert.match(error.message, /lost/);
      return true;
    });
    // The call would sleep 10 s: rejecting in half that is the drop's doing.
    assert.ok(performance.now() - started < 5000);
    assert.equal(adapter.connected, false);
    await assert.rejects(
      adapter.invoke("echo", { message: "x" }),
      /lost; call reconnect\(\)/,
    );
  });

  it("reconnect() restores a dropped connection with a fresh tool list", async () => {
    let generation = 0;
    const { adapter, servers } = linkedAdapter(() => {
      const server = createTestServer();
      if (++generation === 2) {
        server.registerTool(
          "added_later",
          { inputSchema: {} },
          () => ({ content: [] }),
        );
      }
      return server;
    });
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    assert.ok(
      !(await adapter.discoverTools()).some((tool) =>
        tool.name === "added_later"
      ),
    );
    await servers[0]!.close();
    await adapter.reconnect();
    assert.ok(
      (await adapter.discoverTools()).some((tool) =>
        tool.name === "added_later"
      ),
    );
    assert.equal((await adapter.invoke("added_later")).success, true);
  });

  it("reconnect() failing raises MCPConnectionError", async () => {
    let attempts = 0;
    const adapter = new MCPToolAdapter({
      name: "flaky",
      transport: "stdio",
      command: "x",
    }, {
      transport: async () => {
        if (++attempts > 1) throw new Error("server is down");
        return await linkServer(createTestServer());
      },
    });
    await adapter.connect();
    await assert.rejects(adapter.reconnect(), (error: Error) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.match(error.message, /server is down/);
      return true;
    });
    assert.equal(adapter.connected, false);
  });

  it("connect() times out against a server that never answers initialize", async () => {
    const [client] = InMemoryTransport.createLinkedPair(); // nobody on the other side
    const adapter = new MCPToolAdapter({
      name: "mute",
      transport: "stdio",
      command: "x",
    }, { transport: client });
    const started = performance.now();
    await assert.rejects(
      adapter.connect({ timeoutMs: 150 }),
      (error: Error) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.match(error.message, /timed out after 150 ms/);
        return true;
      },
    );
    // A mute server never answers: any end at all is the deadline's.
    assert.ok(performance.now() - started < 10_000);
  });

  it("registerTools() registers provenance, capabilities and replaces only its namespace", async () => {
    const { adapter } = await use();
    const registry = new ToolRegistry();
    const stranger = (name: string) => ({
      name,
      description: "",
      inputSchema: {},
      capability: { readOnly: false, writes: false },
      checkpointable: false as const,
      source: "mcp" as const,
      sourceMetadata: { server: "other" },
      invoke: () => Promise.reject(new Error("unused")),
    });
    registry.register(stranger("memory/old"));
    registry.register(stranger("memx/keep"));
    registry.register(stranger("mem/stale"));
    const registered = await adapter.registerTools(registry, "mem", {
      overrides: { "echo": { writes: true } },
    });
    assert.equal(registered.length, 7);
    assert.equal(registry.has("mem/stale"), false);
    assert.equal(registry.has("memory/old"), true);
    assert.equal(registry.has("memx/keep"), true);
    const del = registry.get("mem/delete_file")!;
    assert.deepEqual(del.capability, { readOnly: false, writes: true });
    assert.equal(del.source, "mcp");
    assert.deepEqual(del.sourceMetadata, { server: "mem" });
    assert.equal(del.checkpointable, false);
    assert.deepEqual(registry.get("mem/echo")!.capability, {
      readOnly: false,
      writes: true,
    });
    const result = await registry.get("mem/add")!.invoke({ a: 1, b: 2 });
    assert.deepEqual(result.data.structuredContent, { sum: 3 });
  });

  it("registerTools() defaults the namespace to the server name", async () => {
    const { adapter } = await use();
    const registered = await adapter.registerTools(new ToolRegistry());
    assert.ok(registered.every((tool) => tool.name.startsWith("mem/")));
  });
});

describe("MCPToolAdapter with a low-level SDK Server", () => {
  function pagedServer(pages: string[][], cursors: (string | undefined)[]) {
    const server = new Server({ name: "paged", version: "1" }, {
      capabilities: { tools: { listChanged: true } },
    });
    let lists = 0;
    server.setRequestHandler(
      ListToolsRequestSchema,
      (request: ListToolsRequest) => {
        lists++;
        const index = request.params?.cursor === undefined
          ? 0
          : Number(request.params.cursor);
        const result: { tools: object[]; nextCursor?: string } = {
          tools: pages[index]!.map((name) => ({
            name,
            inputSchema: { type: "object" },
          })),
        };
        const next = cursors[index];
        if (next !== undefined) result.nextCursor = next;
        return result;
      },
    );
    server.setRequestHandler(
      CallToolRequestSchema,
      (request: CallToolRequest) => ({
        content: [{ type: "text", text: `called ${request.params.name}` }],
      }),
    );
    return { server, lists: () => lists };
  }

  const adapterFor = (server: Server) => connectedAdapter(server, "paged");

  it("discoverTools() follows nextCursor through every page", async () => {
    const { server } = pagedServer([["a", "b"], ["c"], ["d", "e"]], [
      "1",
      "2",
      undefined,
    ]);
    const adapter = await adapterFor(server);
    try {
      const names = (await adapter.discoverTools()).map((tool) => tool.name);
      assert.deepEqual(names, ["a", "b", "c", "d", "e"]);
      assert.equal(
        (await adapter.invoke("e")).success,
        true,
        "a tool on the last page is callable",
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("discoverTools() stops on a repeating cursor with a clear error", async () => {
    const { server } = pagedServer([["a"], ["b"]], ["1", "1"]);
    const adapter = await adapterFor(server);
    try {
      await assert.rejects(
        adapter.discoverTools(),
        /repeated the tools\/list cursor "1"/,
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("notifications/tools/list_changed invalidates the cached list", async () => {
    const { server, lists } = pagedServer([["a"]], [undefined]);
    const adapter = await adapterFor(server);
    try {
      await adapter.discoverTools();
      await adapter.invoke("a");
      assert.equal(lists(), 1, "the cache serves invoke()");
      await server.sendToolListChanged();
      assert.ok(
        await waitFor(async () => {
          await adapter.invoke("a");
          return lists() === 2;
        }, 2000),
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("invoke() refreshes the list once before reporting a tool as not found", async () => {
    const { server, lists } = pagedServer([["a"]], [undefined]);
    const adapter = await adapterFor(server);
    try {
      await adapter.discoverTools();
      const result = await adapter.invoke("b");
      assert.equal(result.errorKind, "not_found");
      assert.equal(lists(), 2);
    } finally {
      await adapter.disconnect();
    }
  });

  it("validates draft-07 schemas with $ref and definitions, and 2020-12 $defs", async () => {
    const server = new Server({ name: "schemas", version: "1" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: "draft7",
          inputSchema: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: { user: { $ref: "#/definitions/user" } },
            required: ["user"],
            definitions: {
              user: {
                type: "object",
                properties: { age: { type: "integer", minimum: 0 } },
              },
            },
          },
        },
        {
          name: "modern",
          inputSchema: {
            type: "object",
            properties: {
              tags: { type: "array", items: { $ref: "#/$defs/tag" } },
            },
            $defs: { tag: { type: "string", pattern: "^[a-z]+$" } },
          },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] }));
    const adapter = await adapterFor(server);
    try {
      const bad7 = await adapter.invoke("draft7", { user: { age: -1 } });
      assert.equal(bad7.errorKind, "validation");
      assert.match(bad7.error!, /\/user\/age: /);
      assert.equal(
        (await adapter.invoke("draft7", { user: { age: 3 } })).success,
        true,
      );
      const badModern = await adapter.invoke("modern", {
        tags: ["ok", "NOT OK"],
      });
      assert.match(badModern.error!, /\/tags\/1: /);
      assert.equal(
        (await adapter.invoke("modern", { tags: ["ok"] })).success,
        true,
      );
    } finally {
      await adapter.disconnect();
    }
  });
});
