/**
 * The `mcp-adapter` command line, run as a subprocess against real stdio
 * servers: `deno run -A cli.ts` under Deno, the npm package's `cli.js` under
 * Node.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixturePath, runtimeCommand } from "../_helpers.ts";
import { cliCommand, exec, type Run } from "./_run.ts";
import type { Extra } from "../_in_memory.ts";
import { listen, sdkStreamableServer } from "../_remote.ts";
import { taskHttpServer } from "../_task_http.ts";
import { sseOnlyServer } from "../_sse_only.ts";

/** This file runs as .ts under Deno and as transpiled .js under Node; its fixtures follow suit. */
const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
const fixture = runtimeCommand(fixturePath(`sdk_server${ext}`));
const TEST_TIMEOUT_MS = 90_000;
const SECRET = "sk-cli-test-9f8e7d6c5b4a";

describe("mcp-adapter (the command line)", () => {
  let dir: string;
  let config: string;
  let brokenConfig: string;

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
        taskSupport: "forbidden",
        description: "Add numbers",
        inputSchema: undefined,
      },
    );
    assert.equal((add!.inputSchema as { type: string }).type, "object");
  });

  it(
    "call prints each content block once, structured content only when there is no content",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const run = await cli([
        "call",
        "sdk/add",
        "--args",
        '{"a": 2, "b": 3}',
        "--config",
        config,
      ]);
      assert.equal(run.code, 0, run.stderr);
      // The text and the structured content carry the same sum: printed once.
      assert.equal(run.stdout, "5\n");
    },
  );

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
    // key=value is read by the schema: a number property refuses "two".
    const pair = await cli(["call", "sdk/add", "a=two", "--config", config]);
    assert.equal(pair.code, 1);
    assert.match(pair.stderr, /a must be a number, got "two"/);
    assert.equal(pair.stdout, "");
    // --args is literal: the adapter's validation refuses it.
    const run = await cli([
      "call",
      "sdk/add",
      "--args",
      '{"a": "two", "b": 1}',
      "--config",
      config,
    ]);
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
        /^sdk\s+ok\s+protocol \d{4}-\d{2}-\d{2} over stdio, \d+ tools, connected in \d+ ms$/m,
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
        new URL("../../examples/mcp.yaml", import.meta.url),
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

  it("call --timeout MS gives up on a slow tool: exit 1, says timeout", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // A quick call measures what starting the CLI and the server costs here.
    const quick = await timed(() =>
      cli(["call", "sdk/add", "a=1", "b=2", "--config", config])
    );
    assert.equal(quick.run.code, 0, quick.run.stderr);
    const slow = await timed(() =>
      cli([
        "call",
        "sdk/sleep",
        "ms=5000",
        "--timeout",
        "300",
        "--config",
        config,
      ])
    );
    assert.equal(slow.run.code, 1, slow.run.stdout + slow.run.stderr);
    assert.equal(slow.run.stdout, "");
    assert.match(
      slow.run.stderr,
      /sdk\/sleep timed out after 300 ms .*--timeout MS \(e\.g\. --timeout 1200\)/,
    );
    assert.ok(
      slow.ms < quick.ms + 2500,
      `took ${slow.ms} ms (a quick call: ${quick.ms} ms); the tool sleeps 5000`,
    );
  });

  it(
    "finds ./mcp.json, else ./.mcp.json (Claude Code's format), after ./mcp.yaml",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const server = (name: string) => ({
        mcpServers: {
          [name]: {
            type: "stdio",
            command: fixture.command,
            args: fixture.args,
            env: {},
          },
        },
      });
      const both = join(dir, "json-and-dot-json");
      await mkdir(both);
      await writeFile(join(both, "mcp.json"), JSON.stringify(server("json")));
      await writeFile(join(both, ".mcp.json"), JSON.stringify(server("dot")));
      const json = await cli(["tools"], both);
      assert.equal(json.code, 0, json.stderr);
      assert.match(json.stdout, /^json\/add\s/m);
      assert.doesNotMatch(json.stdout, /^dot\//m);

      const dotOnly = join(dir, "dot-json");
      await mkdir(dotOnly);
      await writeFile(
        join(dotOnly, ".mcp.json"),
        JSON.stringify(server("dot")),
      );
      const dot = await cli(["check"], dotOnly);
      assert.equal(dot.code, 0, dot.stderr);
      assert.match(dot.stdout, /^dot\s+ok\s/m);

      await writeFile(
        join(both, "mcp.yaml"),
        `mcpServers:\n  yaml:\n    command: ${
          JSON.stringify(fixture.command)
        }\n    args: ${JSON.stringify(fixture.args)}\n`,
      );
      const yaml = await cli(["tools"], both);
      assert.equal(yaml.code, 0, yaml.stderr);
      assert.match(yaml.stdout, /^yaml\/add\s/m);
      assert.doesNotMatch(yaml.stdout, /^json\//m);
    },
  );

  it("never prints env or header values, yet shows the rest of each error", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // Each server quotes the secret back when it fails: the stdio one on
    // stderr, the HTTP one in its error body, the SDK one in a tool's error
    // (the HTTP ones quote the token alone, without "Bearer ").
    const remote = await listen((req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`rejected token ${bearerToken(req.headers.authorization)}`);
    });
    const api = await sdkStreamableServer({
      extend: (server) =>
        server.registerTool("reject", {
          description: "Fails, quoting the caller's token",
          inputSchema: {},
        }, (_args: unknown, extra: Extra) => ({
          isError: true,
          content: [{
            type: "text" as const,
            text: `rejected token ${
              bearerToken(extra.requestInfo?.headers.authorization)
            }`,
          }],
        })),
    });
    try {
      const leaky = join(dir, "leaky.json");
      await writeFile(
        leaky,
        JSON.stringify({
          mcpServers: {
            leak: {
              command: fixture.command,
              args: [...fixture.args, "leak"],
              env: { MCP_SECRET: SECRET },
            },
            remote: {
              type: "http",
              url: `${remote.origin}/mcp`,
              headers: { Authorization: `Bearer ${SECRET}` },
            },
            api: {
              type: "http",
              url: api.url,
              headers: { Authorization: `Bearer ${SECRET}` },
            },
          },
        }),
      );
      const [check, checkJson, tools, toolsJson, callLeak, callRemote, alias] =
        await Promise.all([
          cli(["check", "--config", leaky]),
          cli(["check", "--json", "--config", leaky]),
          cli(["tools", "--config", leaky]),
          cli(["tools", "--json", "--config", leaky]),
          cli(["call", "leak/echo", "message=hi", "--config", leaky]),
          cli(["call", "remote/echo", "message=hi", "--config", leaky]),
          cli(["call", "leak__echo", "message=hi", "--config", leaky]),
        ]);
      const runs = { check, checkJson, tools, toolsJson, callLeak, callRemote };
      for (const [name, run] of Object.entries({ ...runs, alias })) {
        assert.equal(run.code, 3, `${name}: ${run.stderr}`);
        const output = run.stdout + run.stderr;
        assert.ok(
          !output.includes(SECRET) && !output.includes(SECRET.slice(-12)),
          `${name} printed the secret:\n${output}`,
        );
      }
      // What the servers said is still there, with the secret masked.
      for (const [name, run] of Object.entries(runs)) {
        const output = run.stdout + run.stderr;
        const server = name.includes("Remote") ? "remote" : "leak";
        if (server === "leak" || !name.startsWith("call")) {
          assert.match(output, /token=\[redacted\]/, `${name}: ${output}`);
        }
        if (server === "remote" || !name.startsWith("call")) {
          assert.match(output, /HTTP 500/, `${name}: ${output}`);
          assert.match(
            output,
            /rejected token \[redacted\]/,
            `${name}: ${output}`,
          );
        }
      }
      // A tool's own error, printed by "call", is masked too.
      const rejected = await cli(["call", "api/reject", "--config", leaky]);
      assert.equal(rejected.code, 1, rejected.stderr);
      assert.match(
        rejected.stderr,
        /the call failed .*rejected token \[redacted\]/,
      );
      assert.ok(
        !(rejected.stdout + rejected.stderr).includes(SECRET.slice(-12)),
        rejected.stderr,
      );
    } finally {
      await Promise.all([remote.close(), api.close()]);
    }
  });

  it(
    "tools marks task tools; call runs one as a task; --verbose prints server log messages",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const server = await taskHttpServer();
      try {
        const tasks = join(dir, "tasks.json");
        await writeFile(
          tasks,
          JSON.stringify({ mcpServers: { tasks: { url: server.url } } }),
        );
        const tools = await cli(["tools", "--config", tasks]);
        assert.equal(tools.code, 0, tools.stderr);
        assert.match(tools.stdout, /^tasks\/slow_task\s+tasks\s+\S+, task\s/m);
        assert.match(
          tools.stdout,
          /^tasks\/optional_task\s+.*, task optional\s/m,
        );
        assert.match(
          tools.stdout,
          /^tasks\/plain_tool\s+tasks\s+(?:-|read-only|writes)\s/m,
        );
        const json = await cli(["tools", "--json", "--config", tasks]);
        const listed = JSON.parse(json.stdout) as {
          name: string;
          taskSupport: string;
        }[];
        assert.equal(
          listed.find((tool) => tool.name === "tasks/slow_task")?.taskSupport,
          "required",
        );

        const call = await cli([
          "call",
          "tasks/slow_task",
          "steps=2",
          "gapMs=20",
          "--config",
          tasks,
        ]);
        assert.equal(call.code, 0, call.stderr);
        assert.equal(call.stdout, "done 2\n");

        const logArgs = [
          "call",
          "tasks/log",
          'levels=["warning"]',
          "message=careful",
        ];
        const quiet = await cli([...logArgs, "--config", tasks]);
        assert.equal(quiet.code, 0, quiet.stderr);
        assert.equal(quiet.stderr, "");
        const verbose = await cli([...logArgs, "--verbose", "--config", tasks]);
        assert.equal(verbose.code, 0, verbose.stderr);
        assert.match(
          verbose.stderr,
          /^\[tasks\] warning task-fixture: \{"message":"careful","level":"warning"\}$/m,
        );
      } finally {
        await server.close();
      }
    },
  );

  it(
    "check says which transport each server connected over, fallback included",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const legacy = await sseOnlyServer({ refusePost: "404" });
      try {
        const file = join(dir, "legacy.json");
        await writeFile(
          file,
          JSON.stringify({ mcpServers: { old: { url: legacy.url } } }),
        );
        const check = await cli(["check", "--config", file]);
        assert.equal(check.code, 0, check.stderr);
        assert.match(
          check.stdout,
          /^old\s+ok\s+protocol \S+ over sse \(fallback from streamable-http\), \d+ tools/m,
        );
      } finally {
        await legacy.close();
      }
    },
  );

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

    // A task's status follows the bar.
    const server = await taskHttpServer();
    try {
      const tasks = join(dir, "tasks-tty.json");
      await writeFile(
        tasks,
        JSON.stringify({ mcpServers: { tasks: { url: server.url } } }),
      );
      const taskLine = [
        command,
        ...base,
        "call",
        "tasks/slow_task",
        "steps=2",
        "gapMs=50",
        "--config",
        tasks,
      ].map(shellQuote).join(" ");
      const task = await exec(
        "/usr/bin/script",
        ["-qfec", taskLine, "/dev/null"],
        dir,
      );
      assert.equal(task.code, 0, task.stdout + task.stderr);
      assert.match(task.stdout, /\r\[task working\]/);
      assert.match(
        task.stdout,
        /\r\[#+-*\] \d+% 1\/2 step 1 \[task working: step 1\/2\]/,
      );
    } finally {
      await server.close();
    }
  });
});

/** The token of an `Authorization: Bearer <token>` header. */
function bearerToken(header: string | string[] | undefined): string {
  return String(header ?? "").replace(/^Bearer /, "");
}

/** Runs `run` and measures its wall time in ms. */
async function timed(
  run: () => Promise<Run>,
): Promise<{ run: Run; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { run: result, ms: Math.round(performance.now() - started) };
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
