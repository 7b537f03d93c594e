import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  MCPAdapterError,
  MCPConfigError,
  type MCPServerConfig,
  MCPToolAdapter,
  MCPToolHub,
  type ServerEntry,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import { loadConfig } from "@cleveragents/mcp-adapter/config";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pidAlive, sdkServerCommand, waitFor } from "./_helpers.ts";
import { taskHttpServer } from "./_task_http.ts";
import { sdkStreamableServer } from "./_remote.ts";
import { linkServer } from "./_in_memory.ts";

/** This file runs as .ts under Deno and as transpiled .js under Node; its fixtures follow suit. */
const fixture = sdkServerCommand;
const TEST_TIMEOUT_MS = 60_000;
/** How long the fixture's "slow" mode waits before it answers `initialize`. */
const SLOW_SERVER_MS = 1500;

function sdkEntry(
  name: string,
  namespace: string,
  extra: Partial<ServerEntry> = {},
): ServerEntry {
  return {
    config: {
      name,
      transport: "stdio",
      command: fixture.command,
      args: fixture.args,
    },
    namespace,
    enabled: true,
    connectTimeoutMs: 30_000,
    ...extra,
  };
}

async function pidOf(hub: MCPToolHub, namespace: string): Promise<number> {
  const result = await hub.registry.get(`${namespace}/whoami`)!.invoke({
    variable: "PATH",
  });
  return (result.data.structuredContent as { pid: number }).pid;
}

describe("MCPToolHub against real stdio servers", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-hub-test-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "reports a server with a missing executable, keeps the others working, and retry() connects it once fixed",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const launcher = join(dir, "server-launcher");
      const hub = new MCPToolHub([
        sdkEntry("good", "good"),
        {
          config: {
            name: "broken",
            transport: "stdio",
            command: launcher,
            args: fixture.args,
          },
          namespace: "broken",
          enabled: true,
        },
        { ...sdkEntry("off", "off"), enabled: false },
      ]);
      try {
        const statuses = await hub.start();
        const [good, broken, off] = statuses;
        assert.equal(good?.state, "connected", good?.error);
        assert.ok(good!.toolCount > 0);
        assert.equal(typeof good!.connectMs, "number");
        assert.match(good!.protocolVersion ?? "", /^\d{4}-\d{2}-\d{2}$/);
        assert.equal(broken?.state, "failed");
        assert.match(broken!.error!, /server-launcher/);
        assert.equal(broken!.toolCount, 0);
        assert.equal(off?.state, "disabled");
        assert.equal(hub.adapter("off"), undefined);

        const sum = await hub.registry.resolve("good__add")!.invoke({
          a: 2,
          b: 3,
        });
        assert.deepEqual(sum.data.structuredContent, { sum: 5 });
        assert.equal(hub.registry.listNamespace("broken").length, 0);

        // Fix it: the launcher now exists and execs this runtime.
        await writeFile(
          launcher,
          `#!/bin/sh\nexec "${process.execPath}" "$@"\n`,
        );
        await chmod(launcher, 0o755);
        const [, fixed] = await hub.retry("broken");
        assert.equal(fixed?.state, "connected", fixed?.error);
        assert.equal(fixed!.toolCount, good!.toolCount);
        const echoed = await hub.registry.resolve("broken__echo")!.invoke({
          message: "back",
        });
        assert.equal(echoed.success, true);
        assert.deepEqual(hub.status().map((status) => status.state), [
          "connected",
          "connected",
          "disabled",
        ]);
      } finally {
        await hub.close();
      }
    },
  );

  it(
    "registers two servers with the same tool names under their own namespaces; aliases resolve",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const registry = new ToolRegistry();
      const hub = new MCPToolHub([
        sdkEntry("first", "alpha"),
        sdkEntry("second", "beta", {
          filter: { include: ["add", "whoami", "delete_*"] },
          overrides: { add: { writes: true } },
        }),
      ], { registry });
      try {
        const statuses = await hub.start();
        assert.deepEqual(statuses.map((status) => status.state), [
          "connected",
          "connected",
        ]);
        assert.equal(hub.registry, registry);
        assert.equal(statuses[1]!.toolCount, 3);
        const alpha = registry.resolve("alpha__add")!;
        const beta = registry.resolve("beta__add")!;
        assert.equal(alpha.name, "alpha/add");
        assert.equal(beta.name, "beta/add");
        assert.equal(alpha.sourceMetadata.server, "first");
        assert.equal(beta.sourceMetadata.server, "second");
        assert.equal(alpha.capability.writes, false);
        assert.equal(
          beta.capability.writes,
          true,
          "the entry's overrides apply",
        );
        assert.equal(registry.resolve("beta__echo"), undefined, "filtered out");
        assert.deepEqual(
          registry.listNamespace("beta").map((tool) =>
            registry.aliasOf(tool.name)
          )
            .sort(),
          ["beta__add", "beta__delete_file", "beta__whoami"],
        );
        for (const alias of ["alpha__whoami", "beta__whoami"]) {
          assert.equal(registry.aliasOf(registry.resolve(alias)!.name), alias);
        }
        const pids = [await pidOf(hub, "alpha"), await pidOf(hub, "beta")];
        assert.notEqual(pids[0], pids[1], "each namespace is its own server");
        await hub.close();
        assert.equal(registry.size, 0, "close() removes the hub's tools");
        for (const pid of pids) assert.equal(pidAlive(pid), false);
      } finally {
        await hub.close();
      }
    },
  );

  it(
    "reports a lost connection as failed, and retry() without a name reconnects it",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const hub = new MCPToolHub([sdkEntry("solo", "solo")]);
      try {
        await hub.start();
        const pid = await pidOf(hub, "solo");
        process.kill(pid, "SIGKILL");
        assert.ok(await waitFor(() => !hub.adapter("solo")!.connected, 5000));
        const [lost] = hub.status();
        assert.equal(lost?.state, "failed");
        assert.match(lost!.error!, /lost/);
        const [back] = await hub.retry();
        assert.equal(back?.state, "connected", back?.error);
        assert.notEqual(await pidOf(hub, "solo"), pid);
      } finally {
        await hub.close();
      }
    },
  );

  it(
    "connects the servers concurrently: two slow ones take about as long as one",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const slow = (name: string) => {
        const entry = sdkEntry(name, name);
        entry.config.args = [...fixture.args, "slow", String(SLOW_SERVER_MS)];
        return entry;
      };
      const hub = new MCPToolHub([slow("slow1"), slow("slow2")]);
      try {
        const started = performance.now();
        const statuses = await hub.start();
        const elapsedMs = performance.now() - started;
        assert.deepEqual(
          statuses.map((status) => status.state),
          ["connected", "connected"],
          JSON.stringify(statuses),
        );
        const connectMs = statuses.map((status) => status.connectMs!);
        for (const ms of connectMs) {
          assert.ok(ms >= SLOW_SERVER_MS, `connected in ${ms} ms: not slow`);
        }
        // The startup slack is this run's own: the slowest connect minus the
        // delay. A bound measured beforehand breaks when the machine's load
        // changes in between. One after the other, start() would take at least
        // the sum of the connects: at least 0.4 × the delay over this bound.
        const slowestMs = Math.max(...connectMs);
        const startupMs = slowestMs - SLOW_SERVER_MS;
        assert.ok(
          elapsedMs < 1.6 * SLOW_SERVER_MS + startupMs,
          `start() took ${Math.round(elapsedMs)} ms; connects took ${
            connectMs.join(" + ")
          } ms`,
        );
      } finally {
        await hub.close();
      }
    },
  );

  it("never reports env or header values, even when the server prints them", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const secret = "sk-live-hub-test-5ecret";
    const hub = new MCPToolHub([{
      config: {
        name: "leaky",
        transport: "stdio",
        command: "/bin/sh",
        args: ["-c", 'echo "auth failed for token $API_TOKEN" >&2; exit 1'],
        env: { API_TOKEN: secret },
      },
      namespace: "leaky",
      enabled: true,
    }]);
    try {
      const [status] = await hub.start();
      assert.equal(status?.state, "failed");
      assert.match(status!.error!, /auth failed for token \[redacted\]/);
      assert.doesNotMatch(JSON.stringify(hub.status()), /5ecret/);
    } finally {
      await hub.close();
    }
  });

  it("close() during start() cancels the connection attempts promptly", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const mute = sdkEntry("mute", "mute", { connectTimeoutMs: 30_000 });
    mute.config.args = [...fixture.args, "mute"];
    const hub = new MCPToolHub([mute]);
    const started = performance.now();
    const starting = hub.start();
    // The attempt is under way once the adapter exists.
    assert.ok(await waitFor(() => hub.adapter("mute") !== undefined, 5000));
    await hub.close();
    const [status] = await starting;
    assert.ok(performance.now() - started < 10_000);
    assert.equal(status?.state, "failed");
    assert.equal(hub.registry.size, 0);
  });

  it("keeps the registry in step when a server announces new tools", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const hub = new MCPToolHub([sdkEntry("live", "live")]);
    try {
      const [status] = await hub.start();
      assert.equal(status?.state, "connected", status?.error);
      const before = status!.toolCount;
      assert.equal(hub.registry.has("live/grown_1"), false);
      const grown = await hub.registry.get("live/grow")!.invoke();
      assert.equal(grown.success, true, grown.error ?? "");
      assert.ok(
        await waitFor(() => hub.registry.has("live/grown_1"), 5000),
        "the new tool was registered without a call to retry()",
      );
      assert.equal(hub.status()[0]!.toolCount, before + 1);
      const called = await hub.registry.get("live/grown_1")!.invoke();
      assert.equal(called.success, true, called.error ?? "");
    } finally {
      await hub.close();
    }
  });

  it("starts the servers of a loaded config file", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const config = await loadConfig({
      format: "json",
      text: JSON.stringify({
        mcpServers: {
          notes: { command: fixture.command, args: fixture.args },
        },
      }),
    });
    const hub = new MCPToolHub(config.servers);
    try {
      const [status] = await hub.start();
      assert.equal(status?.state, "connected", status?.error);
      assert.ok(hub.registry.resolve(`${status!.namespace}__add`));
    } finally {
      await hub.close();
    }
  });
});

describe("MCPToolHub without servers to reach", () => {
  it("refuses two servers with the same name or namespace", () => {
    assert.throws(
      () => new MCPToolHub([sdkEntry("a", "x"), sdkEntry("a", "y")]),
      (error: unknown) =>
        error instanceof MCPConfigError && error.field === "name",
    );
    assert.throws(
      () => new MCPToolHub([sdkEntry("a", "x"), sdkEntry("b", "x")]),
      (error: unknown) =>
        error instanceof MCPConfigError && error.field === "namespace" &&
        /"a" and "b"/.test(error.message),
    );
  });

  it("refuses an empty namespace or one with a slash", () => {
    for (const namespace of ["", "a/b"]) {
      assert.throws(
        () => new MCPToolHub([sdkEntry("a", namespace)]),
        (error: unknown) =>
          error instanceof MCPConfigError && error.field === "namespace",
      );
    }
  });

  it("retry() and adapter() name unknown and disabled servers", async () => {
    const hub = new MCPToolHub([{ ...sdkEntry("off", "off"), enabled: false }]);
    await assert.rejects(
      hub.retry("nope"),
      (error: unknown) =>
        error instanceof MCPAdapterError && error.code === "unknown_server",
    );
    await assert.rejects(
      hub.retry("off"),
      (error: unknown) =>
        error instanceof MCPAdapterError && error.code === "server_disabled",
    );
    assert.throws(() => hub.adapter("nope"), /No MCP server is named "nope"/);
    await hub.close();
    await hub.close();
  });

  it("reports before start() and after close() that nothing is connected", async () => {
    const hub = new MCPToolHub([sdkEntry("a", "a")]);
    assert.deepEqual(hub.status(), [{
      name: "a",
      namespace: "a",
      state: "failed",
      error: "Not connected yet; call start()",
      toolCount: 0,
    }]);
    await hub.close();
    assert.equal(hub.status()[0]?.state, "failed");
  });

  it("redacts env and header values from what a custom adapter throws", async () => {
    const secret = "sk-live-hub-test-5ecret";
    const entry = sdkEntry("custom", "custom");
    entry.config.env = { API_TOKEN: secret };
    const remote: ServerEntry = {
      config: {
        name: "remote",
        transport: "streamable-http",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: `Bearer ${secret}` },
      },
      namespace: "remote",
      enabled: true,
    };
    const hub = new MCPToolHub([entry, remote], {
      createAdapter: (server) => {
        throw new Error(`${server.config.name} refused token ${secret}`);
      },
    });
    const statuses = await hub.start();
    assert.deepEqual(statuses.map((status) => status.error), [
      "custom refused token [redacted]",
      "remote refused token [redacted]",
    ]);
    await hub.close();
  });

  it("a failed refresh after list_changed keeps the server and its tools", async () => {
    let lists = 0;
    let server: Server | undefined;
    const hub = new MCPToolHub([sdkEntry("mem", "mem")], {
      createAdapter: (entry) =>
        new MCPToolAdapter(entry.config, {
          transport: async () => {
            server = new Server({ name: "mem", version: "1" }, {
              capabilities: { tools: { listChanged: true } },
            });
            server.setRequestHandler(ListToolsRequestSchema, () => {
              if (++lists > 1) throw new Error("index rebuilding");
              return {
                tools: [{ name: "a", inputSchema: { type: "object" } }],
              };
            });
            return await linkServer(server);
          },
        }),
    });
    try {
      const [started] = await hub.start();
      assert.equal(started?.state, "connected", started?.error);
      await server!.sendToolListChanged();
      assert.ok(
        await waitFor(() => hub.status()[0]!.error !== undefined, 2000),
      );
      const [status] = hub.status();
      assert.equal(status!.state, "connected");
      assert.match(status!.error!, /index rebuilding/);
      assert.ok(hub.registry.has("mem/a"), "the tools registered before stay");
      assert.equal(hub.adapter("mem")!.connected, true);
    } finally {
      await hub.close();
    }
  });

  it("builds adapters with createAdapter and reports what it throws", async () => {
    const built: string[] = [];
    const hub = new MCPToolHub([sdkEntry("a", "a"), sdkEntry("b", "b")], {
      createAdapter: (entry) => {
        built.push(entry.config.name);
        if (entry.config.name === "b") throw new Error("no adapter for b");
        return new MCPToolAdapter(entry.config, {
          transport: () => {
            throw new Error("in-memory only");
          },
        });
      },
    });
    const statuses = await hub.start();
    assert.deepEqual(built.sort(), ["a", "b"]);
    assert.match(statuses[0]!.error!, /in-memory only/);
    assert.equal(statuses[1]!.error, "no adapter for b");
    await hub.close();
  });
});

describe("MCPToolHub with plain server configs", () => {
  it("takes MCPServerConfig objects as enabled entries named by their server", () => {
    const hub = new MCPToolHub([
      { name: "files", transport: "stdio", command: "npx" },
      { name: "docs", transport: "streamable-http", url: "https://x.org/mcp" },
    ]);
    assert.deepEqual(hub.status().map((status) => status.name), [
      "files",
      "docs",
    ]);
    assert.equal(hub.registry.size, 0, "nothing is started before start()");
  });

  it("gives adapterOptions.authProvider to its adapters when no authProvider callback is set", async () => {
    const authorizations: (string | undefined)[] = [];
    const server = await sdkStreamableServer({
      intercept: (req) => {
        authorizations.push(req.headers.authorization);
        return false;
      },
    });
    const hub = new MCPToolHub([
      { name: "docs", transport: "streamable-http", url: server.url },
    ], {
      adapterOptions: {
        authProvider: { tokens: () => ({ access_token: "hub-wide-token" }) },
      },
    });
    try {
      const [status] = await hub.start();
      assert.equal(status!.state, "connected", status!.error);
      assert.ok(authorizations.length > 0);
      assert.ok(
        authorizations.every((value) => value === "Bearer hub-wide-token"),
        JSON.stringify(authorizations),
      );
    } finally {
      await hub.close();
      await server.close();
    }
  });

  it("refuses an invalid plain config with MCPConfigError naming the field", () => {
    assert.throws(
      () =>
        new MCPToolHub([
          { name: "docs", transport: "sse" } as unknown as MCPServerConfig,
        ]),
      (error: unknown) =>
        error instanceof MCPConfigError && error.field === "url",
    );
  });
});

describe("MCPToolHub onLog", () => {
  it("passes every server's log messages on, with the server's name", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const server = await taskHttpServer();
    const logs: unknown[][] = [];
    const hub = new MCPToolHub([{
      config: { name: "tasks", transport: "streamable-http", url: server.url },
      namespace: "t",
      enabled: true,
    }], { onLog: (...args) => void logs.push(args) });
    try {
      const [status] = await hub.start();
      assert.equal(status?.state, "connected", status?.error);
      await hub.registry.get("t/log")!.invoke({
        levels: ["warning"],
        message: "careful",
      });
      assert.deepEqual(logs, [[
        "warning",
        "task-fixture",
        { message: "careful", level: "warning" },
        "tasks",
      ]]);
    } finally {
      await hub.close();
      await server.close();
    }
  });
});
