import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  loadConfig,
  MCPConfigFileError,
  parseConfig,
} from "@cleveragents/mcp-adapter/config";
import { check, parseError, yaml } from "./_config_errors.ts";

/** The error `run` throws, or fails the test after `ms` (a read that never ends). */
async function rejectsWithin(
  run: () => Promise<unknown>,
  ms: number,
): Promise<MCPConfigFileError> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running after ${ms} ms`)),
      ms,
    );
  });
  try {
    await Promise.race([run(), deadline]);
  } catch (error) {
    assert.ok(error instanceof MCPConfigFileError, String(error));
    return error;
  } finally {
    clearTimeout(timer);
  }
  assert.fail("expected an MCPConfigFileError");
}

function thrown(run: () => unknown): MCPConfigFileError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof MCPConfigFileError, String(error));
    return error;
  }
  assert.fail("expected an MCPConfigFileError");
}

describe("variables in every field they can appear in", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-cwd-"));
    await mkdir(join(dir, ".vscode"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("replaces ${workspaceFolder} in cwd, as in args and envFile", async () => {
    const file = join(dir, ".vscode", "mcp.json");
    await writeFile(
      file,
      JSON.stringify({
        servers: {
          local: {
            command: "srv",
            args: ["${workspaceFolder}/data"],
            cwd: "${workspaceFolder}/sub",
          },
        },
      }),
    );
    const { servers } = await loadConfig(file, { env: {} });
    const config = servers[0]!.config;
    assert.equal(config.transport, "stdio");
    if (config.transport !== "stdio") return;
    assert.equal(config.cwd, join(dir, "sub"));
    assert.deepEqual(config.args, [join(dir, "data")]);
  });

  it("replaces ${VAR}, ${userHome} and ${input:id} in cwd, and reports an unset one there", () => {
    const { servers } = parseConfig(
      JSON.stringify({
        inputs: [{ id: "dir", type: "promptString" }],
        mcpServers: {
          a: { command: "x", cwd: "${userHome}/${SUB:-s}/${input:dir}" },
        },
      }),
      "json",
      { env: {}, userHome: "/home/u", inputs: { dir: "d" } },
    );
    assert.equal((servers[0]!.config as { cwd?: string }).cwd, "/home/u/s/d");
    check(
      thrown(() =>
        parseConfig(
          yaml([
            "servers:",
            "  - name: a",
            "    transport: stdio",
            "    command: x",
            "    cwd: ${PROJECT}/x",
          ]),
          "yaml",
          { env: {}, source: "mcp.yaml" },
        )
      ),
      {
        path: "servers[0].cwd",
        line: 5,
        message:
          "mcp.yaml:5:5: servers[0].cwd uses ${PROJECT}, which is not set; export it or write ${PROJECT:-default}",
      },
    );
  });

  it("says at load time that a name, namespace or tool pattern is not interpolated", () => {
    const error = parseError(
      yaml([
        "servers:",
        "  - name: ${TEAM}-notes",
        "    namespace: ${NS}",
        "    transport: stdio",
        "    command: x",
        '    filter: { include: ["${TOOL}"] }',
        '    overrides: { "${T}": { read_only: true } }',
      ]),
      { path: "servers[0].name", line: 2 },
      { env: { TEAM: "t", NS: "n", TOOL: "x", T: "y" } },
    );
    assert.deepEqual(error.problems.map((problem) => problem.path), [
      "servers[0].name",
      "servers[0].namespace",
      "servers[0].filter.include[0]",
      'servers[0].overrides["${T}"]',
    ]);
    assert.match(
      error.problems[0]!.message,
      /servers\[0\]\.name uses \$\{TEAM\}, but variables are not replaced in a server's name; write the value itself$/,
    );
    const keyed = parseError(
      '{ "mcpServers": { "${NAME}": { "command": "x" } } }',
      { path: 'mcpServers["${NAME}"]' },
      { format: "json" },
    );
    assert.match(keyed.message, /not replaced in a server's name/);
    // `$${` is no reference: nothing to report.
    parseConfig(
      yaml(["servers:", "  - { name: a, transport: stdio, command: x }"]),
      "yaml",
    );
  });
});

describe("server entries that are not objects", () => {
  it("mcpServers: { a: null } is a problem naming the entry, collected with the others", () => {
    const error = parseError(
      '{"mcpServers": {"a": null, "b": {"command": "x", "url": "https://x"}}}',
      { path: "mcpServers.a", line: 1, column: 17 },
      { format: "json" },
    );
    assert.deepEqual(error.problems.map((problem) => problem.path), [
      "mcpServers.a",
      "mcpServers.b",
    ]);
    assert.match(
      error.problems[0]!.message,
      /^mcp\.json:1:17: mcpServers\.a: .*null/,
    );
  });

  it('{"servers": [null]} and a VS Code {"servers": {"a": null}}', () => {
    parseError('{"servers": [null]}', {
      path: "servers[0]",
      line: 1,
      column: 14,
    }, { format: "json" });
    parseError('{"servers": {"a": null}}', {
      path: "servers.a",
      line: 1,
      column: 14,
    }, { format: "json" });
  });

  it("an empty YAML list item is reported at its dash, with every other problem", () => {
    const error = parseError(
      yaml([
        "servers:",
        "  - name: a-b",
        "    transport: stdio",
        "    command: x - y",
        "  -",
        "  # - a comment",
        "  - ~",
        "  - name: c",
      ]),
      { path: "servers[1]", line: 5, column: 3 },
    );
    assert.deepEqual(
      error.problems.map(({ path, line, column }) => [path, line, column]),
      [["servers[1]", 5, 3], ["servers[2]", 7, 5], ["servers[3]", 8, 5]],
    );
  });
});

describe("nesting depth", () => {
  const TOO_DEEP = /is nested more than 100 levels deep/;

  for (const depth of [102, 10_000, 200_000]) {
    it(`JSON nested ${depth} deep is the depth error, not a stack overflow`, () => {
      for (
        const text of [
          `{"servers": ${"[".repeat(depth)}${"]".repeat(depth)}}`,
          `{"servers": [], "x": ${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
          // JSONC: comments and strings are not brackets.
          `// [[[\n{"servers": [], /* {{{ */ "s": "[[[", "x": ${
            "[".repeat(depth)
          }${"]".repeat(depth)}}`,
        ]
      ) {
        parseError(text, {
          message: TOO_DEEP,
          line: text.startsWith("//") ? 2 : 1,
        }, { format: "json" });
      }
    });
  }

  it("YAML nested 10,000 deep (flow or block) is the same error", () => {
    const flow = `servers: []\nx: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`;
    const block = "servers: []\n" +
      Array.from({ length: 10_000 }, (_, i) => `${" ".repeat(i)}x:`).join(
        "\n",
      ) + " 1\n";
    for (const text of [flow, block]) {
      const error = parseError(text, { message: TOO_DEEP });
      assert.ok(error.line !== undefined && error.line >= 2);
    }
  });

  it("YAML aliases that nest a value deeper than its text are caught too", () => {
    const lines = [`x0: &a0 ${"[".repeat(60)}1${"]".repeat(60)}`];
    for (let i = 1; i < 300; i++) {
      lines.push(`x${i}: &a${i} ${"[".repeat(60)}*a${i - 1}${"]".repeat(60)}`);
    }
    lines.push("servers: []");
    parseError(yaml(lines), { message: TOO_DEEP, line: 2 });
  });

  it("100 levels are allowed, 101 are not, in JSON and YAML alike", () => {
    const nested = (levels: number) =>
      `${"[".repeat(levels)}1${"]".repeat(levels)}`;
    // The root object is level 0; `x`'s lists are 1 … n; the 1 is at n + 1.
    parseConfig(`{"servers": [], "x": ${nested(99)}}`, "json");
    parseConfig(`servers: []\nx: ${nested(99)}\n`, "yaml");
    parseError(`{"servers": [], "x": ${nested(100)}}`, {
      message: TOO_DEEP,
    }, { format: "json" });
    parseError(`servers: []\nx: ${nested(100)}\n`, { message: TOO_DEEP });
  });
});

describe("envFile: regular files only, at most 1 MiB", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-envfile-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const load = (envFile: string) =>
    loadConfig(
      {
        text: JSON.stringify({
          mcpServers: { s: { command: "x", envFile } },
        }),
        format: "json",
      },
      { env: {}, workspaceFolder: dir },
    );

  it("refuses /dev/zero at once, as a device", {
    skip: process.platform === "win32",
  }, async () => {
    const started = Date.now();
    const error = await rejectsWithin(() => load("/dev/zero"), 3_000);
    check(error, {
      path: "mcpServers.s.envFile",
      message:
        /mcpServers\.s\.envFile: cannot read \/dev\/zero: it is a character device; an envFile must be a regular file/,
    });
    assert.ok(Date.now() - started < 3_000);
  });

  it("refuses a FIFO without waiting for a writer", {
    skip: process.platform === "win32",
  }, async () => {
    const fifo = join(dir, "pipe.env");
    execFileSync("mkfifo", [fifo]);
    const error = await rejectsWithin(() => load(fifo), 3_000);
    assert.match(
      error.message,
      /it is a FIFO \(named pipe\); an envFile must be a regular file/,
    );
  });

  it("refuses a file over 1 MiB, and a directory; reads one of 1 MiB", async () => {
    await writeFile(join(dir, "big.env"), `A=${"x".repeat(1024 * 1024)}\n`);
    check(await rejectsWithin(() => load("big.env"), 10_000), {
      message: /cannot read .*big\.env: it is larger than 1 MiB/,
    });
    check(await rejectsWithin(() => load("."), 10_000), {
      message: /it is a directory/,
    });
    const value = "y".repeat(1024 * 1024 - 3);
    await writeFile(join(dir, "max.env"), `B=${value}\n`);
    assert.equal(1024 * 1024, `B=${value}\n`.length);
    const { servers } = await load("max.env");
    assert.equal(
      (servers[0]!.config as { env?: Record<string, string> }).env?.B,
      value,
    );
  });
});
