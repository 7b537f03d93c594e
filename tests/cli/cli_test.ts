/**
 * The `mcp-adapter` command line, run as a subprocess against real stdio
 * servers: `deno run -A cli.ts` under Deno, the npm package's bin (`bin.js`) under
 * Node. Its commands, arguments, exit codes and config-file discovery.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliWorkspace, fixture } from "./_run.ts";

const TEST_TIMEOUT_MS = 90_000;
describe("mcp-adapter (the command line)", () => {
  const ws = cliWorkspace();
  const { cli } = ws;

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
    const option = await cli([
      "tools",
      "--timeout",
      "5",
      "--config",
      ws.config,
    ]);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /--timeout is not an option of "tools"/);
  });

  it("tools lists name, server, access and description; --json for scripts", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const text = await cli(["tools", "--config", ws.config]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^TOOL\s+SERVER\s+ACCESS\s+DESCRIPTION$/);
    assert.ok(
      lines.some((line) => /^sdk\/add\s+sdk\s+-\s+Add numbers$/.test(line)),
    );
    assert.ok(
      lines.some((line) => /^sdk\/delete_file\s+sdk\s+writes\s/.test(line)),
    );

    const json = await cli(["tools", "--json", "--config", ws.config]);
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
        ws.config,
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
      ws.config,
    ]);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, "hello world\n");
    const sum = await cli([
      "call",
      "--config",
      ws.config,
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
    const pair = await cli(["call", "sdk/add", "a=two", "--config", ws.config]);
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
      ws.config,
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /validation/);
    assert.match(run.stderr, /\/a/);
    assert.equal(run.stdout, "");
    const failing = await cli(["call", "sdk/fail", "--config", ws.config]);
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /disk on fire/);
  });

  it("call and schema of an unknown tool or namespace exit 2", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const tool = await cli(["call", "sdk/nope", "--config", ws.config]);
    assert.equal(tool.code, 2);
    assert.match(tool.stderr, /no tool "sdk\/nope"; available: .*sdk\/add/);
    const namespace = await cli(["schema", "other/add", "--config", ws.config]);
    assert.equal(namespace.code, 2);
    assert.match(namespace.stderr, /no server has the namespace "other"/);
    const pair = await cli(["call", "sdk/add", "oops", "--config", ws.config]);
    assert.equal(pair.code, 2);
    assert.match(pair.stderr, /expected key=value, got "oops"/);
  });

  it("schema prints the input schema", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const run = await cli(["schema", "sdk/add", "--config", ws.config]);
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
      const ok = await cli(["check", "--config", ws.config]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(
        ok.stdout,
        /^sdk\s+ok\s+protocol \d{4}-\d{2}-\d{2} \(legacy era\) over stdio, \d+ tools, connected in \d+ ms$/m,
      );
      const broken = await cli(["check", "--config", ws.brokenConfig]);
      assert.equal(broken.code, 3);
      assert.match(broken.stdout, /^sdk\s+ok\s/m);
      assert.match(broken.stdout, /^ghost\s+failed\s+.*no-such-mcp-server/m);
      const json = await cli(["check", "--json", "--config", ws.brokenConfig]);
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
    const badYaml = join(ws.dir, "bad.yaml");
    await writeFile(badYaml, "servers:\n  - name: [unclosed\n");
    const yaml = await cli(["tools", "--config", badYaml]);
    assert.equal(yaml.code, 2);
    assert.match(yaml.stderr, /bad\.yaml/);
    const badField = join(ws.dir, "bad-field.json");
    await writeFile(
      badField,
      JSON.stringify({ mcpServers: { x: { command: 42 } } }),
    );
    const field = await cli(["check", "--config", badField]);
    assert.equal(field.code, 2);
    assert.match(field.stderr, /command/);
    const missing = await cli(["tools", "--config", join(ws.dir, "nope.yaml")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.yaml does not exist/);
  });

  it(
    "finds ./mcp.yaml; without any config file says where it looked and how to pass one, even in this repository",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const withYaml = join(ws.dir, "with-yaml");
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

      const empty = join(ws.dir, "empty");
      await mkdir(empty);
      const run = await cli(["tools"], empty);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /no config file found: looked for .*mcp\.yaml, .*mcp\.json, .*\.mcp\.json; pass one with --config FILE .*-- COMMAND \[ARGS\.\.\.\] or --url URL\n/,
      );
      assert.equal(run.stdout, "");
      // The repository's example is no fallback: it is not published, and a
      // config nobody asked for would start servers nobody asked for.
      const root = fileURLToPath(new URL("../..", import.meta.url));
      const here = await cli(["tools"], root);
      assert.equal(here.code, 2);
      assert.match(here.stderr, /no config file found/);
      assert.doesNotMatch(here.stderr, /example/);
    },
  );

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
      const both = join(ws.dir, "json-and-dot-json");
      await mkdir(both);
      await writeFile(join(both, "mcp.json"), JSON.stringify(server("json")));
      await writeFile(join(both, ".mcp.json"), JSON.stringify(server("dot")));
      const json = await cli(["tools"], both);
      assert.equal(json.code, 0, json.stderr);
      assert.match(json.stdout, /^json\/add\s/m);
      assert.doesNotMatch(json.stdout, /^dot\//m);

      const dotOnly = join(ws.dir, "dot-json");
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
});
