import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { validateServerConfig } from "@cleveragents/mcp-adapter";
import {
  loadConfig,
  parseConfig,
  type ServerEntry,
} from "@cleveragents/mcp-adapter/config";
import { fixturePath } from "../_helpers.ts";
import { parseError, STDIO, yaml } from "./_config_errors.ts";

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
