/**
 * The `mcp-adapter` command line, run as a subprocess against real stdio
 * servers: `deno run -A cli.ts` under Deno, the npm package's `cli.js` under
 * Node.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { fixturePath, runtimeCommand } from "./_helpers.ts";

/** This file runs as .ts under Deno and as transpiled .js under Node; its fixtures follow suit. */
const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
const fixture = runtimeCommand(fixturePath(`sdk_server${ext}`));
const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 90_000;
const SECRET = "sk-cli-test-9f8e7d6c5b4a";

/** How to start the command line on this runtime. */
function cliCommand(): { command: string; args: string[] } {
  if ("Deno" in globalThis) {
    const cli = fileURLToPath(new URL("../cli.ts", import.meta.url));
    return { command: process.execPath, args: ["run", "-A", cli] };
  }
  const cli = fileURLToPath(
    import.meta.resolve("@cleveragents/mcp-adapter/cli"),
  );
  return { command: process.execPath, args: [cli] };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in its own process group and collects its output; the
 * whole group is killed if it outlives `RUN_TIMEOUT_MS`.
 */
function exec(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk) => stdout += chunk);
    child.stderr!.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      reject(new Error(`${command} ${args.join(" ")} timed out:\n${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("mcp-adapter (the command line)", () => {
  let dir: string;
  let config: string;
  let brokenConfig: string;
  let secretConfig: string;

  /** Runs the CLI with `args` in `cwd` (default: the temp folder). */
  function cli(args: readonly string[], cwd = dir): Promise<Run> {
    const { command, args: base } = cliCommand();
    return exec(command, [...base, ...args], cwd);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-cli-test-"));
    const sdk = { command: fixture.command, args: fixture.args };
    config = join(dir, "servers.json");
    await writeFile(config, JSON.stringify({ mcpServers: { sdk } }));
    brokenConfig = join(dir, "broken.json");
    await writeFile(
      brokenConfig,
      JSON.stringify({
        mcpServers: {
          sdk,
          ghost: { command: join(dir, "no-such-mcp-server") },
        },
      }),
    );
    secretConfig = join(dir, "secret.json");
    await writeFile(
      secretConfig,
      JSON.stringify({
        mcpServers: {
          sdk: { ...sdk, env: { API_KEY: SECRET } },
          remote: {
            type: "http",
            url: "http://127.0.0.1:9/mcp",
            headers: { Authorization: `Bearer ${SECRET}` },
          },
        },
      }),
    );
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("--help works globally and on every command, exit 0", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const global = await cli(["--help"]);
    assert.equal(global.code, 0, global.stderr);
    assert.match(global.stdout, /Usage: mcp-adapter/);
    assert.match(global.stdout, /Exit codes/);
    for (const command of ["tools", "call", "check", "schema"]) {
      const run = await cli([command, "--help"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`Usage: mcp-adapter ${command}`));
    }
    assert.match((await cli(["call", "-h"])).stdout, /key=value/);
  });

  it("without a command, or with an unknown one or option, exits 2", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage: mcp-adapter/);
    const unknown = await cli(["frobnicate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    const option = await cli(["tools", "--timeout", "5", "--config", config]);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /--timeout is not an option of "tools"/);
  });

  it("tools lists name, server, access and description; --json for scripts", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const text = await cli(["tools", "--config", config]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^TOOL\s+SERVER\s+ACCESS\s+DESCRIPTION$/);
    assert.ok(
      lines.some((line) => /^sdk\/add\s+sdk\s+-\s+Add numbers$/.test(line)),
    );
    assert.ok(
      lines.some((line) => /^sdk\/delete_file\s+sdk\s+writes\s/.test(line)),
    );

    const json = await cli(["tools", "--json", "--config", config]);
    assert.equal(json.code, 0, json.stderr);
    const tools = JSON.parse(json.stdout) as Record<string, unknown>[];
    const add = tools.find((tool) => tool.name === "sdk/add");
    assert.deepEqual(
      { ...add, inputSchema: undefined },
      {
        name: "sdk/add",
        alias: "sdk__add",
        server: "sdk",
        namespace: "sdk",
        readOnly: false,
        writes: false,
        description: "Add numbers",
        inputSchema: undefined,
      },
    );
    assert.equal((add!.inputSchema as { type: string }).type, "object");
  });

  it("call prints text content, then structured content as JSON", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const run = await cli([
      "call",
      "sdk/add",
      "--args",
      '{"a": 2, "b": 3}',
      "--config",
      config,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '5\n{\n  "sum": 5\n}\n');
  });

  it("call takes key=value arguments, parsed as JSON when they parse", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const echo = await cli([
      "call",
      "sdk/echo",
      "message=hello world",
      "--config",
      config,
    ]);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, "hello world\n");
    const sum = await cli([
      "call",
      "--config",
      config,
      "sdk__add",
      "a=40",
      "b=2",
      "--json",
      "--timeout",
      "20000",
    ]);
    assert.equal(sum.code, 0, sum.stderr);
    const result = JSON.parse(sum.stdout);
    assert.equal(result.success, true);
    assert.deepEqual(result.data.structuredContent, { sum: 42 });
  });

  it("call with invalid arguments exits 1 and says validation failed", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const run = await cli(["call", "sdk/add", "a=two", "--config", config]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /validation/);
    assert.match(run.stderr, /\/a/);
    assert.equal(run.stdout, "");
    const failing = await cli(["call", "sdk/fail", "--config", config]);
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /disk on fire/);
  });

  it("call and schema of an unknown tool or namespace exit 2", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const tool = await cli(["call", "sdk/nope", "--config", config]);
    assert.equal(tool.code, 2);
    assert.match(tool.stderr, /no tool "sdk\/nope"; available: .*sdk\/add/);
    const namespace = await cli(["schema", "other/add", "--config", config]);
    assert.equal(namespace.code, 2);
    assert.match(namespace.stderr, /no server has the namespace "other"/);
    const pair = await cli(["call", "sdk/add", "oops", "--config", config]);
    assert.equal(pair.code, 2);
    assert.match(pair.stderr, /expected key=value, got "oops"/);
  });

  it("schema prints the input schema", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const run = await cli(["schema", "sdk/add", "--config", config]);
    assert.equal(run.code, 0, run.stderr);
    const schema = JSON.parse(run.stdout);
    assert.equal(schema.type, "object");
    assert.deepEqual(Object.keys(schema.properties).sort(), ["a", "b"]);
  });

  it(
    "check reports protocol, tool count and latency; a broken server exits 3",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const ok = await cli(["check", "--config", config]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(
        ok.stdout,
        /^sdk\s+ok\s+protocol \d{4}-\d{2}-\d{2}, \d+ tools, connected in \d+ ms$/m,
      );
      const broken = await cli(["check", "--config", brokenConfig]);
      assert.equal(broken.code, 3);
      assert.match(broken.stdout, /^sdk\s+ok\s/m);
      assert.match(broken.stdout, /^ghost\s+failed\s+.*no-such-mcp-server/m);
      const json = await cli(["check", "--json", "--config", brokenConfig]);
      assert.equal(json.code, 3);
      assert.deepEqual(
        JSON.parse(json.stdout).map((status: { state: string }) =>
          status.state
        ),
        ["connected", "failed"],
      );
    },
  );

  it("a bad config file exits 2 with the loader's message", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const badYaml = join(dir, "bad.yaml");
    await writeFile(badYaml, "servers:\n  - name: [unclosed\n");
    const yaml = await cli(["tools", "--config", badYaml]);
    assert.equal(yaml.code, 2);
    assert.match(yaml.stderr, /bad\.yaml/);
    const badField = join(dir, "bad-field.json");
    await writeFile(
      badField,
      JSON.stringify({ mcpServers: { x: { command: 42 } } }),
    );
    const field = await cli(["check", "--config", badField]);
    assert.equal(field.code, 2);
    assert.match(field.stderr, /command/);
    const missing = await cli(["tools", "--config", join(dir, "nope.yaml")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.yaml does not exist/);
  });

  it(
    "finds ./mcp.yaml; without any config file says where it looked (or, on Deno, runs the example)",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const withYaml = join(dir, "with-yaml");
      await mkdir(withYaml);
      await writeFile(
        join(withYaml, "mcp.yaml"),
        `mcpServers:\n  found:\n    command: ${
          JSON.stringify(fixture.command)
        }\n    args: ${JSON.stringify(fixture.args)}\n`,
      );
      const found = await cli(["tools"], withYaml);
      assert.equal(found.code, 0, found.stderr);
      assert.match(found.stdout, /^found\/add\s/m);

      const empty = join(dir, "empty");
      await mkdir(empty);
      const example = fileURLToPath(
        new URL("../examples/mcp.yaml", import.meta.url),
      );
      const run = await cli(["tools"], empty);
      if ("Deno" in globalThis && existsSync(example)) {
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /\/list_notes\s/);
      } else {
        assert.equal(run.code, 2);
        assert.match(
          run.stderr,
          /no config file found: looked for .*mcp\.yaml, .*mcp\.json, .*\.mcp\.json/,
        );
      }
    },
  );

  it("never prints env or header values", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const runs = await Promise.all([
      cli(["check", "--config", secretConfig]),
      cli(["check", "--json", "--config", secretConfig]),
      cli(["tools", "--json", "--config", secretConfig]),
      cli(["call", "sdk/echo", "message=hi", "--config", secretConfig]),
      cli(["call", "remote/echo", "message=hi", "--config", secretConfig]),
    ]);
    assert.equal(runs[0]!.code, 3, "the unreachable remote server fails");
    assert.equal(runs[3]!.code, 0, runs[3]!.stderr);
    assert.equal(runs[4]!.code, 3);
    for (const run of runs) {
      assert.doesNotMatch(run.stdout + run.stderr, /9f8e7d6c5b4a/);
    }
  });

  it("draws a progress bar with \\r on a terminal only", {
    timeout: TEST_TIMEOUT_MS,
    skip: !existsSync("/usr/bin/script") &&
      "needs script(1) for a pseudo-terminal",
  }, async () => {
    const args = [
      "call",
      "sdk/progress",
      "steps=3",
      "gapMs=100",
      "--config",
      config,
    ];
    const piped = await cli(args);
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, "done 3\n");
    assert.doesNotMatch(piped.stderr, /\r/);

    const { command, args: base } = cliCommand();
    const line = [command, ...base, ...args].map(shellQuote).join(" ");
    const tty = await exec(
      "/usr/bin/script",
      ["-qfec", line, "/dev/null"],
      dir,
    );
    assert.equal(tty.code, 0, tty.stdout + tty.stderr);
    assert.match(tty.stdout, /\r\[#+-*\] \d+% 1\/3 step 1/);
    assert.match(tty.stdout, /\r\[#{24}\] 100% 3\/3 step 3/);
    assert.match(tty.stdout, /done 3/);
  });
});

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
