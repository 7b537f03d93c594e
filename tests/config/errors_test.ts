import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fixturePath } from "../_helpers.ts";
import { loadError, parseError, STDIO, yaml } from "./_config_errors.ts";
import { parseConfig } from "@cleveragents/mcp-adapter/config";

describe("errors", () => {
  it("gives file:line:column for YAML syntax errors (js-yaml's mark)", async () => {
    const path = fixturePath("configs/broken.yaml");
    await loadError(path, {
      message: `${path}:5:4: bad indentation of a sequence entry`,
      file: path,
      path: "",
      line: 5,
      column: 4,
    });
    parseError("servers: [\n", { message: /^mcp\.yaml:2:1: / });
    parseError("a: 1\na: 2\n", {
      message: "mcp.yaml:2:1: duplicated mapping key",
    });
  });

  it("gives file:line:column for JSON syntax errors", async () => {
    const path = fixturePath("configs/broken.json");
    await loadError(path, {
      message: `${path}:5:5: expected "," or "}" after a value`,
      line: 5,
      column: 5,
    });
    const cases: Array<[string, string]> = [
      [
        '{\n  "servers": [\n',
        "mcp.json:3:1: unexpected end of the file; a value is missing",
      ],
      [
        '{"a": "unterminated\n}',
        "mcp.json:1:7: unterminated string; close it with a double quote",
      ],
      ["{'a': 1}", "mcp.json:1:2: expected a key in double quotes"],
      [
        "{\"a\": 'b'}",
        'mcp.json:1:7: strings must be in double quotes ("), not single',
      ],
      ['{"a": 1, "a": 2}', 'mcp.json:1:10: duplicated key "a"'],
      [
        '{"a": 1} x',
        "mcp.json:1:10: unexpected text after the end of the JSON value",
      ],
      [
        '{"a": tru}',
        'mcp.json:1:7: expected a value: a string in double quotes, a number, true, false, null, an object or a list (quote text with ")',
      ],
      [
        "/* open\n{}",
        'mcp.json:1:1: unclosed "/*" comment; close it with "*/"',
      ],
      [
        '{"a": "\\x"}',
        'mcp.json:1:8: invalid escape in a string; write "\\\\" for a backslash',
      ],
      ['{"a": -}', "mcp.json:1:7: invalid number"],
      ["[1 2]", 'mcp.json:1:4: expected "," or "]" after a value'],
    ];
    for (const [text, message] of cases) {
      parseError(text, { message }, { format: "json" });
    }
  });

  it("refuses an empty file and says what to write", () => {
    const hint =
      'the file is empty; write e.g. servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]';
    parseError("", { message: `mcp.yaml: ${hint}` });
    parseError("# only a comment\n\n", { message: `mcp.yaml: ${hint}` });
    parseError("  // nothing\n", { message: `mcp.json: ${hint}` }, {
      format: "json",
    });
  });

  it("refuses a document that is not an object, or has no servers, or both kinds", () => {
    parseError("- a\n- b\n", {
      message:
        'mcp.yaml:1:1: expected an object with a "servers" list, got a list; write e.g. servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]',
    });
    parseError("server: []\n", {
      message:
        'mcp.yaml:1:1: expected a "servers" list; write e.g. servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]',
    });
    parseError('{"servers": [],\n "mcpServers": {}}', {
      message:
        'mcp.json:2:2: mcpServers: the file has both "servers" and "mcpServers"; keep one of them',
    }, { format: "json" });
  });

  it("names the path of a bad field and what to write", async () => {
    const path = fixturePath("configs/invalid_url.yaml");
    await loadError(path, {
      message:
        `${path}:10:5: servers[2].url: expected an http(s) URL; write e.g. "https://example.com/mcp"`,
      path: "servers[2].url",
      line: 10,
      column: 5,
    });
  });

  it("reports each kind of schema violation with its fix", () => {
    const cases: Array<[string[], string]> = [
      [
        ["servers:", "  - name: files"],
        'mcp.yaml:2:5: servers[0]: missing "transport"; write e.g. transport: "stdio"',
      ],
      [
        ["servers:", "  - transport: stdio", "    command: x"],
        'mcp.yaml:2:5: servers[0]: missing "name"; write e.g. name: "github"',
      ],
      [
        STDIO,
        'mcp.yaml:2:5: servers[0].command: stdio transport needs "command", the program that starts the server; write e.g. command: "npx"',
      ],
      [
        ["servers:", "  - name: r", "    transport: streamable-http"],
        'mcp.yaml:2:5: servers[0].url: streamable-http transport needs "url"; write e.g. url: "https://example.com/mcp"',
      ],
      [
        [...STDIO, "    comand: x"],
        'mcp.yaml:4:5: servers[0].comand: unknown field (did you mean "command"?); the fields are name, transport, command, args, env, envFile, inheritEnv, cwd, url, headers, fallback, protocol, namespace, filter, overrides, connectTimeoutMs, requestTimeoutMs, enabled, validateArguments, auth',
      ],
      [
        ["servers:", "  - name: a", "    transport: http", "    command: x"],
        'mcp.yaml:3:5: servers[0].transport: expected one of "stdio", "sse", "streamable-http", got "http"',
      ],
      [
        [...STDIO, "    command: x", "    args: --verbose"],
        'mcp.yaml:5:5: servers[0].args: expected a list of strings, got a string; write e.g. ["-y", "@modelcontextprotocol/server-filesystem", "."]',
      ],
      [
        [...STDIO, "    command: x", "    args: [--port, 8080]"],
        "mcp.yaml:5:20: servers[0].args[1]: expected a string, got a number; put it in quotes",
      ],
      [
        [...STDIO, "    command: x", "    env: [A=1]"],
        'mcp.yaml:5:5: servers[0].env: expected an object of strings, got a list; write e.g. { GITHUB_TOKEN: "${GITHUB_TOKEN}" }',
      ],
      [
        [...STDIO, "    command: x", "    requestTimeoutMs: 0"],
        "mcp.yaml:5:5: servers[0].requestTimeoutMs: expected a whole number of at least 1, got 0",
      ],
      [
        [...STDIO, "    command: x", "    connectTimeoutMs: 1.5"],
        "mcp.yaml:5:5: servers[0].connectTimeoutMs: expected a whole number of at least 1, got a number; write e.g. 30000",
      ],
      [
        [...STDIO, "    command: x", "    enabled: no"],
        "mcp.yaml:5:5: servers[0].enabled: expected true or false, got a string; write e.g. false",
      ],
      [
        [...STDIO, "    command: x", "    namespace: a/b"],
        'mcp.yaml:5:5: servers[0].namespace: expected a name without "/" (it becomes the tool namespace); write e.g. "github"',
      ],
      [
        [...STDIO, "    command: x", "    filter: { include: get_* }"],
        'mcp.yaml:5:15: servers[0].filter.include: expected a list of strings, got a string; write e.g. ["get_*", "list_*"]',
      ],
      [
        [...STDIO, "    command: x", "    filter: { only: [a] }"],
        "mcp.yaml:5:15: servers[0].filter.only: unknown field; the fields are include, exclude",
      ],
      [
        [
          ...STDIO,
          "    command: x",
          "    overrides:",
          "      x: { readOnly: true }",
        ],
        'mcp.yaml:6:12: servers[0].overrides.x.readOnly: unknown field (did you mean "read_only"?); the fields are read_only, writes',
      ],
      [
        [
          ...STDIO,
          "    command: x",
          "    overrides:",
          '      "*": { read_only: true, writes: true }',
        ],
        'mcp.yaml:6:7: servers[0].overrides["*"]: sets both read_only and writes to true, but a tool that writes is not read-only; keep one of them',
      ],
      [
        [
          ...STDIO,
          "    command: x",
          "    overrides:",
          '      x: { writes: "yes" }',
        ],
        "mcp.yaml:6:12: servers[0].overrides.x.writes: expected true or false, got a string; write e.g. true",
      ],
      [
        [...STDIO, "    command: x", "    url: https://example.com"],
        'mcp.yaml:5:5: servers[0].url: is not used by the "stdio" transport; remove it, or set transport to "streamable-http" or "sse"',
      ],
      [
        [
          "servers:",
          "  - name: r",
          "    transport: sse",
          "    url: https://x.example",
          "    env: {}",
        ],
        'mcp.yaml:5:5: servers[0].env: is not used by the "sse" transport; remove it, or set transport to "stdio"',
      ],
    ];
    for (const [lines, message] of cases) parseError(yaml(lines), { message });
  });

  it("reports a near miss of a key in mcpServers and VS Code files, and tolerates the editors' own keys", () => {
    // Claude Desktop / Cursor: `agrs` and `evn` would start the server
    // without its arguments and variables.
    const claude = parseError(
      [
        '{"mcpServers": {"memory": {',
        '  "command": "npx",',
        '  "agrs": ["-y", "@modelcontextprotocol/server-memory"],',
        '  "evn": {"MEMORY_FILE_PATH": "/tmp/m.json"},',
        '  "alwaysAllow": ["read_graph"], "autoApprove": [], "timeout": 60',
        "}}}",
      ].join("\n"),
      {
        message: [
          'mcp.json:3:3: mcpServers.memory.agrs: unknown field (did you mean "args"?); it would be ignored, and the server started without it',
          'mcp.json:4:3: mcpServers.memory.evn: unknown field (did you mean "env"?); it would be ignored, and the server started without it',
        ].join("\n"),
        path: "mcpServers.memory.agrs",
        line: 3,
        column: 3,
      },
      { format: "json" },
    );
    assert.deepEqual(claude.problems.map((problem) => problem.path), [
      "mcpServers.memory.agrs",
      "mcpServers.memory.evn",
    ]);
    // `comand` is reported as the misspelling, not as a missing command.
    parseError('{"mcpServers": {"a": {"comand": "npx"}}}', {
      message:
        'mcp.json:1:23: mcpServers.a.comand: unknown field (did you mean "command"?); it would be ignored, and the server started without it',
    }, { format: "json" });
    // VS Code: its own `dev` and `gallery` keys are no near miss.
    const vscode = parseConfig(
      JSON.stringify({
        servers: {
          a: { type: "stdio", command: "x", dev: { watch: "src" } },
        },
      }),
      "json",
    );
    assert.equal(vscode.servers[0]?.config.name, "a");
  });

  it("reports the problem nearest the top of the file first", () => {
    parseError(
      yaml([
        "servers:",
        "  - name: a",
        "    transport: stdio",
        "    command: x",
        "    args: [1]",
        "  - name: b",
        "    transport: bogus",
      ]),
      { path: "servers[0].args[0]" },
    );
  });

  it("refuses duplicate names and namespaces, naming both entries", () => {
    parseError(
      yaml([
        ...STDIO,
        "    command: x",
        "  - name: b",
        "    transport: stdio",
        "    command: y",
        "  - name: a",
        "    transport: stdio",
        "    command: z",
      ]),
      {
        message:
          'mcp.yaml:8:5: servers[2].name: "a" is also the name of servers[0]; give each server its own name',
        path: "servers[2].name",
      },
    );
    parseError(
      yaml([
        ...STDIO,
        "    command: x",
        "  - name: b",
        "    namespace: a",
        "    transport: stdio",
        "    command: y",
      ]),
      {
        message:
          'mcp.yaml:6:5: servers[1].namespace: namespace "a" is also used by servers[0]; give each server its own namespace (it defaults to the name)',
      },
    );
    parseError(
      yaml([
        ...STDIO,
        "    command: x",
        "    namespace: shared",
        "  - name: shared",
        "    transport: stdio",
        "    command: y",
      ]),
      {
        path: "servers[1].name",
        message: /namespace "shared" is also used by servers\[0\]/,
      },
    );
  });

  it("never shows values of env, headers or variables, even next to a syntax error", () => {
    const errors = [
      parseError(
        yaml([
          "servers:",
          "  - name: r",
          "    transport: sse",
          "    url: https://x.example",
          "    headers: { Authorization: Bearer SECRET-literal, X-Count: 5 }",
        ]),
        { path: "servers[0].headers.X-Count" },
      ),
      parseError(
        yaml([
          ...STDIO,
          "    command: x",
          "    env:",
          "      TOKEN: SECRET-1",
          "     BAD: 2",
        ]),
        { path: "" },
      ),
      parseError(
        '{"mcpServers": {"a": {"url": "https://x", "headers": {"A": "SECRET-2"} "b": 1}}}',
        { path: "" },
        { format: "json" },
      ),
      parseError(
        '{"mcpServers": {"a": {"command": "x", "env": {"K": "SECRET-3\u0001"}}}}',
        { path: "" },
        { format: "json" },
      ),
      parseError(
        yaml([
          "servers:",
          "  - name: a",
          "    transport: SECRET-4-long-value-that-is-not-an-enum-at-all",
        ]),
        { path: "servers[0].transport" },
      ),
    ];
    for (const error of errors) {
      assert.doesNotMatch(error.message, /SECRET/);
      assert.doesNotMatch(String(error.cause ?? ""), /SECRET/);
    }
  });
});
