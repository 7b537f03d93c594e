/**
 * The `mcp-adapter` command line against modern-only servers (MCP
 * 2026-07-28, the official SDK v2 with `legacy: "reject"`), run as a
 * subprocess: `check` names the protocol version and the modern era, over
 * stdio and over streamable HTTP.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cliWorkspace } from "./_run.ts";
import { modernStdioCommand, startModernHttp } from "../_modern.ts";

const TEST_TIMEOUT_MS = 90_000;
const MODERN = /protocol 2026-07-28 \(modern era\)/;

describe("mcp-adapter (the command line): modern servers", () => {
  const ws = cliWorkspace();
  const { cli } = ws;

  it("check over stdio says protocol 2026-07-28 (modern era)", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const config = join(ws.dir, "modern.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { modern: modernStdioCommand("reject") } }),
    );
    const run = await cli(["check", "--config", config]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^modern\s+ok\s+protocol 2026-07-28 \(modern era\) over stdio, \d+ tools, connected in \d+ ms$/m,
    );
    const json = await cli(["check", "--json", "--config", config]);
    assert.equal(json.code, 0, json.stderr);
    // The server's instructions, escaped for the terminal.
    assert.match(
      run.stdout,
      /^modern instructions:\n {2}SDK v2 test fixture$/m,
    );
    const [status] = JSON.parse(json.stdout);
    assert.equal(status.instructions, "SDK v2 test fixture");
    assert.equal(status.state, "connected");
    assert.equal(status.era, "modern");
    assert.equal(status.protocolVersion, "2026-07-28");
  });

  it("check --url over streamable HTTP says protocol 2026-07-28 (modern era)", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const server = await startModernHttp("reject");
    try {
      const run = await cli(["check", "--url", server.url, "--name", "modern"]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, MODERN);
      assert.match(
        run.stdout,
        /^modern\s+ok\s+protocol 2026-07-28 \(modern era\) over streamable-http, \d+ tools, connected in \d+ ms$/m,
      );
      // It spoke the modern era: a server/discover probe, no initialize.
      const methods = server.seen.map((request) => request.method);
      assert.ok(methods.includes("server/discover"), methods.join(", "));
      assert.ok(!methods.includes("initialize"), methods.join(", "));
    } finally {
      await server.close();
    }
  });

  it(
    "--protocol pins an inline server's era or revision, over stdio and --url",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      // A server of both eras: without --protocol it would speak the modern one.
      const both = modernStdioCommand("serve");
      const inline = ["--", both.command, ...both.args];
      for (
        const [choice, era, version] of [
          ["legacy", "legacy", "2025-11-25"],
          ["2025-06-18", "legacy", "2025-06-18"],
          ["modern", "modern", "2026-07-28"],
        ] as const
      ) {
        const run = await cli([
          "check",
          "--json",
          "--protocol",
          choice,
          ...inline,
        ]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const [status] = JSON.parse(run.stdout);
        assert.equal(status.era, era, choice);
        assert.equal(status.protocolVersion, version, choice);
      }
      const server = await startModernHttp("serve");
      try {
        const run = await cli([
          "check",
          "--url",
          server.url,
          "--protocol",
          "legacy",
        ]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.match(run.stdout, /protocol 2025-11-25 \(legacy era\)/);
        const methods = server.seen.map((request) => request.method);
        assert.ok(!methods.includes("server/discover"), methods.join(", "));
      } finally {
        await server.close();
      }
    },
  );
});
