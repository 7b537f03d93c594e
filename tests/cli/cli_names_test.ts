/**
 * How `mcp-adapter` names an inline server and finds a tool by its bare
 * name, run as a subprocess: a script is named by the package it is the
 * entry of (`node …/server-everything/dist/index.js` is `server-everything`,
 * not `index`), and a tool name without a namespace works when one server
 * has that tool.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cliWorkspace, fixture } from "./_run.ts";
import { fixturePath, runtimeCommand } from "../_helpers.ts";
import { everythingCommand } from "../_everything.ts";

const TEST_TIMEOUT_MS = 90_000;

describe("mcp-adapter (the command line): server and tool names", () => {
  const ws = cliWorkspace();
  const { cli } = ws;

  it(
    "a script is named by the package whose bin it is; a bare tool name calls it",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      // tests/fixtures/packaged_server: package.json names
      // "@fixtures/weather-server", whose bin is dist/index.mjs.
      const packaged = runtimeCommand(
        fixturePath("packaged_server/dist/index.mjs"),
      );
      const inline = ["--", packaged.command, ...packaged.args];
      const tools = await cli(["tools", "--json", ...inline]);
      assert.equal(tools.code, 0, tools.stderr);
      const names = (JSON.parse(tools.stdout) as { name: string }[]).map((
        tool,
      ) => tool.name);
      assert.ok(names.includes("weather-server/echo"), names.join(", "));

      const call = await cli(["call", "echo", "message=hi", ...inline]);
      assert.equal(call.code, 0, call.stderr);
      assert.equal(call.stdout, "hi\n");
    },
  );

  it(
    "call echo message=hi -- <server-everything> works, namespace server-everything",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      // Under Node: node …/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio.
      const everything = everythingCommand("stdio");
      const inline = ["--", everything.command, ...everything.args];
      const call = await cli(["call", "echo", "message=hi", ...inline]);
      assert.equal(call.code, 0, call.stderr);
      assert.equal(call.stdout, "Echo: hi\n");
      const unknown = await cli(["call", "echoo", "message=hi", ...inline]);
      assert.equal(unknown.code, 2);
      assert.match(
        unknown.stderr,
        /no tool "echoo" \(did you mean "echo"\?\); available: server-everything\/echo, /,
      );
    },
  );

  it("a bare name several servers have is refused with their full names", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const sdk = { command: fixture.command, args: fixture.args };
    const config = join(ws.dir, "two.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { one: sdk, two: sdk } }),
    );
    const run = await cli(["call", "echo", "message=hi", "--config", config]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /several servers have a tool "echo": one\/echo, two\/echo; name one as ns\/tool/,
    );
    const named = await cli([
      "call",
      "two/echo",
      "message=hi",
      "--config",
      config,
    ]);
    assert.equal(named.code, 0, named.stderr);
    assert.equal(named.stdout, "hi\n");
  });
});
