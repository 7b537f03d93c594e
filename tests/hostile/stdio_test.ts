/**
 * Faulty and hostile servers over stdio (`fixtures/hostile.mjs`): every call
 * settles, memory stays bounded, the event loop keeps running, and nothing
 * a server does leaves a process behind or a secret in a message.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  MCPNotConnectedError,
  MCPTimeoutError,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  MCPToolHub,
  StdioTransport,
} from "@cleveragents/mcp-adapter";
import {
  fixturePath,
  pidAlive,
  releaseAfterEach,
  runtimeCommand,
  text,
  waitFor,
} from "../_helpers.ts";
import { within } from "../_remote.ts";
import { hostileStdio, SECRET, WAIT_MS } from "./_stdio_peer.ts";

const cleanups = releaseAfterEach();

function hostile(
  mode: string,
  extra: string[] = [],
  options: MCPToolAdapterOptions = {},
  env?: Record<string, string>,
): MCPToolAdapter {
  return hostileStdio(cleanups, mode, extra, options, env);
}

/** Records the longest gap between ticks of a 10 ms interval: how long the event loop was blocked. */
function lagMeter(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}

describe("hostile stdio servers: malformed responses", () => {
  for (
    const [mode, what] of [
      ["null-error", /"error" that is not a JSON-RPC error object \(null\)/],
      ["no-outcome", /neither "result" nor "error"/],
      [
        "string-error",
        /"error" that is not a JSON-RPC error object \(a string\)/,
      ],
    ] as const
  ) {
    it(`settles a call answered with ${mode} at once, as a server error`, async () => {
      const adapter = hostile(mode);
      await adapter.connect();
      const result = await within(
        adapter.invoke("echo", { text: "hi" }, { timeoutMs: 60_000 }),
        WAIT_MS,
        "invoke()",
      );
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /server error/);
      assert.match(result.error!, what);
      assert.ok(adapter.connected, "one bad answer does not end the session");
    });
  }
});

describe("hostile stdio servers: size and framing", () => {
  it("reads a 50 MB result whole, in time linear in its size", async () => {
    const bytes = 50 * 1024 * 1024;
    const adapter = hostile("big", [String(bytes)]);
    await adapter.connect();
    const result = await within(
      adapter.invoke("echo", { text: "" }),
      WAIT_MS,
      "invoke()",
    );
    assert.equal(result.success, true, result.error ?? "");
    const content = result.data.content as { text: string }[];
    assert.equal(content[0]!.text.length, bytes);
  });

  it("fails the connection at maxMessageBytes on an endless line, without stalling the process", async () => {
    const adapter = hostile("endless-line");
    await adapter.connect();
    const lag = lagMeter();
    const error = await within(
      adapter.invoke("echo", { text: "" }).then(
        () => assert.fail("expected the call to fail"),
        (error: unknown) => error,
      ),
      WAIT_MS,
      "invoke()",
    );
    const worstLagMs = lag.stop();
    assert.ok(error instanceof MCPNotConnectedError, `got ${error}`);
    assert.match(
      error.message,
      /larger than maxMessageBytes \(67,108,864 bytes\).*raise the maxMessageBytes option/s,
    );
    assert.equal(adapter.connected, false);
    assert.ok(worstLagMs < 1000, `the event loop stalled ${worstLagMs} ms`);
  });

  it("takes maxMessageBytes as an option and rejects a bad one", async () => {
    assert.throws(
      () => hostile("echo", [], { maxMessageBytes: 0 }),
      /"maxMessageBytes" must be a positive whole number of bytes/,
    );
    const adapter = hostile("big", ["2048"], { maxMessageBytes: 1024 });
    await adapter.connect();
    await assert.rejects(
      within(adapter.invoke("echo", { text: "" }), WAIT_MS, "invoke()"),
      /maxMessageBytes \(1,024 bytes\)/,
    );
  });
});

describe("hostile stdio servers: lifecycle", () => {
  it("ends the session when the server closes stdout but keeps running", async () => {
    // Node, whatever runs the tests: a Deno program keeps a copy of fd 1 open.
    const command = "node";
    const transport = new StdioTransport({
      command,
      args: [fixturePath("hostile.mjs"), "close-stdout"],
    });
    const adapter = new MCPToolAdapter(
      { name: "hostile", transport: "stdio", command },
      { transport },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    const pid = transport.pid!;
    const started = performance.now();
    await assert.rejects(
      within(adapter.invoke("echo", { text: "" }), WAIT_MS, "invoke()"),
      (error: unknown) => {
        assert.ok(error instanceof MCPNotConnectedError, `got ${error}`);
        assert.match(error.message, /closed its stdout but kept running/);
        return true;
      },
    );
    const settledMs = performance.now() - started;
    assert.ok(settledMs < 1000, `the call settled after ${settledMs} ms`);
    assert.equal(adapter.connected, false);
    await adapter.disconnect();
    assert.equal(pidAlive(pid), false, "the server was stopped");
  });

  it("fails the connection when the server floods pings and stops reading, with bounded memory", async () => {
    const errors: Error[] = [];
    const adapter = hostile("ping-flood", [], {
      onError: (error) => errors.push(error),
    });
    const heapBefore = process.memoryUsage().heapUsed;
    await adapter.connect();
    assert.ok(
      await waitFor(() => !adapter.connected, WAIT_MS),
      "the connection failed",
    );
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    await assert.rejects(
      adapter.discoverTools(),
      /is not reading its stdin: more than .* wait to be written/,
    );
    assert.ok(
      heapGrowth < 256 * 1024 * 1024,
      `the heap grew by ${heapGrowth} bytes`,
    );
    assert.ok(errors.length < 100, `${errors.length} errors were reported`);
  });

  it("does not let progress for an untracked request keep tools/list alive", async () => {
    const adapter = hostile("list-progress", [], { requestTimeoutMs: 300 });
    await adapter.connect();
    await assert.rejects(
      within(adapter.discoverTools(), WAIT_MS, "discoverTools()"),
      (error: unknown) => error instanceof MCPTimeoutError,
    );
  });

  it("stops a grandchild that left the process group with setsid (Linux)", {
    skip: process.platform !== "linux",
  }, async () => {
    const lines: string[] = [];
    const { command, args } = runtimeCommand(fixturePath("hostile.mjs"));
    const transport = new StdioTransport({
      command,
      args: [...args, "setsid"],
      onStderr: (line) => lines.push(line),
    });
    const adapter = new MCPToolAdapter(
      { name: "hostile", transport: "stdio", command },
      { transport },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    assert.ok(await waitFor(() => lines.length > 0, WAIT_MS));
    const grandchild = Number(/grandchild (\d+)/.exec(lines[0]!)![1]);
    assert.ok(pidAlive(grandchild));
    cleanups.push(() => {
      if (pidAlive(grandchild)) process.kill(grandchild, "SIGKILL");
      return Promise.resolve();
    });
    await adapter.disconnect();
    assert.equal(pidAlive(grandchild), false, "the grandchild was stopped");
  });
});

describe("hostile stdio servers: validation", () => {
  it("does not stall on a catastrophic pattern: leaves it to the server, checks the rest", async () => {
    const adapter = hostile("echo");
    await adapter.connect();
    const lag = lagMeter();
    const result = await within(
      adapter.invoke("redos", { word: `${"a".repeat(40)}!` }),
      WAIT_MS,
      "invoke()",
    );
    const worstLagMs = lag.stop();
    assert.equal(result.success, true, result.error ?? "");
    assert.ok(worstLagMs < 100 * 5, `the event loop stalled ${worstLagMs} ms`);
    const typed = await adapter.invoke("redos", { word: 5 });
    assert.equal(typed.errorKind, "validation");
  });

  it("rejects arguments too deep to check, and keeps validating later calls", async () => {
    const adapter = hostile("echo");
    await adapter.connect();
    let tree: Record<string, unknown> = {};
    for (let depth = 0; depth < 20_000; depth++) tree = { next: tree };
    const deep = await adapter.invoke("deep", { tree });
    assert.equal(deep.errorKind, "validation");
    assert.match(deep.error!, /nested too deeply/);
    const invalid = await adapter.invoke("deep", { tree: { next: 5 } });
    assert.equal(invalid.errorKind, "validation", "validation is still on");
    const valid = await adapter.invoke("deep", { tree: { next: {} } });
    assert.equal(valid.success, true, valid.error ?? "");
  });
});

describe("hostile stdio servers: secrets", () => {
  it("masks env values before cutting stderr lines and stdout excerpts", async () => {
    const errors: string[] = [];
    const lines: string[] = [];
    const { command, args } = runtimeCommand(fixturePath("hostile.mjs"));
    const transport = new StdioTransport({
      command,
      args: [...args, "echo-secret"],
      env: { SECRET },
      onStderr: (line) => lines.push(line),
    });
    const adapter = new MCPToolAdapter(
      { name: "hostile", transport: "stdio", command, env: { SECRET } },
      { transport, onError: (error) => errors.push(error.message) },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    assert.ok(
      await waitFor(() => errors.length > 0 && lines.length > 0, WAIT_MS),
    );
    const texts = [...errors, ...lines, ...transport.stderrTail];
    for (const text of texts) {
      for (let start = 0; start + 5 <= SECRET.length; start++) {
        const fragment = SECRET.slice(start, start + 5);
        assert.ok(
          !text.includes(fragment),
          `${JSON.stringify(fragment)} leaked in ${text.slice(-60)}`,
        );
      }
    }
    assert.ok(texts.some((text) => text.includes("[redacted]")));
  });
});

describe("hostile stdio servers: notification floods", () => {
  it("11,000 tool-list announcements: the hub relists a few times, one listing at a time, and ends on the last list", async () => {
    const { command, args } = runtimeCommand(fixturePath("hostile.mjs"));
    const hub = new MCPToolHub([{
      name: "hostile",
      transport: "stdio",
      command,
      args: [...args, "list-flood"],
    }]);
    cleanups.push(() => hub.close());
    await hub.start();
    const adapter = hub.adapter("hostile")!;

    assert.ok(
      await waitFor(() => hub.registry.has("hostile/after_flood"), WAIT_MS),
      "the list after the flood is registered",
    );

    const seen = JSON.parse(text(await adapter.invoke("lists", {})));
    assert.equal(seen.flooding, false);
    assert.equal(seen.most, 1, "one listing in flight at a time");
    // About two listings a second while it lasts (the hub waits 500 ms
    // before a refresh queued during another), plus the first and the last.
    assert.ok(
      seen.lists <= seen.floodMs / 500 + 6,
      `${seen.lists} listings for 11,001 announcements in ${seen.floodMs} ms`,
    );
  });

  it("callers that need the tool list while announcements flood in share one listing in flight", async () => {
    const adapter = hostile("list-flood");
    await adapter.connect();
    const calling = Array.from({ length: 5 }, async () => {
      for (;;) {
        const result = await adapter.invoke("lists", {});
        if (!JSON.parse(text(result)).flooding) return JSON.parse(text(result));
      }
    });
    const seen = (await within(
      Promise.all(calling),
      WAIT_MS,
      "calls during the flood",
    )).at(-1);
    assert.equal(seen.most, 1, `${seen.most} listings in flight at once`);
  });
});
