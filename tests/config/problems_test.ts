import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPConfigFileError,
  parseConfig,
  parseSkill,
} from "@cleveragents/mcp-adapter/config";

function problemsOf(
  text: string,
  options: { format?: "yaml" | "json"; env?: Record<string, string> } = {},
): MCPConfigFileError {
  try {
    parseConfig(text, options.format ?? "yaml", {
      source: "mcp.yaml",
      env: options.env ?? {},
    });
  } catch (error) {
    assert.ok(error instanceof MCPConfigFileError, String(error));
    return error;
  }
  assert.fail("parseConfig() did not throw");
}

function yaml(lines: string[]): string {
  return lines.join("\n") + "\n";
}

describe("every problem of a config file in one report", () => {
  it("lists each problem on its own line, in file order, and as a structured list", () => {
    const error = problemsOf(yaml([
      "servers:",
      "  - name: a", //                                   line 2
      "    transport: stdio",
      "    command: ${MISSING_COMMAND}", //                line 4: unset variable
      "    args: [--port, 8080]", //                        line 5: not a string
      "  - name: b",
      "    transport: sse",
      "    url: ftp://example.com", //                      line 8: not http(s)
      "    requestTimeoutMs: 0", //                         line 9: schema
      "  - name: a", //                                     line 10: repeated name
      "    transport: stdio",
      "    command: x",
    ]));
    const lines = [
      "mcp.yaml:4:5: servers[0].command uses ${MISSING_COMMAND}, which is not set; export it or write ${MISSING_COMMAND:-default}",
      "mcp.yaml:5:20: servers[0].args[1]: expected a string, got a number; put it in quotes",
      'mcp.yaml:8:5: servers[1].url: expected an http(s) URL; write e.g. "https://example.com/mcp"',
      "mcp.yaml:9:5: servers[1].requestTimeoutMs: expected a whole number of at least 1, got 0",
      'mcp.yaml:10:5: servers[2].name: "a" is also the name of servers[0]; give each server its own name',
    ];
    assert.equal(error.message, lines.join("\n"));
    assert.deepEqual(error.problems, [
      { path: "servers[0].command", line: 4, column: 5, message: lines[0] },
      { path: "servers[0].args[1]", line: 5, column: 20, message: lines[1] },
      { path: "servers[1].url", line: 8, column: 5, message: lines[2] },
      {
        path: "servers[1].requestTimeoutMs",
        line: 9,
        column: 5,
        message: lines[3],
      },
      { path: "servers[2].name", line: 10, column: 5, message: lines[4] },
    ]);
    // The first problem is also the error's own path and position.
    assert.equal(error.path, "servers[0].command");
    assert.equal(error.field, "servers[0].command");
    assert.deepEqual([error.line, error.column], [4, 5]);
  });

  it("reports a misspelt field once, as the misspelling", () => {
    const error = problemsOf(yaml([
      "servers:",
      "  - name: a",
      "    transport: stdio",
      "    comand: x",
      "  - nmae: b",
      "    transport: stdio",
      "    command: y",
    ]));
    assert.deepEqual(error.problems.map((problem) => problem.path), [
      "servers[0].comand",
      "servers[1].nmae",
    ]);
    assert.match(
      error.message,
      /^mcp\.yaml:4:5: servers\[0\]\.comand: unknown field \(did you mean "command"\?\)/,
    );
  });

  it("still checks the connection fields of a server the schema found fault with elsewhere", () => {
    const error = problemsOf(yaml([
      "servers:",
      "  - name: r",
      "    transport: streamable-http",
      "    url: not-a-url",
      "    filter: { only: [x] }",
    ]));
    assert.deepEqual(error.problems.map((problem) => problem.path), [
      "servers[0].url",
      "servers[0].filter.only",
    ]);
  });

  it("reports every problem of mcpServers files, and of their inputs list", () => {
    const error = problemsOf(
      JSON.stringify(
        {
          inputs: [
            { id: "k", type: "promptString" },
            { id: "k", type: "promptString" },
          ],
          mcpServers: {
            both: { command: "x", url: "https://example.com" },
            remote: { type: "http" },
            local: { command: "y", args: ["${input:nope}"] },
          },
        },
        null,
        2,
      ),
      { format: "json" },
    );
    assert.deepEqual(error.problems.map((problem) => problem.path), [
      "inputs[1].id",
      "mcpServers.both",
      "mcpServers.remote",
      "mcpServers.local.args[0]",
    ]);
    assert.match(error.problems[3]!.message, /declares no input "nope"/);
  });

  it("keeps a single problem's message to one line", () => {
    const error = problemsOf(yaml(["servers:", "  - name: files"]));
    assert.equal(
      error.message,
      'mcp.yaml:2:5: servers[0]: missing "transport"; write e.g. transport: "stdio"',
    );
    assert.deepEqual(error.problems, [{
      path: "servers[0]",
      line: 2,
      column: 5,
      message: error.message,
    }]);
  });

  it("gives a syntax error, which ends the reading, as the only problem", () => {
    const error = problemsOf("servers: [\n  - name: a\n");
    assert.equal(error.problems.length, 1);
    assert.equal(error.problems[0]!.message, error.message);
  });

  it("never shows a value in any of the lines", () => {
    const error = problemsOf(
      yaml([
        "servers:",
        "  - name: r",
        "    transport: sse",
        "    url: SECRET-not-a-url",
        "    headers: { X-Token: 5, Y: SECRET-ok }",
        "  - name: s",
        "    transport: stdio",
        "    command: x",
        "    env: { A: SECRET-env, B: [SECRET-list] }",
      ]),
    );
    assert.equal(error.problems.length, 3);
    assert.doesNotMatch(error.message, /SECRET/);
  });
});

describe("every problem of a skill file in one report", () => {
  it("lists each schema problem, in file order", () => {
    try {
      parseSkill(
        yaml([
          "name: ''",
          "tools: [notes]",
          "overrides:",
          "  notes/x: { readOnly: true }",
        ]),
        { source: "skill.yaml" },
      );
      assert.fail("parseSkill() did not throw");
    } catch (error) {
      assert.ok(error instanceof MCPConfigFileError, String(error));
      assert.deepEqual(error.problems.map((problem) => problem.path), [
        "name",
        "tools[0]",
        'overrides["notes/x"].readOnly',
      ]);
      assert.equal(error.message.split("\n").length, 3);
    }
  });
});
