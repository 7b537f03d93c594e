import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  MCPConnectionError,
  MCPNotConnectedError,
  type MCPProgress,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import { pidAlive, sdkServerCommand, text, waitFor } from "../_helpers.ts";
import { everythingCommand, everythingStdioAdapter } from "../_everything.ts";

function sdkServer(
  mode = "normal",
  extra: { env?: Record<string, string> } = {},
  options?: MCPToolAdapterOptions,
) {
  const { command, args } = sdkServerCommand;
  return new MCPToolAdapter({
    name: "sdk",
    transport: "stdio",
    command,
    args: [...args, mode],
    ...extra,
  }, options);
}

async function pidOf(adapter: MCPToolAdapter): Promise<number> {
  const result = await adapter.invoke("whoami", { variable: "PATH" });
  return (result.data.structuredContent as { pid: number }).pid;
}

describe("stdio: an SDK McpServer in a child process", () => {
  it("connects, lists, invokes, and leaves no process after disconnect()", async () => {
    const adapter = sdkServer();
    await adapter.connect();
    try {
      const tools = (await adapter.discoverTools()).map((tool) => tool.name);
      assert.ok(tools.includes("add") && tools.includes("whoami"));
      const sum = await adapter.invoke("add", { a: 20, b: 22 });
      assert.deepEqual(sum.data.structuredContent, { sum: 42 });
      const seen: MCPProgress[] = [];
      const progressed = await adapter.invoke("progress", {
        steps: 3,
        gapMs: 5,
      }, { onProgress: (p) => seen.push(p) });
      assert.equal(progressed.success, true);
      assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3]);
      const pid = await pidOf(adapter);
      assert.ok(pidAlive(pid));
      await adapter.disconnect();
      assert.equal(
        pidAlive(pid),
        false,
        "the server process is gone once disconnect() resolves",
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("gives the child config.env and a minimal base, never the parent's secrets", async () => {
    process.env.MCP_ADAPTER_TEST_SECRET = "hunter2";
    const adapter = sdkServer("normal", { env: { GREETING: "hello" } });
    try {
      await adapter.connect();
      const value = async (variable: string) =>
        ((await adapter.invoke("whoami", { variable })).data
          .structuredContent as { value: string | null }).value;
      assert.equal(await value("GREETING"), "hello");
      assert.equal(await value("MCP_ADAPTER_TEST_SECRET"), null);
      assert.ok(
        (await value("PATH"))?.length,
        "PATH is passed so the server can find programs",
      );
    } finally {
      delete process.env.MCP_ADAPTER_TEST_SECRET;
      await adapter.disconnect();
    }
  });

  it("a missing executable is an MCPConnectionError naming the command", async () => {
    const adapter = new MCPToolAdapter({
      name: "ghost",
      transport: "stdio",
      command: "mcp-no-such-server-xyz",
    });
    await assert.rejects(adapter.connect(), (error: Error) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.match(error.message, /mcp-no-such-server-xyz/);
      return true;
    });
    assert.equal(adapter.connected, false);
  });

  it("a server that exits during startup is an MCPConnectionError quoting its stderr", async () => {
    const adapter = sdkServer("crash");
    await assert.rejects(
      adapter.connect({ timeoutMs: 20_000 }),
      (error: Error) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.match(error.message, /before completing the handshake/);
        assert.match(error.message, /cannot open database/);
        return true;
      },
    );
  });

  it("a server that never answers times out, and its process is stopped", async () => {
    const adapter = sdkServer("mute");
    const started = performance.now();
    await assert.rejects(
      adapter.connect({ timeoutMs: 1500 }),
      /timed out after 1500 ms/,
    );
    assert.ok(performance.now() - started < 8000);
    assert.equal(adapter.connected, false);
  });

  it("disconnect() kills a server that ignores SIGTERM and stdin EOF", async () => {
    const adapter = sdkServer("stubborn");
    await adapter.connect();
    const pid = await pidOf(adapter);
    await adapter.disconnect();
    assert.equal(pidAlive(pid), false);
  });

  it("a server killed from outside rejects in-flight calls promptly; reconnect() recovers", async () => {
    const adapter = sdkServer();
    try {
      await adapter.connect();
      const pid = await pidOf(adapter);
      const inFlight = adapter.invoke("sleep", { ms: 30_000 });
      process.kill(pid, "SIGKILL");
      await assert.rejects(inFlight, MCPNotConnectedError);
      assert.ok(await waitFor(() => !adapter.connected, 2000));
      await assert.rejects(
        adapter.invoke("add", { a: 1, b: 1 }),
        /reconnect\(\)/,
      );
      await adapter.reconnect();
      assert.equal((await adapter.invoke("add", { a: 1, b: 1 })).success, true);
      assert.notEqual(await pidOf(adapter), pid);
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("stdio: @modelcontextprotocol/server-everything", () => {
  let adapter: MCPToolAdapter;
  before(async () => {
    adapter = everythingStdioAdapter();
    await adapter.connect({ timeoutMs: 30_000 });
  });
  after(async () => {
    await adapter.disconnect();
  });

  it("lists its tools", async () => {
    const names = (await adapter.discoverTools()).map((tool) => tool.name);
    for (
      const name of [
        "echo",
        "get-sum",
        "get-structured-content",
        "trigger-long-running-operation",
      ]
    ) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
  });

  it("echo and get-sum return the server's answers", async () => {
    assert.match(
      text(await adapter.invoke("echo", { message: "héllo" })),
      /héllo/,
    );
    assert.match(text(await adapter.invoke("get-sum", { a: 19, b: 23 })), /42/);
  });

  it("get-structured-content returns structuredContent", async () => {
    const result = await adapter.invoke("get-structured-content", {
      location: "Chicago",
    });
    assert.equal(result.success, true);
    assert.equal(typeof result.data.structuredContent, "object");
    assert.ok("temperature" in (result.data.structuredContent as object));
  });

  it("validation catches bad arguments before the server sees them", async () => {
    const result = await adapter.invoke("get-sum", { a: "1" });
    assert.equal(result.errorKind, "validation");
    assert.match(result.error!, /\/a: /);
    assert.match(result.error!, /"b"/);
  });

  it("trigger-long-running-operation reports every progress step", async () => {
    const seen: MCPProgress[] = [];
    const result = await adapter.invoke("trigger-long-running-operation", {
      duration: 1,
      steps: 4,
    }, {
      onProgress: (p) => seen.push(p),
    });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3, 4]);
    assert.equal(seen[3]!.total, 4);
  });

  it("trigger-long-running-operation outlives a short timeout because it reports progress", async () => {
    const result = await adapter.invoke("trigger-long-running-operation", {
      duration: 1.2,
      steps: 6,
    }, {
      timeoutMs: 600,
    });
    assert.equal(result.success, true, result.error ?? "");
  });

  it("trigger-long-running-operation times out when its steps are slower than the timeout", async () => {
    const result = await adapter.invoke("trigger-long-running-operation", {
      duration: 4,
      steps: 2,
    }, {
      timeoutMs: 300,
    });
    assert.equal(result.errorKind, "timeout");
    assert.match(result.error!, /timeout/);
    // The connection survives a timed-out call.
    assert.equal(
      (await adapter.invoke("get-sum", { a: 1, b: 2 })).success,
      true,
    );
  });

  it("its environment holds no secret of ours", async () => {
    process.env.MCP_ADAPTER_TEST_TOKEN = "sk-test-should-not-leak";
    try {
      const fresh = new MCPToolAdapter({
        name: "everything-env",
        transport: "stdio",
        ...everythingCommand("stdio"),
      });
      await fresh.connect({ timeoutMs: 30_000 });
      try {
        const env = text(await fresh.invoke("get-env"));
        assert.match(env, /PATH/);
        assert.doesNotMatch(env, /sk-test-should-not-leak/);
      } finally {
        await fresh.disconnect();
      }
    } finally {
      delete process.env.MCP_ADAPTER_TEST_TOKEN;
    }
  });
});
