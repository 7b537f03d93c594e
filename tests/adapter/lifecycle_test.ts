import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type JSONRPCMessage,
  MCPConfigError,
  MCPConnectionError,
  MCPToolAdapter,
  type MCPTransport,
} from "@cleveragents/mcp-adapter";
import { exec, fixturePath, runtimeCommand, waitFor } from "../_helpers.ts";
import { linkServer } from "../_in_memory.ts";
import { freePort } from "../_remote.ts";

const SECRET = "sk-live-lifecycle-SECRET-42";

/** A fresh SDK server per connection, with one tool "a" that sleeps `ms`. */
async function linkedServer(
  setup?: (server: Server) => void,
): Promise<MCPTransport> {
  const server = new Server({ name: "s", version: "1" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: "a", inputSchema: { type: "object" } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: "text", text: "ok" }],
  }));
  setup?.(server);
  return await linkServer(server);
}

function adapterWith(
  transport: () => Promise<MCPTransport>,
  extra: Partial<ConstructorParameters<typeof MCPToolAdapter>[1]> = {},
) {
  return new MCPToolAdapter({
    name: "life",
    transport: "stdio",
    command: "x",
    env: { API_KEY: SECRET },
  }, { transport, ...extra });
}

const never = () => new Promise<MCPTransport>(() => {});

describe("lifecycle under concurrent calls", () => {
  it("connect() right after an unawaited disconnect() leaves the adapter connected", async () => {
    const adapter = adapterWith(() => linkedServer());
    try {
      await adapter.connect();
      void adapter.disconnect();
      await adapter.connect();
      assert.equal(adapter.connected, true);
      assert.equal((await adapter.invoke("a")).success, true);
    } finally {
      await adapter.disconnect();
    }
  });

  it("a transport factory that never answers is bounded by the connect timeout, and disconnect() returns", async () => {
    const adapter = adapterWith(never);
    const started = performance.now();
    await assert.rejects(
      adapter.connect({ timeoutMs: 200 }),
      /timed out after 200 ms/,
    );
    // The factory never answers: any end at all is the deadline's.
    assert.ok(performance.now() - started < 10_000);
    const stopping = performance.now();
    await adapter.disconnect();
    assert.ok(performance.now() - stopping < 10_000);
  });

  it("disconnect() cancels a reconnect() in progress; the late transport is closed", async () => {
    let calls = 0;
    let lateClosed = false;
    let release!: (transport: MCPTransport) => void;
    const adapter = adapterWith(async () => {
      if (++calls === 1) return await linkedServer();
      const transport = await new Promise<MCPTransport>((resolve) =>
        release = resolve
      );
      const close = transport.close.bind(transport);
      transport.close = () => {
        lateClosed = true;
        return close();
      };
      return transport;
    });
    await adapter.connect();
    const reconnecting = adapter.reconnect();
    assert.ok(await waitFor(() => calls === 2, 1000), "reconnect() started");
    await adapter.disconnect();
    await assert.rejects(reconnecting, MCPConnectionError);
    assert.equal(adapter.connected, false);
    release(await linkedServer());
    assert.ok(await waitFor(() => lateClosed, 1000));
  });

  it("invoke() honours its signal and total deadline while it waits for a reconnect", async () => {
    let calls = 0;
    // The reconnect's transport arrives only when the test lets it.
    let arrive!: () => void;
    const held = new Promise<void>((resolve) => arrive = resolve);
    const adapter = adapterWith(async () => {
      if (++calls > 1) await held;
      return await linkedServer();
    });
    try {
      await adapter.connect();
      const reconnecting = adapter.reconnect().catch(() => {});
      const started = performance.now();
      const cancelled = await adapter.invoke("a", {}, {
        signal: AbortSignal.timeout(100),
      });
      assert.equal(cancelled.errorKind, "cancelled");
      const timedOut = await adapter.invoke("a", {}, { totalTimeoutMs: 100 });
      assert.equal(timedOut.errorKind, "timeout");
      assert.match(timedOut.error!, /total deadline of 100 ms/);
      // The reconnect is held forever: ending at all is the deadlines' doing.
      assert.ok(performance.now() - started < 10_000);
      arrive();
      await reconnecting;
    } finally {
      arrive();
      await adapter.disconnect();
    }
  });

  it("invalid invoke() options throw MCPConfigError before anything is sent", async () => {
    let calls = 0;
    const adapter = adapterWith(() =>
      linkedServer((server) =>
        server.setRequestHandler(CallToolRequestSchema, () => {
          calls++;
          return { content: [] };
        })
      )
    );
    try {
      await adapter.connect();
      await assert.rejects(
        adapter.invoke("a", {}, { timeoutMs: -1 }),
        (error: Error) =>
          error instanceof MCPConfigError && /timeoutMs/.test(error.message),
      );
      assert.equal(calls, 0);
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("secrets in errors that come from the server", () => {
  it("a key in the URL's path (/mcp/sk-…/sse) is not in a connect error, on either HTTP transport", async () => {
    const key = "sk-ak-Ab3dEf6hIjKlMn0pQrStUv1xYz234567";
    const url = `http://127.0.0.1:${await freePort()}/mcp/${key}/sse`;
    for (const transport of ["streamable-http", "sse"] as const) {
      const adapter = new MCPToolAdapter({ name: "keyed", transport, url });
      try {
        await assert.rejects(adapter.connect(), (error: Error) => {
          assert.match(error.message, /\/mcp\/\[redacted\]\/sse/, transport);
          assert.ok(!String(error.stack).includes("Ab3dEf6h"), transport);
          return true;
        });
      } finally {
        await adapter.disconnect();
      }
    }
  });

  it("a failing tools/list: discoverTools() throws it redacted, invoke() reports it redacted", async () => {
    const adapter = adapterWith(() =>
      linkedServer((server) =>
        server.setRequestHandler(ListToolsRequestSchema, () => {
          throw new McpError(
            ErrorCode.InvalidRequest,
            `key ${SECRET} lacks scope`,
          );
        })
      )
    );
    try {
      await adapter.connect();
      await assert.rejects(adapter.discoverTools(), (error: Error) => {
        assert.match(error.message, /key \[redacted\] lacks scope/);
        assert.ok(!String(error.stack).includes(SECRET));
        return true;
      });
      const result = await adapter.invoke("a");
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /\[redacted\]/);
      assert.ok(!result.error!.includes(SECRET));
    } finally {
      await adapter.disconnect();
    }
  });

  it("a rejected initialize: neither the error nor its cause holds the secret", async () => {
    const peer: MCPTransport = {
      start: () => Promise.resolve(),
      close: () => Promise.resolve(),
      send(message: JSONRPCMessage) {
        if ("method" in message && "id" in message) {
          queueMicrotask(() =>
            peer.onmessage?.({
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32600, message: `bad credentials ${SECRET}` },
            })
          );
        }
        return Promise.resolve();
      },
    };
    const adapter = adapterWith(() => Promise.resolve(peer));
    await assert.rejects(adapter.connect(), (error: Error) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.match(error.message, /bad credentials \[redacted\]/);
      let cause: unknown = error.cause;
      while (cause instanceof Error) {
        assert.ok(!cause.message.includes(SECRET), "cause message");
        assert.ok(!String(cause.stack).includes(SECRET), "cause stack");
        cause = cause.cause;
      }
      return true;
    });
  });

  it("non-fatal transport errors reach onError redacted", async () => {
    const seen: string[] = [];
    let transport: MCPTransport | undefined;
    const adapter = adapterWith(async () => transport = await linkedServer(), {
      onError: (error) => seen.push(error.message),
    });
    try {
      await adapter.connect();
      transport!.onerror?.(new Error(`not JSON: starting with key ${SECRET}`));
      assert.deepEqual(seen, ["not JSON: starting with key [redacted]"]);
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("the deadline timer and the life of the process", () => {
  // Runs tests/fixtures/idle_session: an adapter over an in-memory server,
  // alone in its process, never disconnected.
  const idle = (mode: string) => {
    const { command, args } = runtimeCommand(fixturePath(
      `idle_session${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
    ));
    return exec(command, [...args, mode], process.cwd(), {}, 20_000);
  };

  /**
   * Runs `mode` and expects `stdout` from a process that ended of itself,
   * before the 20 s bound of exec(); its one call's deadline is 60 s.
   */
  const endsAtOnce = async (mode: string, stdout: string) => {
    const started = performance.now();
    const run = await idle(mode);
    assert.equal(run.stdout, stdout, run.stderr);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(performance.now() - started < 20_000);
  };

  it("a process whose calls are all answered ends at once, not when their deadline would have passed", async () => {
    await endsAtOnce("finished", "echo ok\n");
  });

  it("a call whose transport throws as it sends fails at once, and leaves nothing to keep the process alive", async () => {
    await endsAtOnce("throwing", "echo connection\n");
  });

  it("a call in flight keeps the process alive until its deadline, after an idle spell", async () => {
    const run = await idle("pending");
    assert.equal(run.stdout, "echo ok\nhang timeout\n", run.stderr);
    assert.equal(run.code, 0, run.stderr);
  });
});
