/**
 * The `mcp-adapter` command line against remote, slow, leaky and task
 * servers, run as a subprocess: deadlines, secrets kept out of output,
 * tasks, server logs, transports and the progress bar.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cliCommand, cliWorkspace, fixture } from "./_run.ts";
import { exec, type Run } from "../_helpers.ts";
import type { Extra } from "../_in_memory.ts";
import { listen, sdkStreamableServer } from "../_remote.ts";
import { taskHttpServer } from "../_task_http.ts";
import { sseOnlyServer } from "../_sse_only.ts";

const TEST_TIMEOUT_MS = 90_000;
const SECRET = "sk-cli-test-9f8e7d6c5b4a";
describe("mcp-adapter (the command line): servers", () => {
  const ws = cliWorkspace();
  const { cli } = ws;

  it("call --timeout MS gives up on a slow tool: exit 1, says timeout", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // A quick call measures what starting the CLI and the server costs here.
    const quick = await timed(() =>
      cli(["call", "sdk/add", "a=1", "b=2", "--config", ws.config])
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
        ws.config,
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

  it("without --timeout, names the deadline the config gave the server", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const config = join(ws.dir, "deadline.json");
    await writeFile(
      config,
      JSON.stringify({
        servers: [{
          name: "sdk",
          transport: "stdio",
          command: fixture.command,
          args: fixture.args,
          requestTimeoutMs: 300,
        }],
      }),
    );
    const run = await cli(["call", "sdk/sleep", "ms=5000", "--config", config]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /sdk\/sleep timed out after 300 ms .*--timeout MS \(e\.g\. --timeout 1200\)/,
    );
  });

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
      const leaky = join(ws.dir, "leaky.json");
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
        const tasks = join(ws.dir, "tasks.json");
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
        const file = join(ws.dir, "legacy.json");
        await writeFile(
          file,
          JSON.stringify({ mcpServers: { old: { url: legacy.url } } }),
        );
        const check = await cli(["check", "--config", file]);
        assert.equal(check.code, 0, check.stderr);
        assert.match(
          check.stdout,
          /^old\s+ok\s+protocol \S+ \(legacy era\) over sse \(fallback from streamable-http\), \d+ tools/m,
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
      ws.config,
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
      ws.dir,
    );
    assert.equal(tty.code, 0, tty.stdout + tty.stderr);
    assert.match(tty.stdout, /\r\[#+-*\] \d+% 1\/3 step 1/);
    assert.match(tty.stdout, /\r\[#{24}\] 100% 3\/3 step 3/);
    assert.match(tty.stdout, /done 3/);

    // A task's status follows the bar.
    const server = await taskHttpServer();
    try {
      const tasks = join(ws.dir, "tasks-tty.json");
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
        ws.dir,
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
