/**
 * What a stdio server (`fixtures/hostile.mjs`) writes that ends up in
 * messages, logs and `onLog`: its secrets are masked, even in log data and
 * across the 64 KiB cut of a long stderr line, and its long text is cut
 * (after masking) before it enters an error message.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type MCPLogLevel,
  MCPProtocolError,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  StdioTransport,
} from "@cleveragents/mcp-adapter";
import {
  fixturePath,
  releaseAfterEach,
  runtimeCommand,
  waitFor,
} from "../_helpers.ts";
import { hostileStdio, SECRET, WAIT_MS } from "./_stdio_peer.ts";

const cleanups = releaseAfterEach();

function hostile(
  mode: string,
  options: MCPToolAdapterOptions = {},
): MCPToolAdapter {
  return hostileStdio(cleanups, mode, [], options, { SECRET });
}

/** `hostile(mode, options)`, and what it reports to `onError`. */
function reporting(
  mode: string,
  options: MCPToolAdapterOptions = {},
): { adapter: MCPToolAdapter; errors: Error[] } {
  const errors: Error[] = [];
  const adapter = hostile(mode, {
    ...options,
    onError: (error) => errors.push(error),
  });
  return { adapter, errors };
}

/** Fails when `text` holds any five characters of the secret in a row. */
function assertNoSecret(text: string): void {
  for (let start = 0; start + 5 <= SECRET.length; start++) {
    const fragment = SECRET.slice(start, start + 5);
    const at = text.indexOf(fragment);
    assert.equal(
      at,
      -1,
      `${JSON.stringify(fragment)} leaked in …${
        text.slice(Math.max(0, at - 40), at + 40)
      }…`,
    );
  }
}

/**
 * Fails unless `deep`, 100 levels of lists in the server's data, was walked
 * to the bound and its rest stands in a marker.
 */
function assertCutDeep(deep: unknown): void {
  let levels = 1;
  while (Array.isArray(deep)) [deep, levels] = [deep[0], levels + 1];
  assert.equal(deep, "[nested too deeply]");
  assert.ok(levels > 32 && levels < 100, `${levels} levels kept`);
}

describe("hostile stdio servers: log messages", () => {
  it("reach onLog with the secrets masked in logger, strings and property names, the shape kept", async () => {
    const logs: { level: MCPLogLevel; logger?: string; data: unknown }[] = [];
    const adapter = hostile("log-secret", {
      onLog: (level, logger, data) => void logs.push({ level, logger, data }),
    });
    await adapter.connect();
    const result = await adapter.invoke("echo", { text: "hi" });
    assert.equal(result.success, true, result.error ?? "");
    assert.equal(logs.length, 1);
    const { level, logger, data } = logs[0]!;
    assert.equal(level, "info");
    assert.equal(logger, "logger [redacted]");
    const record = data as Record<string, unknown>;
    assert.equal(record.text, "Authorization: Bearer [redacted]");
    assert.deepEqual(record.list, [1, true, null, "[redacted]!"]);
    assert.deepEqual(record["key [redacted]"], { inner: "[redacted]" });
    assertCutDeep(record.deep);
    assertNoSecret(JSON.stringify(logs));
  });

  it("one of a 5 MB level is reported to onError in a short message", async () => {
    const { adapter, errors } = reporting("log-level-huge", {
      onLog: () => assert.fail("a log of unknown level reached onLog"),
    });
    await adapter.connect();
    const result = await adapter.invoke("echo", { text: "hi" });
    assert.equal(result.success, true, result.error ?? "");
    assert.ok(await waitFor(() => errors.length > 0, WAIT_MS));
    const message = errors[0]!.message;
    assert.match(message, /unknown level "xxxx/);
    assert.ok(message.length < 400, `${message.length} characters`);
  });
});

describe("hostile stdio servers: long text in messages", () => {
  it("a 3 MB JSON-RPC error message is cut to 1,000 characters, its secret masked across the cut", async () => {
    const { adapter, errors } = reporting("error-huge");
    await adapter.connect();
    const result = await adapter.invoke("echo", { text: "hi" });
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /: E{990}\[redacted\]… \(code -32000\)$/);
    assert.ok(result.error!.length < 1_200, `${result.error!.length}`);
    assertNoSecret(result.error!);
    // The same error without an id, sent after initialize, went to onError.
    assert.ok(await waitFor(() => errors.length > 0, WAIT_MS));
    const orphan = errors[0]!.message;
    assert.match(orphan, /^E{990}\[redacted\]…$/);
    assert.ok(orphan.length <= 1_001, `${orphan.length}`);
    assertNoSecret(orphan);
  });

  it("a JSON-RPC error's data reaches the host with the secrets masked in strings and property names, the shape kept", async () => {
    const { adapter, errors } = reporting("error-huge");
    await adapter.connect();
    assert.ok(await waitFor(() => errors.length > 0, WAIT_MS));
    const error = errors[0]!;
    assert.ok(error instanceof MCPProtocolError, String(error));
    assert.equal(error.rpcCode, -32000);
    const data = error.data as Record<string, unknown>;
    assert.equal(data.text, "Authorization: Bearer [redacted]");
    assert.deepEqual(data["key [redacted]"], [1, "[redacted]!"]);
    assertCutDeep(data.deep);
    assertNoSecret(JSON.stringify(data));
  });
});

describe("hostile stdio servers: frames whose text is not text", () => {
  it("an error without an id whose message is not text, or that is null, is reported as malformed; a request whose method is not text is answered", async () => {
    const { adapter, errors } = reporting("odd-frames");
    await adapter.connect();
    assert.ok(await waitFor(() => errors.length >= 2, WAIT_MS));
    // The request came after both errors; its reply is in by the call's answer.
    const result = await adapter.invoke("echo", { text: "hi" });
    assert.equal(result.success, true, result.error ?? "");
    const [block] = result.data.content as { text: string }[];
    const replies = JSON.parse(block!.text) as {
      id: unknown;
      error?: { code: number };
    }[];
    assert.deepEqual(
      replies.map(({ id, error }) => [id, error?.code]),
      [["odd", -32601]],
    );
    const said = errors.map((error) => error.message);
    for (const message of said) {
      assert.doesNotMatch(message, /primitive value|Cannot read/, message);
    }
    assert.equal(said.length, 2, said.join("\n"));
    for (const message of said) {
      assert.match(message, /not a JSON-RPC error object \((an object|null)\)/);
    }
  });
});

describe("hostile stdio servers: a protocol version that is not one", () => {
  for (
    const [mode, what, said] of [
      [
        "version-huge",
        "3 MB long: the connect error quotes 200 characters of it, no secret",
        /answered with protocol version "9{200}…", which this client does not speak/,
      ],
      [
        "version-deep",
        "a list nested 100,000 deep: the connect error says it is a list",
        /answered with protocol version a list, which this client does not speak/,
      ],
    ] as const
  ) {
    it(what, async () => {
      const error = await hostile(mode).connect().then(
        () => assert.fail("connected"),
        (error: Error) => error,
      );
      assert.match(error.message, said);
      assert.ok(error.message.length < 1_000, `${error.message.length}`);
      assertNoSecret(error.message);
    });
  }
});

describe("hostile stdio servers: a long stderr line", () => {
  it("cut at 64 KiB, never splits a secret: every piece masked, none lost", async () => {
    const lines: string[] = [];
    const { command, args } = runtimeCommand(fixturePath("hostile.mjs"));
    const transport = new StdioTransport({
      command,
      args: [...args, "split-secret"],
      env: { SECRET },
      onStderr: (line) => lines.push(line),
    });
    const adapter = new MCPToolAdapter(
      { name: "hostile", transport: "stdio", command, env: { SECRET } },
      { transport },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    const expected = "debug [redacted] ".repeat(20_000);
    assert.ok(
      await waitFor(
        () => lines.join("").length >= expected.length,
        WAIT_MS,
      ),
      `${lines.join("").length} of ${expected.length} characters`,
    );
    assert.ok(lines.length > 5, `${lines.length} pieces`);
    for (const line of [...lines, ...transport.stderrTail]) {
      assertNoSecret(line);
    }
    assert.equal(lines.join(""), expected);
  });
});
