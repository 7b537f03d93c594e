import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPConfigError,
  type MCPErrorKind,
  type MCPServerConfig,
  MCPToolAdapter,
  type MCPToolResult,
  validateServerConfig,
} from "@cleveragents/mcp-adapter";

function configError(config: unknown, field: string, pattern: RegExp): void {
  assert.throws(() => validateServerConfig(config), (error: Error) => {
    assert.ok(
      error instanceof MCPConfigError,
      `expected MCPConfigError, got ${error}`,
    );
    assert.equal(error.field, field);
    assert.equal(error.code, "invalid_config");
    assert.match(error.message, pattern);
    return true;
  });
}

describe("validateServerConfig()", () => {
  it("accepts a minimal stdio config and a remote one", () => {
    assert.equal(
      validateServerConfig({ name: "a", transport: "stdio", command: "srv" })
        .command,
      "srv",
    );
    assert.equal(
      validateServerConfig({
        name: "b",
        transport: "streamable-http",
        url: "https://example.com/mcp",
      }).url,
      "https://example.com/mcp",
    );
    assert.equal(
      validateServerConfig({
        name: "c",
        transport: "sse",
        url: "http://127.0.0.1:3001/sse",
      }).name,
      "c",
    );
  });

  it("takes fallback (a boolean) for streamable-http only", () => {
    assert.equal(
      validateServerConfig({
        name: "b",
        transport: "streamable-http",
        url: "https://example.com/mcp",
        fallback: false,
      }).fallback,
      false,
    );
    configError(
      {
        name: "b",
        transport: "streamable-http",
        url: "https://example.com/mcp",
        fallback: "no",
      },
      "fallback",
      /expected true or false, got "no"/,
    );
    configError(
      { name: "c", transport: "sse", url: "https://x.dev/sse", fallback: true },
      "fallback",
      /only used by "streamable-http"/,
    );
    configError(
      { name: "a", transport: "stdio", command: "srv", fallback: true },
      "fallback",
      /not used by the "stdio" transport/,
    );
  });

  it("requires a name", () => {
    configError(
      { transport: "stdio", command: "x" },
      "name",
      /name: expected a non-empty string/,
    );
    configError(
      { name: " ", transport: "stdio", command: "x" },
      "name",
      /got " "/,
    );
  });

  it("requires one of the three transports", () => {
    configError(
      { name: "a", transport: "websocket" },
      "transport",
      /"stdio", "sse" or "streamable-http", got "websocket"/,
    );
    configError({ name: "a" }, "transport", /got undefined/);
  });

  it("requires a command for stdio", () => {
    configError(
      { name: "a", transport: "stdio" },
      "command",
      /stdio transport needs "command"/,
    );
  });

  it("requires a valid http(s) url for sse and streamable-http", () => {
    configError(
      { name: "a", transport: "sse" },
      "url",
      /sse transport needs "url"/,
    );
    configError(
      { name: "a", transport: "streamable-http", url: "not a url" },
      "url",
      /expected an http\(s\) URL/,
    );
    configError(
      { name: "a", transport: "streamable-http", url: "ftp://x.org" },
      "url",
      /expected an http\(s\) URL/,
    );
  });

  it("checks args, env and headers types without echoing secret values", () => {
    configError(
      { name: "a", transport: "stdio", command: "x", args: ["ok", 3] },
      "args[1]",
      /args\[1\]: expected a string, got a number/,
    );
    configError(
      { name: "a", transport: "stdio", command: "x", env: "TOKEN=1" },
      "env",
      /got a string/,
    );
    assert.throws(
      () =>
        validateServerConfig({
          name: "a",
          transport: "sse",
          url: "https://x.org/sse",
          headers: { Authorization: 12345678 },
        }),
      (error: Error) => {
        assert.match(error.message, /headers.Authorization: expected a string/);
        assert.doesNotMatch(error.message, /12345678/);
        return true;
      },
    );
    assert.throws(
      () =>
        validateServerConfig({
          name: "a",
          transport: "stdio",
          command: "x",
          env: "SECRET=hunter2",
        }),
      (error: Error) => !error.message.includes("hunter2"),
    );
  });

  it("rejects unknown fields, naming them", () => {
    configError(
      { name: "a", transport: "stdio", comand: "x" },
      "comand",
      /comand: is an unknown field/,
    );
  });

  it("the MCPToolAdapter constructor validates its config", () => {
    assert.throws(
      () => new MCPToolAdapter({ name: "a", transport: "stdio" } as never),
      MCPConfigError,
    );
    assert.throws(
      () =>
        new MCPToolAdapter({ name: "a", transport: "stdio", command: "x" }, {
          requestTimeoutMs: -5,
        }),
      /requestTimeoutMs must be a positive number of milliseconds/,
    );
  });
});

describe("MCPServerConfig and MCPToolResult types", () => {
  it("refuse a remote config without url and a stdio one without command, at compile time", () => {
    // @ts-expect-error: an sse server needs a url
    const remote: MCPServerConfig = { name: "a", transport: "sse" };
    // @ts-expect-error: a stdio server needs a command
    const local: MCPServerConfig = { name: "b", transport: "stdio" };
    // @ts-expect-error: a stdio server takes no url
    const mixed: MCPServerConfig = {
      name: "c",
      transport: "stdio",
      command: "x",
      url: "https://example.com",
    };
    // At run time the one check refuses them too.
    for (const config of [remote, local, mixed]) {
      assert.throws(() => validateServerConfig(config), MCPConfigError);
    }
  });

  it("narrow on success: error is a string and errorKind set only on failure", () => {
    const describe = (result: MCPToolResult): string => {
      if (result.success) {
        const error: null = result.error;
        const first = result.data.content?.[0];
        return `${error}:${first?.type === "text" ? first.text : ""}`;
      }
      const kind: MCPErrorKind = result.errorKind;
      return `${kind}:${result.error.toUpperCase()}`;
    };
    assert.equal(
      describe({
        success: true,
        data: { content: [{ type: "text", text: "hi" }] },
        error: null,
        durationMs: 1,
      }),
      "null:hi",
    );
    assert.equal(
      describe({
        success: false,
        data: {},
        error: "boom",
        errorKind: "server_error",
        durationMs: 1,
      }),
      "server_error:BOOM",
    );
  });
});
