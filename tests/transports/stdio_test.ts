import assert from "node:assert/strict";
import process from "node:process";
import { afterEach, describe, it } from "node:test";
import { MCPConnectionError, StdioTransport } from "@cleveragents/mcp-adapter";
import type {
  JSONRPCMessage,
  StdioTransportOptions,
} from "@cleveragents/mcp-adapter";
import { fixturePath, pidAlive, runtimeCommand, waitFor } from "../_helpers.ts";
import {
  NETWORK_ENV_KEYS,
  POSIX_ENV_KEYS,
  POSIX_NETWORK_ENV_KEYS,
} from "../../src/util/child_env.ts";

const TEST_TIMEOUT_MS = 30_000;
/** How long a test waits for something a server should do promptly. */
const WAIT_MS = 10_000;
const isWindows = process.platform === "win32";

/** Transports and stray pids the current test started; afterEach cleans them up. */
const transports: StdioTransport[] = [];
const strayPids: number[] = [];

afterEach(async () => {
  const closing = transports.splice(0);
  await Promise.all(closing.map((transport) => transport.close()));
  // A safety net for when close() itself is what failed.
  const pids = closing.map((transport) => transport.pid);
  for (const pid of [...pids, ...strayPids.splice(0)]) {
    if (pid === undefined || !pidAlive(pid)) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone, as it should be.
    }
  }
});

function fixture(
  name: string,
  options: Partial<StdioTransportOptions> = {},
): StdioTransport {
  const transport = new StdioTransport({
    ...runtimeCommand(fixturePath(name)),
    closeTimeoutMs: 1000,
    ...options,
  });
  transports.push(transport);
  return transport;
}

interface Recording {
  messages: JSONRPCMessage[];
  errors: Error[];
  closes: number;
  /** How many messages had arrived when onclose ran. */
  messagesAtClose: number | undefined;
}

function record(transport: StdioTransport): Recording {
  const recording: Recording = {
    messages: [],
    errors: [],
    closes: 0,
    messagesAtClose: undefined,
  };
  transport.onmessage = (message) => recording.messages.push(message);
  transport.onerror = (error) => recording.errors.push(error);
  transport.onclose = () => {
    recording.closes++;
    recording.messagesAtClose ??= recording.messages.length;
  };
  return recording;
}

// deno-lint-ignore no-explicit-any
type AnyMessage = Record<string, any>;

async function waitForMessage(
  recording: Recording,
  method: string,
): Promise<AnyMessage> {
  const find = () =>
    recording.messages.find((message) =>
      "method" in message && message.method === method
    );
  assert.ok(
    await waitFor(() => find() !== undefined, WAIT_MS),
    `no "${method}" message within ${WAIT_MS} ms`,
  );
  return find() as AnyMessage;
}

async function waitForClose(recording: Recording): Promise<void> {
  assert.ok(
    await waitFor(() => recording.closes > 0, WAIT_MS),
    `onclose not called within ${WAIT_MS} ms`,
  );
}

describe("StdioTransport", () => {
  it(
    "round-trips messages with an echo server",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const transport = fixture("echo.mjs");
      const recording = record(transport);
      await transport.start();
      assert.equal(typeof transport.pid, "number");
      await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
      await transport.send({
        jsonrpc: "2.0",
        id: "two",
        method: "tools/list",
        params: { cursor: "c ✓" },
      });
      await transport.send({
        jsonrpc: "2.0",
        method: "notifications/initialized",
      });
      assert.ok(await waitFor(() => recording.messages.length === 3, WAIT_MS));
      assert.deepEqual(recording.messages, [
        {
          jsonrpc: "2.0",
          id: 1,
          result: { echo: { jsonrpc: "2.0", id: 1, method: "ping" } },
        },
        {
          jsonrpc: "2.0",
          id: "two",
          result: {
            echo: {
              jsonrpc: "2.0",
              id: "two",
              method: "tools/list",
              params: { cursor: "c ✓" },
            },
          },
        },
        {
          jsonrpc: "2.0",
          id: 0,
          result: {
            echo: { jsonrpc: "2.0", method: "notifications/initialized" },
          },
        },
      ]);
      assert.deepEqual(recording.errors, []);
      await transport.close();
      // The echo server exits by itself once its stdin closes.
      assert.deepEqual(transport.exitStatus, { code: 0, signal: null });
      assert.equal(recording.closes, 1);
    },
  );

  it("delivers many concurrent sends intact and in order", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const transport = fixture("echo.mjs");
    const recording = record(transport);
    await transport.start();
    const count = 200;
    // Every 10th message is larger than a pipe buffer, so writes are partial.
    const payload = (
      i: number,
    ) => (i % 10 === 0 ? "y".repeat(200_000) : `p${i}`);
    await Promise.all(
      Array.from(
        { length: count },
        (_, i) =>
          transport.send({
            jsonrpc: "2.0",
            id: i,
            method: "echo",
            params: { i, data: payload(i) },
          }),
      ),
    );
    assert.ok(
      await waitFor(() => recording.messages.length === count, WAIT_MS),
    );
    assert.deepEqual(recording.errors, []);
    recording.messages.forEach((message, i) => {
      const echoed = (message as AnyMessage).result.echo;
      assert.equal((message as AnyMessage).id, i);
      assert.equal(echoed.params.i, i);
      assert.equal(echoed.params.data, payload(i));
    });
  });

  it(
    "reads split, batched, CRLF and unterminated lines, and reports bad lines without stopping",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const transport = fixture("frames.mjs", { name: "frames-server" });
      const recording = record(transport);
      await transport.start();
      await waitForClose(recording);
      const notes = recording.messages.map((message) =>
        (message as AnyMessage).params
      );
      assert.deepEqual(
        notes,
        [1, 2, 3, 4, 5, 6, 7].map((n) => ({ n, text: "héllo ✓ 🎉" })),
      );
      // The last, unterminated line was delivered before onclose.
      assert.equal(recording.messagesAtClose, 7);
      assert.equal(
        recording.errors.length,
        3,
        recording.errors.map((error) => error.message).join("\n"),
      );
      const [notJson, notObject, long] = recording.errors.map((error) =>
        error.message
      );
      assert.match(notJson!, /not JSON: "this is not json"/);
      // The configured name, not the executable ("node", "deno").
      assert.match(notJson!, /^MCP server "frames-server" wrote a line/);
      assert.match(notObject!, /not a JSON-RPC message object: "\[1,2\]"/);
      assert.ok(long!.includes("x".repeat(200)), long);
      assert.ok(
        !long!.includes("x".repeat(201)),
        "the excerpt is cut to 200 characters",
      );
      assert.ok(
        long!.length < 500,
        `message too long: ${long!.length} characters`,
      );
    },
  );

  it("gives the server only allow-listed variables plus its config env", {
    timeout: TEST_TIMEOUT_MS,
    // The POSIX list; windows_live_test.ts checks Windows's.
    skip: isWindows && "POSIX allowlist (Windows: windows_live_test.ts)",
  }, async () => {
    const saved = {
      secret: process.env.MCP_TEST_SECRET,
      ctype: process.env.LC_CTYPE,
    };
    process.env.MCP_TEST_SECRET = "do-not-leak-4f1c";
    process.env.LC_CTYPE = "() { echo exported shell function; }";
    try {
      const config = { MCP_TEST_CONFIG: "from-config", USER: "config-user" };
      const transport = fixture("env.mjs", { env: config });
      const recording = record(transport);
      await transport.start();
      const env = (await waitForMessage(recording, "env")).params as Record<
        string,
        string
      >;
      assert.equal(env.MCP_TEST_CONFIG, "from-config");
      assert.equal(
        env.USER,
        "config-user",
        "config env wins over the parent's value",
      );
      assert.equal(env.PATH, process.env.PATH);
      assert.equal(env.MCP_TEST_SECRET, undefined);
      assert.equal(
        env.LC_CTYPE,
        undefined,
        "values starting with () are skipped",
      );
      // What every program needs, the CA, proxy and cache variables
      // (stdio_env_test.ts pins those), and the config's.
      const allowed = new Set([
        ...POSIX_ENV_KEYS,
        ...NETWORK_ENV_KEYS,
        ...POSIX_NETWORK_ENV_KEYS,
        ...Object.keys(config),
      ]);
      assert.deepEqual(Object.keys(env).filter((key) => !allowed.has(key)), []);
    } finally {
      for (
        const [key, value] of [["MCP_TEST_SECRET", saved.secret], [
          "LC_CTYPE",
          saved.ctype,
        ]] as const
      ) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("start() rejects with MCPConnectionError naming a missing executable", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const transport = new StdioTransport({ command: "nope-mcp-server-x" });
    const recording = record(transport);
    await assert.rejects(transport.start(), (error: unknown) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.equal(error.code, "connection_failed");
      assert.match(error.message, /"nope-mcp-server-x"/);
      assert.match(error.message, /executable not found.*absolute path/);
      return true;
    });
    assert.equal(transport.pid, undefined);
    await transport.close();
    assert.equal(recording.closes, 0, "nothing was opened, so nothing closes");
    await assert.rejects(
      transport.send({ jsonrpc: "2.0", method: "x" }),
      MCPConnectionError,
    );
  });

  it(
    "start() rejects with MCPConnectionError naming a missing working directory",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const cwd = fixturePath("no-such-directory");
      const transport = fixture("echo.mjs", { cwd });
      await assert.rejects(transport.start(), (error: unknown) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.ok(error.message.includes(JSON.stringify(cwd)), error.message);
        assert.match(error.message, /does not exist/);
        return true;
      });
    },
  );

  it("close() kills a server that ignores stdin EOF and SIGTERM", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const transport = fixture("stubborn.mjs", { closeTimeoutMs: 300 });
    const recording = record(transport);
    await transport.start();
    const ready = await waitForMessage(recording, "ready");
    const pid = transport.pid!;
    assert.equal(ready.params.pid, pid);
    const startedAt = Date.now();
    await transport.close();
    assert.ok(
      Date.now() - startedAt < 5000,
      `close() took ${Date.now() - startedAt} ms`,
    );
    assert.equal(pidAlive(pid), false, "the server survived close()");
    assert.deepEqual(transport.exitStatus, {
      code: null,
      signal: isWindows ? null : "SIGKILL",
    });
    assert.equal(recording.closes, 1);
  });

  it(
    "close() also stops a grandchild left behind in the server's process group",
    {
      timeout: TEST_TIMEOUT_MS,
      skip: isWindows,
    },
    async () => {
      const transport = fixture("grandchild.mjs", { closeTimeoutMs: 300 });
      const recording = record(transport);
      await transport.start();
      // The grandchild ignores SIGTERM and holds the server's stdout open.
      const grandchild = (await waitForMessage(recording, "ready")).params
        .pid as number;
      strayPids.push(grandchild);
      assert.equal(pidAlive(grandchild), true);
      await transport.close();
      // The server itself exited on stdin EOF...
      assert.deepEqual(transport.exitStatus, { code: 0, signal: null });
      // ...and close() did not return before its orphan was gone.
      assert.equal(
        pidAlive(grandchild),
        false,
        `grandchild ${grandchild} survived close()`,
      );
      assert.equal(recording.closes, 1);
    },
  );

  it("close() signals the whole process group of a `sh -c` server", {
    timeout: TEST_TIMEOUT_MS,
    skip: isWindows,
  }, async () => {
    const transport = new StdioTransport({
      command: "sh",
      args: [
        "-c",
        `sleep 60 & echo '{"jsonrpc":"2.0","method":"ready","params":{"pid":'$!'}}'; wait`,
      ],
      closeTimeoutMs: 300,
    });
    transports.push(transport);
    const recording = record(transport);
    await transport.start();
    const sleeper = (await waitForMessage(recording, "ready")).params
      .pid as number;
    strayPids.push(sleeper);
    const shell = transport.pid!;
    await transport.close();
    assert.equal(pidAlive(shell), false, "the shell survived close()");
    assert.equal(
      pidAlive(sleeper),
      false,
      `the backgrounded sleep ${sleeper} survived close()`,
    );
    assert.equal(transport.exitStatus?.signal, "SIGTERM");
  });

  it(
    "close() is idempotent: concurrent calls share one promise, onclose runs once",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const transport = fixture("echo.mjs");
      const recording = record(transport);
      await transport.start();
      const first = transport.close();
      const second = transport.close();
      assert.equal(first, second);
      await first;
      await transport.close();
      assert.equal(recording.closes, 1);
      await assert.rejects(
        transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
        (error: unknown) => {
          assert.ok(error instanceof MCPConnectionError);
          assert.match(error.message, /not running; call connect\(\) again/);
          return true;
        },
      );
      await assert.rejects(transport.start(), MCPConnectionError);
    },
  );

  it("close() before start() starts nothing and resolves", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const transport = fixture("echo.mjs");
    const recording = record(transport);
    await transport.close();
    assert.equal(transport.pid, undefined);
    assert.equal(recording.closes, 0);
    await assert.rejects(transport.start(), MCPConnectionError);
  });

  it(
    "a crashing server triggers onclose once, after its last message, with the crash in stderrTail",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const transport = fixture("crash.mjs");
      const recording = record(transport);
      await transport.start();
      await waitForClose(recording);
      assert.equal(recording.messagesAtClose, 1);
      assert.deepEqual(recording.messages, [{
        jsonrpc: "2.0",
        method: "last-words",
      }]);
      assert.equal(transport.exitStatus?.code, 1);
      const tail = transport.stderrTail;
      assert.ok(tail.includes("about to fail"), tail.join("\n"));
      assert.ok(
        tail.some((line) => line.includes("fixture crashed: boom")),
        tail.join("\n"),
      );
      await assert.rejects(
        transport.send({ jsonrpc: "2.0", method: "x" }),
        MCPConnectionError,
      );
      await transport.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(recording.closes, 1);
    },
  );

  it("drains more than 1 MB of stderr so the server never blocks", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const lines: string[] = [];
    const transport = fixture("chatty.mjs", {
      onStderr: (line) => lines.push(line),
    });
    const recording = record(transport);
    await transport.start();
    const done = await waitForMessage(recording, "done");
    await transport.send({ jsonrpc: "2.0", id: 7, method: "ping" });
    assert.ok(
      await waitFor(
        () =>
          recording.messages.some((message) =>
            "id" in message && message.id === 7
          ),
        WAIT_MS,
      ),
    );
    await transport.close();
    assert.equal(lines.length, done.params.lines);
    assert.equal(lines.at(-1)?.slice(0, 13), "chatter 16384");
    const tail = transport.stderrTail;
    assert.equal(tail.length, 20);
    assert.deepEqual(tail, lines.slice(-20));
  });
});
