/**
 * A Windows path written with single backslashes in a JSON config
 * (`"C:\tools\new.exe"`) holds a tab and a line break once parsed: the
 * loader says so at the value's line and column, with the fix (write `\\`
 * or `/`), for `command`, `args`, `cwd` and `envFile`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  loadConfig,
  MCPConfigFileError,
} from "@cleveragents/mcp-adapter/config";
import { validateServerConfig } from "@cleveragents/mcp-adapter";

describe("control characters in paths are a config error", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-winpaths-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function problems(json: string): Promise<MCPConfigFileError> {
    const file = join(dir, "mcp.json");
    await writeFile(file, json);
    try {
      await loadConfig(file, { env: {} });
    } catch (error) {
      assert.ok(error instanceof MCPConfigFileError, String(error));
      return error;
    }
    assert.fail("loadConfig() did not throw");
  }

  it("names file:line:col, the character and the fix for command, args, cwd, envFile", async () => {
    // Written as a Windows user writes it: single backslashes.
    const json = [
      "{",
      '  "mcpServers": {',
      '    "tools": {',
      '      "command": "C:\\tools\\new.exe",',
      '      "args": ["--root", "D:\\repos\\bin"],',
      '      "cwd": "D:\\repos\\bin",',
      '      "envFile": "C:\\new\\file.env"',
      "    }",
      "  }",
      "}",
    ].join("\n");
    const error = await problems(json);
    const file = join(dir, "mcp.json");
    const byPath = new Map(error.problems.map((p) => [p.path, p]));
    const expected: [string, number, RegExp][] = [
      ["mcpServers.tools.command", 4, /a tab \(\\t\)/],
      ["mcpServers.tools.args[1]", 5, /a carriage return \(\\r\)/],
      ["mcpServers.tools.cwd", 6, /a carriage return \(\\r\)/],
      ["mcpServers.tools.envFile", 7, /a line break \(\\n\)/],
    ];
    for (const [path, line, what] of expected) {
      const problem = byPath.get(path);
      assert.ok(problem, `no problem at ${path}: ${error.message}`);
      assert.equal(problem.line, line, path);
      assert.ok(problem.column !== undefined && problem.column > 0, path);
      assert.ok(
        problem.message.startsWith(`${file}:${line}:${problem.column}: `),
        problem.message,
      );
      assert.match(problem.message, what);
      assert.match(problem.message, /write `\\\\` or `\/`/);
    }
  });

  it("loads the same config written with \\\\ or /", async () => {
    const json = JSON.stringify({
      mcpServers: {
        tools: {
          command: "C:\\tools\\new.exe",
          args: ["--root", "D:/repos/bin"],
          cwd: "D:\\repos\\bin",
        },
      },
    });
    const file = join(dir, "ok.json");
    await writeFile(file, json);
    const loaded = await loadConfig(file, { env: {} });
    assert.equal(loaded.servers[0]?.config.transport, "stdio");
  });

  it("validateServerConfig() refuses a tab in command too", () => {
    assert.throws(
      () =>
        validateServerConfig({
          name: "t",
          transport: "stdio",
          command: "C:\tools\\new.exe",
        }),
      /command: contains a tab/,
    );
  });
});
