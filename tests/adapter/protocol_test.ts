import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  MCPConnectionError,
  MCPToolAdapter,
  type MCPTransport,
} from "@cleveragents/mcp-adapter";
import { fixturePath, pidAlive, runtimeCommand, waitFor } from "../_helpers.ts";
import { connectedAdapter, linkServer } from "../_in_memory.ts";

/**
 * A scripted 2025-era peer: answers `initialize` with the given protocol
 * version, any other request before it with "method not found" (as the
 * SDK's legacy servers answer the modern probe), and records what the
 * client sends. For protocol details a real server cannot be made to
 * produce on demand.
 */
class ScriptedPeer implements MCPTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly sent: JSONRPCMessage[] = [];
  constructor(readonly protocolVersion: string) {}
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    if (
      "method" in message && message.method === "initialize" && "id" in message
    ) {
      queueMicrotask(() =>
        this.onmessage?.({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: this.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "scripted", version: "1" },
          },
        })
      );
    } else if (
      "method" in message && message.method === "server/discover" &&
      "id" in message
    ) {
      queueMicrotask(() =>
        this.onmessage?.({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32601, message: "Method not found" },
        })
      );
    }
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

function scripted(version: string) {
  const peer = new ScriptedPeer(version);
  const adapter = new MCPToolAdapter({
    name: "scripted",
    transport: "stdio",
    command: "x",
  }, { transport: peer });
  return { peer, adapter };
}

describe("protocol details", () => {
  it("accepts an older protocol version the server chose", async () => {
    const { adapter, peer } = scripted("2024-11-05");
    await adapter.connect();
    assert.equal(adapter.serverInfo?.protocolVersion, "2024-11-05");
    assert.equal(
      (peer.sent[0] as { method?: string }).method,
      "server/discover",
      "the modern probe goes first",
    );
    const initialize = peer.sent[1] as unknown as {
      params: { protocolVersion: string };
    };
    assert.equal(
      initialize.params.protocolVersion,
      "2025-11-25",
      "we offer the newest",
    );
    assert.ok(
      peer.sent.some((m) =>
        "method" in m && m.method === "notifications/initialized"
      ),
    );
    await adapter.disconnect();
  });

  it("refuses a protocol version it does not speak, naming it", async () => {
    const { adapter } = scripted("1999-01-01");
    await assert.rejects(adapter.connect(), (error: Error) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.match(error.message, /"1999-01-01"/);
      assert.match(error.message, /2025-11-25/);
      return true;
    });
    assert.equal(adapter.connected, false);
  });

  it("answers a server's ping", async () => {
    const { adapter, peer } = scripted("2025-11-25");
    await adapter.connect();
    peer.onmessage?.({ jsonrpc: "2.0", id: "ping-1", method: "ping" });
    assert.ok(
      await waitFor(
        () => peer.sent.some((m) => "id" in m && m.id === "ping-1"),
        1000,
      ),
      "the ping was answered",
    );
    const answer = peer.sent.find((m) => "id" in m && m.id === "ping-1");
    assert.deepEqual(answer, { jsonrpc: "2.0", id: "ping-1", result: {} });
    await adapter.disconnect();
  });
});

describe("tool list and validation edge cases", () => {
  async function lowLevel(setup: (server: Server) => void) {
    const server = new Server({ name: "low", version: "1" }, {
      capabilities: { tools: { listChanged: true } },
    });
    setup(server);
    return { adapter: await connectedAdapter(server, "low"), server };
  }

  it("a JSON-RPC error response is a server error carrying the server's message", async () => {
    const { adapter } = await lowLevel((server) => {
      server.setRequestHandler(
        ListToolsRequestSchema,
        () => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
      );
      server.setRequestHandler(CallToolRequestSchema, () => {
        throw new McpError(ErrorCode.InvalidParams, "quota exceeded for t");
      });
    });
    try {
      const result = await adapter.invoke("t");
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /server error/);
      assert.match(result.error!, /quota exceeded for t/);
      assert.match(result.error!, /-32602/);
    } finally {
      await adapter.disconnect();
    }
  });

  it("a broken local $ref leaves validation to the server; a network $ref is never fetched and refuses what reaches it", async () => {
    let calls = 0;
    const { adapter } = await lowLevel((server) => {
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{
          name: "t",
          inputSchema: {
            type: "object",
            properties: { x: { $ref: "#/$defs/missing" } },
          },
        }, {
          name: "remote",
          inputSchema: {
            type: "object",
            properties: { x: { $ref: "https://example.com/schema.json" } },
          },
        }],
      }));
      server.setRequestHandler(CallToolRequestSchema, () => {
        calls++;
        return { content: [] };
      });
    });
    try {
      assert.equal((await adapter.invoke("t", { x: 1 })).success, true);
      assert.equal((await adapter.invoke("t", { x: 2 })).success, true);
      const remote = await adapter.invoke("remote", { x: 3 });
      assert.equal(remote.errorKind, "validation");
      assert.match(remote.error ?? "", /https:\/\/example\.com\/schema\.json/);
      assert.match(remote.error ?? "", /never fetches a \$ref/);
      assert.equal((await adapter.invoke("remote", {})).success, true);
      assert.equal(calls, 3);
    } finally {
      await adapter.disconnect();
    }
  });

  it("a list_changed that arrives while the list is being fetched is not lost", async () => {
    let lists = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    const { adapter, server } = await lowLevel((server) => {
      server.setRequestHandler(ListToolsRequestSchema, async () => {
        lists++;
        if (lists === 1) await gate;
        return { tools: [{ name: "a", inputSchema: { type: "object" } }] };
      });
      server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] }));
    });
    try {
      const discovering = adapter.discoverTools();
      assert.ok(await waitFor(() => lists === 1, 1000), "the list started");
      await server.sendToolListChanged();
      release();
      await discovering;
      await adapter.invoke("a");
      assert.equal(
        lists,
        2,
        "the list fetched before the change was not cached",
      );
      await adapter.invoke("a");
      assert.equal(lists, 2, "the fresh list is cached");
    } finally {
      await adapter.disconnect();
    }
  });

  it("onToolsChanged() listeners hear list_changed until they unsubscribe", async () => {
    const { adapter, server } = await lowLevel((server) => {
      server.setRequestHandler(
        ListToolsRequestSchema,
        () => ({ tools: [{ name: "a", inputSchema: { type: "object" } }] }),
      );
    });
    try {
      let heard = 0;
      const unsubscribe = adapter.onToolsChanged(() => heard++);
      await server.sendToolListChanged();
      assert.ok(await waitFor(() => heard === 1, 1000));
      unsubscribe();
      await server.sendToolListChanged();
      await adapter.discoverTools(); // a round trip, so the second notification has arrived
      assert.equal(heard, 1);
    } finally {
      await adapter.disconnect();
    }
  });

  it("invoke() issued during reconnect() waits for it", async () => {
    // A fresh in-memory pair per connection, so reconnect() has somewhere to go.
    const factoryAdapter = new MCPToolAdapter({
      name: "re",
      transport: "stdio",
      command: "x",
    }, {
      transport: async () => {
        const server = new Server({ name: "re", version: "1" }, {
          capabilities: { tools: {} },
        });
        server.setRequestHandler(
          ListToolsRequestSchema,
          () => ({ tools: [{ name: "a", inputSchema: { type: "object" } }] }),
        );
        server.setRequestHandler(
          CallToolRequestSchema,
          () => ({ content: [{ type: "text", text: "ok" }] }),
        );
        return await linkServer(server);
      },
    });
    try {
      await factoryAdapter.connect();
      const reconnecting = factoryAdapter.reconnect();
      const result = await factoryAdapter.invoke("a");
      await reconnecting;
      assert.equal(result.success, true);
    } finally {
      await factoryAdapter.disconnect();
    }
  });
});

describe("stdio failures leave nothing behind and print no secrets", () => {
  it("a server that never answers is stopped when connect() times out", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-mute-"));
    const pidFile = join(dir, "pid");
    const { command, args } = runtimeCommand(fixturePath("mute.mjs"));
    const adapter = new MCPToolAdapter({
      name: "mute",
      transport: "stdio",
      command,
      args: [...args, pidFile],
    });
    try {
      await assert.rejects(
        adapter.connect({ timeoutMs: 1500 }),
        (error: Error) => {
          assert.ok(error instanceof MCPConnectionError);
          // What was seen, and what most likely holds such a server up.
          assert.match(
            error.message,
            /^Connecting to MCP server "mute" timed out after 1500 ms: the server process is still running but has written nothing to stdout or stderr\. Likely causes: \(1\) a network that needs a CA bundle or a proxy: the server inherits NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, HTTPS_PROXY .*inheritEnv; \(2\) a server that waits/,
          );
          return true;
        },
      );
      const pid = Number(readFileSync(pidFile, "utf8"));
      assert.ok(pid > 0);
      assert.equal(
        pidAlive(pid),
        false,
        "the server process is gone once connect() rejects",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a connect that times out on a server run through npx-like runners names the download first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-mute-"));
    const { command, args } = runtimeCommand(fixturePath("mute.mjs"));
    // mute.mjs ignores its second argument: here it stands for `deno run npm:…`.
    const adapter = new MCPToolAdapter({
      name: "downloading",
      transport: "stdio",
      command,
      args: [...args, join(dir, "pid"), "npm:@example/slow-server"],
    });
    try {
      await assert.rejects(
        adapter.connect({ timeoutMs: 1000 }),
        /written nothing to stdout or stderr\. Likely causes: \(1\) the first run of "[^"]+" downloads the server: run the command once by hand, or raise the connect timeout \(connectTimeoutMs; the command line's --connect-timeout\); \(2\) a network/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a connect that times out on a server that writes but never answers says so", async () => {
    const { command, args } = runtimeCommand(fixturePath("stubborn.mjs"));
    const adapter = new MCPToolAdapter({
      name: "stubborn",
      transport: "stdio",
      command,
      args,
    });
    await assert.rejects(
      adapter.connect({ timeoutMs: 1000 }),
      /timed out after 1000 ms: the server process is running and wrote \d+ bytes to stdout, but no answer to the handshake; check that it speaks MCP over stdio/,
    );
  });

  it("a failing server's stderr is quoted with config.env values masked", async () => {
    const secret = "sk-live-" + process.pid + "-do-not-print";
    const { command, args } = runtimeCommand(fixturePath("leaky.mjs"));
    const adapter = new MCPToolAdapter({
      name: "leaky",
      transport: "stdio",
      command,
      args,
      env: { MCP_SECRET: secret },
    });
    await assert.rejects(
      adapter.connect({ timeoutMs: 20_000 }),
      (error: Error) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.match(error.message, /auth failed with token=\[redacted\]/);
        assert.ok(!error.message.includes(secret));
        return true;
      },
    );
  });
});
