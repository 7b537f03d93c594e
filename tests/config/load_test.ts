import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  MCPConfigError,
  validateServerConfig,
} from "@cleveragents/mcp-adapter";
import {
  CONFIG_SCHEMA,
  loadConfig,
  type LoadedConfig,
  MCPConfigFileError,
  parseConfig,
  type ServerEntry,
} from "@cleveragents/mcp-adapter/config";
import { fixturePath } from "../_helpers.ts";

interface Expected {
  message?: string | RegExp;
  path?: string;
  line?: number;
  column?: number;
  file?: string;
}

function check(error: unknown, expected: Expected): MCPConfigFileError {
  assert.ok(
    error instanceof MCPConfigFileError,
    `expected MCPConfigFileError, got ${error}`,
  );
  assert.ok(error instanceof MCPConfigError);
  assert.equal(error.name, "MCPConfigFileError");
  assert.equal(error.code, "invalid_config");
  assert.equal(error.field, error.path);
  if (typeof expected.message === "string") {
    assert.equal(error.message, expected.message);
  } else if (expected.message) assert.match(error.message, expected.message);
  for (const key of ["path", "line", "column", "file"] as const) {
    if (key in expected) assert.equal(error[key], expected[key], key);
  }
  return error;
}

function parseError(
  text: string,
  expected: Expected,
  options: { format?: "yaml" | "json"; env?: Record<string, string> } = {},
): MCPConfigFileError {
  const format = options.format ?? "yaml";
  const source = format === "yaml" ? "mcp.yaml" : "mcp.json";
  try {
    parseConfig(text, format, { source, env: options.env ?? {} });
  } catch (error) {
    return check(error, expected);
  }
  assert.fail("parseConfig() did not throw");
}

async function loadError(
  path: string,
  expected: Expected,
): Promise<MCPConfigFileError> {
  try {
    await loadConfig(path, { env: {} });
  } catch (error) {
    return check(error, expected);
  }
  assert.fail("loadConfig() did not throw");
}

function yaml(lines: string[]): string {
  return lines.join("\n") + "\n";
}

const STDIO = ["servers:", "  - name: a", "    transport: stdio"];

describe("parseConfig(): this library's format", () => {
  it("loads every field of every transport, in file order", async () => {
    const path = fixturePath("configs/ours.yaml");
    const config = await loadConfig(path, {
      env: { HOME_DIR: "/home/me", FILES_API_KEY: "k-1", GITHUB_TOKEN: "t-1" },
    });
    assert.equal(config.source, path);
    const expected: ServerEntry[] = [
      {
        config: {
          name: "files",
          transport: "stdio",
          command: "node",
          args: ["server.js", "--root", "/home/me"],
          env: { API_KEY: "k-1", MODE: "fixed" },
          cwd: "./srv",
        },
        namespace: "fs",
        enabled: true,
        filter: { include: ["read_*", "list_*"], exclude: ["*_admin"] },
        overrides: {
          "read_*": { readOnly: true },
          purge_cache: { writes: true },
        },
        connectTimeoutMs: 5000,
        requestTimeoutMs: 20000,
      },
      {
        config: {
          name: "github",
          transport: "streamable-http",
          url: "https://api.example.com/mcp",
          headers: { Authorization: "Bearer t-1" },
        },
        namespace: "github",
        enabled: true,
      },
      {
        config: {
          name: "legacy",
          transport: "sse",
          url: "http://localhost:8080/sse",
        },
        namespace: "legacy",
        enabled: false,
      },
    ];
    assert.deepEqual(config.servers, expected);
    for (const server of config.servers) {
      assert.equal(validateServerConfig(server.config), server.config);
    }
  });

  it("defaults the namespace to the name and enabled to true, and sets no other keys", () => {
    const { servers } = parseConfig(
      yaml([...STDIO, "    command: srv"]),
      "yaml",
    );
    assert.deepEqual(servers, [{
      config: { name: "a", transport: "stdio", command: "srv" },
      namespace: "a",
      enabled: true,
    }]);
  });

  it("reads fallback: false for a streamable-http server, and refuses it elsewhere", () => {
    const { servers } = parseConfig(
      yaml([
        "servers:",
        "  - name: a",
        "    transport: streamable-http",
        "    url: https://example.com/mcp",
        "    fallback: false",
      ]),
      "yaml",
    );
    assert.equal(servers[0]?.config.fallback, false);
    parseError(
      yaml([...STDIO, "    command: srv", "    fallback: false"]),
      { path: "servers[0].fallback", message: /not used by the "stdio"/ },
    );
    parseError(
      yaml([
        "servers:",
        "  - name: a",
        "    transport: sse",
        "    url: https://example.com/sse",
        "    fallback: true",
      ]),
      {
        path: "servers[0].fallback",
        message: /only used by "streamable-http"/,
      },
    );
    parseError(
      yaml([
        "servers:",
        "  - name: a",
        "    transport: streamable-http",
        "    url: https://example.com/mcp",
        "    fallback: nope",
      ]),
      { path: "servers[0].fallback", message: /expected true or false/ },
    );
    const claude = parseConfig(
      JSON.stringify({
        mcpServers: { a: { url: "https://example.com/mcp", fallback: false } },
      }),
      "json",
    );
    assert.equal(claude.servers[0]?.config.fallback, false);
  });

  it("reads the same format from JSON", async () => {
    const config = await loadConfig(fixturePath("configs/ours.json"));
    assert.deepEqual(config.servers.map((server) => server.namespace), [
      "echo",
      "rem",
    ]);
    assert.deepEqual(config.servers[1]?.config, {
      name: "remote",
      transport: "streamable-http",
      url: "https://example.com/mcp",
    });
  });

  it("follows YAML anchors and << merge keys", () => {
    const { servers } = parseConfig(
      yaml([
        "servers:",
        "  - &base",
        "    name: a",
        "    transport: stdio",
        "    command: srv",
        "    env: { MODE: shared }",
        "  - <<: *base",
        "    name: b",
      ]),
      "yaml",
    );
    assert.deepEqual(servers[1]?.config, {
      name: "b",
      transport: "stdio",
      command: "srv",
      env: { MODE: "shared" },
    });
  });

  it("accepts an empty server list", () => {
    assert.deepEqual(parseConfig("servers: []\n", "yaml").servers, []);
  });

  it("turns the file's snake_case overrides into readOnly/writes", () => {
    const { servers } = parseConfig(
      yaml([
        ...STDIO,
        "    command: srv",
        "    overrides:",
        '      "*": { read_only: true }',
        "      set_x: { writes: true, read_only: false }",
        "      noop: {}",
      ]),
      "yaml",
    );
    assert.deepEqual(servers[0]?.overrides, {
      "*": { readOnly: true },
      set_x: { writes: true, readOnly: false },
      noop: {},
    });
  });

  it("keeps an override named __proto__ as an ordinary key", () => {
    const { servers } = parseConfig(
      '{"servers": [{"name": "a", "transport": "stdio", "command": "x", "overrides": {"__proto__": {"writes": true}}}]}',
      "json",
    );
    const overrides = servers[0]?.overrides ?? {};
    assert.equal(Object.getPrototypeOf(overrides), Object.prototype);
    assert.deepEqual(Object.keys(overrides), ["__proto__"]);
  });
});

describe("parseConfig(): Claude Desktop, Cursor and Claude Code files", () => {
  it("reads a Claude Desktop file unchanged, tolerating the keys those tools write", async () => {
    const config = await loadConfig(
      fixturePath("configs/claude_desktop.json"),
      {
        env: { WEATHER_KEY: "w-1" },
      },
    );
    assert.deepEqual(config.servers, [
      {
        config: {
          name: "filesystem",
          transport: "stdio",
          command: "npx",
          args: [
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/Users/me/Desktop",
          ],
          env: { LOG_LEVEL: "debug" },
        },
        namespace: "filesystem",
        enabled: true,
      },
      {
        config: {
          name: "memory",
          transport: "stdio",
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-memory"],
        },
        namespace: "memory",
        enabled: false,
      },
      {
        config: {
          name: "weather",
          transport: "streamable-http",
          url: "https://weather.example.com/mcp",
          headers: { "X-Api-Key": "w-1" },
        },
        namespace: "weather",
        enabled: true,
      },
    ]);
  });

  it('maps "type": sse → sse; http, streamable-http and a bare url → streamable-http; command → stdio', async () => {
    const config = await loadConfig(
      fixturePath("configs/claude_code.mcp.json"),
      {
        env: { GITHUB_TOKEN: "t-2", TOOLS_DIR: "/opt/tools" },
      },
    );
    assert.deepEqual(
      config.servers.map((
        server,
      ) => [server.namespace, server.config.transport]),
      [
        ["github", "streamable-http"],
        ["events", "sse"],
        ["streaming", "streamable-http"],
        ["local", "stdio"],
      ],
    );
    const bare = parseConfig(
      '{"mcpServers": {"cursor": {"url": "https://example.com/mcp"}}}',
      "json",
    );
    assert.equal(bare.servers[0]?.config.transport, "streamable-http");
  });

  it("passes only the chosen transport's fields on", () => {
    const { servers } = parseConfig(
      '{"mcpServers": {"r": {"type": "http", "url": "https://example.com/mcp", "command": "unused", "env": {"A": "b"}}}}',
      "json",
    );
    assert.deepEqual(servers[0]?.config, {
      name: "r",
      transport: "streamable-http",
      url: "https://example.com/mcp",
    });
  });

  it('reads "disabled": true and "enabled": false as switched off', () => {
    const { servers } = parseConfig(
      '{"mcpServers": {"a": {"command": "a", "disabled": true}, "b": {"command": "b", "enabled": false}, "c": {"command": "c", "disabled": false}}}',
      "json",
    );
    assert.deepEqual(servers.map((server) => server.enabled), [
      false,
      false,
      true,
    ]);
  });

  it('refuses an entry with both "command" and "url" and no "type"', () => {
    parseError(
      '{\n  "mcpServers": {\n    "both": {"command": "x", "url": "https://example.com"}\n  }\n}',
      {
        message:
          'mcp.json:3:5: mcpServers.both: has both "command" and "url"; keep one, or set "type" to "stdio", "sse" or "http"',
        path: "mcpServers.both",
      },
      { format: "json" },
    );
  });

  it("refuses an entry with neither command nor url, and a type without its field", () => {
    parseError('{"mcpServers": {"empty": {"args": []}}}', {
      message:
        'mcp.json:1:17: mcpServers.empty: expected "command" (a local server) or "url" (a remote one); write e.g. "command": "npx" or "url": "https://example.com/mcp"',
    }, { format: "json" });
    parseError(
      '{"mcpServers": {"s": {"type": "stdio", "url": "https://x.example"}}}',
      {
        message:
          'mcp.json:1:17: mcpServers.s: type "stdio" needs "command", the program that starts the server; write e.g. "command": "npx"',
      },
      { format: "json" },
    );
    parseError('{"mcpServers": {"s": {"type": "sse", "command": "x"}}}', {
      message:
        'mcp.json:1:17: mcpServers.s: a remote server needs "url"; write e.g. "url": "https://example.com/mcp"',
    }, { format: "json" });
  });

  it("refuses an unknown type, and a server name with a slash", () => {
    parseError(
      '{"mcpServers": {"s": {"type": "websocket", "url": "https://x.example"}}}',
      {
        message:
          'mcp.json:1:23: mcpServers.s.type: expected one of "stdio", "sse", "http", "streamable-http", got "websocket"',
      },
      { format: "json" },
    );
    parseError('{"mcpServers": {"a/b": {"command": "x"}}}', {
      message:
        'mcp.json:1:17: mcpServers["a/b"]: expected a name without "/" (it becomes the tool namespace); write e.g. "github"',
      path: 'mcpServers["a/b"]',
    }, { format: "json" });
  });
});

describe("parseConfig(): VS Code files", () => {
  it("reads .vscode/mcp.json with its comments, trailing commas, inputs and envFile", async () => {
    const config = await loadConfig(
      fixturePath("configs/workspace/.vscode/mcp.json"),
      { env: { PERPLEXITY_API_KEY: "p-1" } },
    );
    assert.deepEqual(config.servers, [
      {
        config: {
          name: "perplexity",
          transport: "stdio",
          command: "npx",
          args: ["-y", "server-perplexity-ask"],
          // The envFile's variables, under the explicit env.
          env: { PERPLEXITY_API_KEY: "p-1", PERPLEXITY_MODEL: "sonar pro" },
        },
        namespace: "perplexity",
        enabled: true,
      },
      {
        config: {
          name: "fetch",
          transport: "streamable-http",
          url: "https://fetch.example.com/mcp",
        },
        namespace: "fetch",
        enabled: true,
      },
      {
        config: {
          name: "legacy",
          transport: "sse",
          url: "https://legacy.example.com/sse",
          headers: { Accept: "text/event-stream" },
        },
        namespace: "legacy",
        enabled: true,
      },
    ]);
  });

  it('tells a VS Code "servers" object from our "servers" list', () => {
    const vscode = parseConfig("servers:\n  x: { command: srv }\n", "yaml");
    assert.equal(vscode.servers[0]?.config.transport, "stdio");
    parseError("servers:\n  x: { transport: sse, url: https://x.example }\n", {
      message:
        'mcp.yaml:2:8: servers.x.transport: is not a key of this format; write "type": "stdio", "sse" or "http", or list the servers as servers: [{ name: ..., transport: ... }]',
    });
  });
});

describe("loadConfig()", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-config-test-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("takes the format from .yaml, .yml and .json", async () => {
    assert.equal(
      (await loadConfig(fixturePath("configs/config.yml"))).servers[0]
        ?.namespace,
      "short",
    );
    // YAML text in a .json file is a JSON error, not silently YAML.
    const misnamed = join(dir, "yaml.json");
    await writeFile(misnamed, "servers: []\n");
    await loadError(misnamed, { message: /yaml\.json:1:1: expected a value/ });
  });

  it("tries JSON, then YAML, for other names", async () => {
    for (const name of ["json_without_extension", "config_without_extension"]) {
      const config = await loadConfig(fixturePath(`configs/${name}`));
      assert.deepEqual(config.servers[0]?.config, {
        name: "plain",
        transport: "stdio",
        command: "plain-server",
      });
    }
  });

  it("takes text with a format, named <inline> unless a source is given", async () => {
    const inline = await loadConfig({ text: "servers: []", format: "yaml" });
    assert.equal(inline.source, "<inline>");
    const named = await loadConfig({
      text: "{}",
      format: "json",
      source: "team.json",
    }).catch((error) => error);
    check(named, {
      message:
        'team.json:1:1: expected a "servers" list; write e.g. servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]',
      file: "team.json",
    });
  });

  it("reports a missing file and a directory", async () => {
    const missing = join(dir, "nope.yaml");
    await loadError(missing, {
      message:
        `${missing}: cannot read the file: it does not exist; check the path`,
      file: missing,
      path: "",
    });
    await loadError(dir, {
      message:
        `${dir}: cannot read the file: it is a directory; name a file inside it`,
    });
  });

  it("refuses an unknown format", () => {
    assert.throws(
      () => parseConfig("{}", "toml" as "json", { source: "x.toml" }),
      (error) =>
        check(error, {
          message: 'x.toml: unknown format "toml"; pass "yaml" or "json"',
        }) !== undefined,
    );
  });
});

/** The same servers in each format, every interpolated field using a variable. */
const FORMATS: Record<string, {
  format: "yaml" | "json";
  text: string;
  paths: Record<string, string>;
}> = {
  ours: {
    format: "yaml",
    text: yaml([
      "servers:",
      "  - name: local",
      "    transport: stdio",
      "    command: ${C}/bin/server",
      '    args: ["--flag", "${A}"]',
      '    env: { KEY: "${E}" }',
      "  - name: remote",
      "    transport: streamable-http",
      "    url: https://${U}/mcp",
      '    headers: { Authorization: "Bearer ${H}" }',
    ]),
    paths: {
      C: "servers[0].command",
      A: "servers[0].args[1]",
      E: "servers[0].env.KEY",
      U: "servers[1].url",
      H: "servers[1].headers.Authorization",
    },
  },
  mcpServers: {
    format: "json",
    text: JSON.stringify(
      {
        mcpServers: {
          local: {
            command: "${C}/bin/server",
            args: ["--flag", "${A}"],
            env: { KEY: "${E}" },
          },
          remote: {
            url: "https://${U}/mcp",
            headers: { Authorization: "Bearer ${H}" },
          },
        },
      },
      null,
      2,
    ),
    paths: {
      C: "mcpServers.local.command",
      A: "mcpServers.local.args[1]",
      E: "mcpServers.local.env.KEY",
      U: "mcpServers.remote.url",
      H: "mcpServers.remote.headers.Authorization",
    },
  },
  vscode: {
    format: "json",
    text: JSON.stringify(
      {
        servers: {
          local: {
            type: "stdio",
            command: "${C}/bin/server",
            args: ["--flag", "${A}"],
            env: { KEY: "${E}" },
          },
          remote: {
            type: "http",
            url: "https://${U}/mcp",
            headers: { Authorization: "Bearer ${H}" },
          },
        },
      },
      null,
      2,
    ),
    paths: {
      C: "servers.local.command",
      A: "servers.local.args[1]",
      E: "servers.local.env.KEY",
      U: "servers.remote.url",
      H: "servers.remote.headers.Authorization",
    },
  },
};

const VALUES = {
  C: "/opt/c",
  A: "SECRET-a",
  E: "SECRET-e",
  U: "host.example",
  H: "SECRET-h",
};

describe("${VAR} interpolation", () => {
  for (const [label, { format, text, paths }] of Object.entries(FORMATS)) {
    it(`replaces variables in command, args, env, url and headers (${label})`, () => {
      const { servers } = parseConfig(text, format, { env: VALUES });
      assert.deepEqual(servers.map((server) => server.config), [
        {
          name: "local",
          transport: "stdio",
          command: "/opt/c/bin/server",
          args: ["--flag", "SECRET-a"],
          env: { KEY: "SECRET-e" },
        },
        {
          name: "remote",
          transport: "streamable-http",
          url: "https://host.example/mcp",
          headers: { Authorization: "Bearer SECRET-h" },
        },
      ]);
    });

    for (const [name, path] of Object.entries(paths)) {
      it(`names ${name} and ${path} when it is unset (${label}), never a value`, () => {
        const env: Record<string, string> = { ...VALUES };
        delete env[name];
        const error = parseError(text, {
          path,
          message: new RegExp(
            `^mcp\\.(yaml|json):\\d+:\\d+: ${
              path.replace(/[.[\]]/g, "\\$&")
            } uses \\$\\{${name}\\}, which is not set; export it or write \\$\\{${name}:-default\\}$`,
          ),
        }, { format, env });
        assert.equal(typeof error.line, "number");
        assert.doesNotMatch(error.message, /SECRET/);
      });
    }
  }

  function interpolated(value: string, env: Record<string, string>): string {
    const { servers } = parseConfig(
      JSON.stringify({ mcpServers: { s: { command: "x", args: [value] } } }),
      "json",
      { env },
    );
    return servers[0]?.config.args?.[0] ?? "";
  }

  it("uses ${VAR:-default} when the variable is unset or empty, else the variable", () => {
    assert.equal(interpolated("${V:-fallback}", {}), "fallback");
    assert.equal(interpolated("${V:-fallback}", { V: "" }), "fallback");
    assert.equal(interpolated("${V:-fallback}", { V: "set" }), "set");
    assert.equal(interpolated("${V:-}", {}), "");
    assert.equal(interpolated("${V:-a:b/c d}", {}), "a:b/c d");
    assert.equal(interpolated("${V}", { V: "" }), "");
  });

  it("reads ${env:VAR} (VS Code's spelling), several references, $${ and lone $ literally", () => {
    assert.equal(interpolated("${env:V}", { V: "v" }), "v");
    assert.equal(interpolated("${A}-${B}", { A: "1", B: "2" }), "1-2");
    assert.equal(interpolated("$${HOME} and $HOME", {}), "${HOME} and $HOME");
    assert.equal(interpolated("cost: $5", {}), "cost: $5");
  });

  it("does not interpolate names, namespaces, cwd or overrides", () => {
    const { servers } = parseConfig(
      yaml([
        ...STDIO,
        "    command: srv",
        "    cwd: ${DIR}",
        "    namespace: ns",
      ]),
      "yaml",
      { env: {} },
    );
    assert.equal(servers[0]?.config.cwd, "${DIR}");
  });

  it("ignores inherited keys of the env object", () => {
    assert.throws(
      () => interpolated("${constructor}", {}),
      /uses \$\{constructor\}, which is not set/,
    );
  });

  it("reads the process environment when no env is given", () => {
    process.env.MCP_ADAPTER_TEST_HOST = "from-process.example";
    try {
      const { servers } = parseConfig(
        '{"mcpServers": {"s": {"url": "https://${MCP_ADAPTER_TEST_HOST}/mcp"}}}',
        "json",
      );
      assert.equal(servers[0]?.config.url, "https://from-process.example/mcp");
    } finally {
      delete process.env.MCP_ADAPTER_TEST_HOST;
    }
  });

  it("refuses references it cannot read, and an unclosed ${", () => {
    parseError(yaml([...STDIO, "    command: ${command:pick}"]), {
      message:
        'mcp.yaml:4:5: servers[0].command uses ${command:pick}, which is not a variable reference this loader understands; write ${NAME} or ${NAME:-default} (NAME made of letters, digits and _), ${workspaceFolder}, ${userHome} or ${input:ID}, or "$${" for a literal "${"',
    });
    parseError(yaml([...STDIO, "    command: x", '    args: ["${OPEN"]']), {
      message:
        'mcp.yaml:5:12: servers[0].args[0]: has a "${" without a closing "}"; close it, or write "$${" for a literal "${"',
    });
  });

  it("checks the interpolated URL and says what to write, without showing it", () => {
    const error = parseError(
      yaml([
        "servers:",
        "  - name: api",
        "    transport: sse",
        '    url: "${API_URL}"',
      ]),
      {
        message:
          'mcp.yaml:4:5: servers[0].url: expected an http(s) URL; write e.g. "https://example.com/mcp"',
        path: "servers[0].url",
      },
      { env: { API_URL: "SECRET token not a url" } },
    );
    assert.doesNotMatch(error.message, /SECRET/);
  });
});

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
        'mcp.yaml:4:5: servers[0].comand: unknown field (did you mean "command"?); the fields are name, transport, command, args, env, envFile, cwd, url, headers, fallback, namespace, filter, overrides, connectTimeoutMs, requestTimeoutMs, enabled, auth',
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

describe("CONFIG_SCHEMA", () => {
  it("is what schema/mcp-config.schema.json holds (run `deno task schema` after a change)", () => {
    const file = fileURLToPath(
      new URL("../../schema/mcp-config.schema.json", import.meta.url),
    );
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), CONFIG_SCHEMA);
  });

  it("is a draft-07 schema with the three formats", () => {
    assert.equal(
      CONFIG_SCHEMA.$schema,
      "http://json-schema.org/draft-07/schema#",
    );
    const definitions = CONFIG_SCHEMA.definitions as Record<string, unknown>;
    for (const name of ["server", "namedServers", "namedServer", "override"]) {
      assert.ok(name in definitions, name);
    }
  });
});

describe("examples/mcp.yaml", () => {
  it("configures the example notes server", async () => {
    const file = fileURLToPath(
      new URL("../../examples/mcp.yaml", import.meta.url),
    );
    const config: LoadedConfig = await loadConfig(file, { env: {} });
    assert.deepEqual(config.servers.map((server) => server.config), [{
      name: "notes",
      transport: "stdio",
      command: "deno",
      args: ["run", "--no-prompt", "examples/notes_server.ts"],
    }]);
    assert.equal(config.servers[0]?.namespace, "notes");
    assert.ok(config.servers[0]?.filter);
    assert.ok(config.servers[0]?.overrides);
  });
});

describe("parseConfig(): auth: oauth", () => {
  it("reads auth: oauth, and the object form with clientId and scopes", () => {
    const { servers } = parseConfig(
      yaml([
        "servers:",
        "  - name: linear",
        "    transport: streamable-http",
        "    url: https://mcp.example.com/mcp",
        "    auth: oauth",
        "  - name: github",
        "    transport: sse",
        "    url: https://mcp.example.com/sse",
        "    auth: { type: oauth, clientId: my-app, scopes: [repo, read:org] }",
        "  - name: plain",
        "    transport: streamable-http",
        "    url: https://mcp.example.com/plain",
      ]),
      "yaml",
    );
    assert.deepEqual(servers.map((server) => server.auth), [
      { type: "oauth" },
      { type: "oauth", clientId: "my-app", scopes: ["repo", "read:org"] },
      undefined,
    ]);
    assert.ok(!("auth" in servers[2]!), "no auth key when none is written");
  });

  it("refuses auth on a stdio server and anything but oauth", () => {
    parseError(yaml([...STDIO, "    command: x", "    auth: oauth"]), {
      path: "servers[0].auth",
      message: /is for remote servers/,
    });
    const remote = [
      "servers:",
      "  - name: a",
      "    transport: streamable-http",
      "    url: https://example.com/mcp",
    ];
    parseError(yaml([...remote, "    auth: basic"]), {
      path: "servers[0].auth",
      message: /expected "oauth"/,
    });
    parseError(yaml([...remote, "    auth: { type: oauth, secret: x }"]), {
      path: "servers[0].auth.secret",
    });
  });
});
