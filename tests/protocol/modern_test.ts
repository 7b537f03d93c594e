/**
 * The modern era (MCP 2026-07-28) against real servers of the official SDK
 * v2: stdio (`serveStdio`) and streamable HTTP (`createMcpHandler`), each
 * modern-only (`legacy: "reject"`) and dual-era (the SDK's default).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPConnectionError,
  type MCPServerConfig,
  MCPToolAdapter,
  MCPToolHub,
} from "@cleveragents/mcp-adapter";
import { ToolRegistry } from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { text, waitFor } from "../_helpers.ts";
import {
  type LegacyMode,
  type ModernHttpServer,
  modernStdioCommand,
  startModernHttp,
} from "../_modern.ts";

function stdioConfig(legacy: LegacyMode): MCPServerConfig {
  const { command, args } = modernStdioCommand(legacy);
  return { name: "v2", transport: "stdio", command, args };
}

/** Tools added in this run get names of their own: the HTTP fixture keeps them. */
let added = 0;

/**
 * A modern server's tool-list change reaches `onToolsChanged` (through
 * `subscriptions/listen`, opened by `connect()`), invalidates the cache,
 * and a hub registers the new tool by itself.
 */
async function assertFollowsChanges(config: MCPServerConfig): Promise<void> {
  const adapter = new MCPToolAdapter(config);
  const hub = new MCPToolHub([{
    config: { ...config, name: `${config.name}-hub` },
    namespace: "live",
    enabled: true,
  }]);
  try {
    await adapter.connect();
    const before = (await adapter.discoverTools()).map((tool) => tool.name);
    const name = `added_${++added}_${before.length}`;
    assert.equal(before.includes(name), false);
    let heard = 0;
    const changed = new Promise<void>((resolve) =>
      adapter.onToolsChanged(() => {
        heard++;
        resolve();
      })
    );
    const [status] = await hub.start();
    assert.equal(status?.state, "connected", status?.error);
    const add = await adapter.invoke("add_tool", { name });
    assert.equal(add.success, true, add.error ?? "");
    await changed;
    assert.equal(heard, 1);
    const after = (await adapter.discoverTools()).map((tool) => tool.name);
    assert.ok(after.includes(name), `${name} in ${after.join(", ")}`);
    assert.equal(text(await adapter.invoke(name, {})), `hello from ${name}`);
    // A hub follows the changes of its own connection: it registers a
    // tool added through it without retry().
    const grown = `${name}_hub`;
    const hubAdd = await hub.registry.get("live/add_tool")!.invoke({
      name: grown,
    });
    assert.equal(hubAdd.success, true, hubAdd.error ?? "");
    assert.ok(
      await waitFor(() => hub.registry.has(`live/${grown}`), 10_000),
      "the hub registered the added tool",
    );
  } finally {
    await adapter.disconnect();
    await hub.close();
  }
}

/**
 * Deadlines, cancellation, output validation and reconnect on a modern
 * server: the same results as on a 2025-era one.
 */
async function assertCallBehaviour(config: MCPServerConfig): Promise<void> {
  const adapter = new MCPToolAdapter(config);
  try {
    await adapter.connect();
    const cancelledBefore = Number(text(await adapter.invoke("counters", {})));
    const late = await adapter.invoke("hang", {}, { timeoutMs: 200 });
    assert.equal(late.errorKind, "timeout");
    const abort = new AbortController();
    // Aborted once the server has the call (its first progress report).
    const stopped = await adapter.invoke("hang", {}, {
      signal: abort.signal,
      onProgress: () => abort.abort(new Error("the user stopped it")),
    });
    assert.equal(stopped.errorKind, "cancelled");
    assert.match(stopped.error ?? "", /the user stopped it/);
    // The server heard both: stdio by notifications/cancelled, HTTP by the
    // response stream closing.
    assert.ok(
      await waitFor(
        async () =>
          Number(text(await adapter.invoke("counters", {}))) ===
            cancelledBefore + 2,
        10_000,
      ),
      "the server saw both calls cancelled",
    );
    const structured = await adapter.invoke("structured", { n: 21 });
    assert.equal(structured.success, true, structured.error ?? "");
    assert.deepEqual(structured.data.structuredContent, { doubled: 42 });
    await adapter.reconnect();
    assert.equal(adapter.serverInfo?.era, "modern");
    assert.equal(text(await adapter.invoke("get_sum", { a: 2, b: 2 })), "4");
  } finally {
    await adapter.disconnect();
  }
}

for (const legacy of ["reject", "serve"] as const) {
  describe(`modern era over stdio (serveStdio, legacy: ${legacy})`, () => {
    it("connects with server/discover, lists and invokes, and reports the era", async () => {
      const adapter = new MCPToolAdapter(stdioConfig(legacy));
      try {
        await adapter.connect();
        assert.equal(adapter.serverInfo?.era, "modern");
        assert.equal(adapter.serverInfo?.protocolVersion, "2026-07-28");
        assert.deepEqual(adapter.serverInfo?.serverInfo, {
          name: "modern-fixture",
          version: "2.0.0",
        });
        assert.equal(adapter.serverInfo?.instructions, "SDK v2 test fixture");
        const names = (await adapter.discoverTools()).map((tool) => tool.name);
        assert.ok(names.includes("get_sum") && names.includes("echo"));
        // Headers are HTTP's: over stdio the annotation is ignored.
        assert.ok(names.includes("bad_header"));
        const sum = await adapter.invoke("get_sum", { a: 40, b: 2 });
        assert.equal(sum.success, true, sum.error ?? "");
        assert.equal(text(sum), "42");
        const bad = await adapter.invoke("get_sum", { a: "x" });
        assert.equal(bad.errorKind, "validation");
      } finally {
        await adapter.disconnect();
      }
    });

    it("reports progress, and passes the server's logs to onLog", async () => {
      const logs: unknown[] = [];
      const adapter = new MCPToolAdapter(stdioConfig(legacy), {
        onLog: (level, logger, data) => logs.push([level, logger, data]),
      });
      try {
        await adapter.connect();
        const seen: number[] = [];
        const done = await adapter.invoke("progress", { steps: 3 }, {
          onProgress: (p) => seen.push(p.progress),
        });
        assert.equal(text(done), "done 3 steps");
        assert.deepEqual(seen, [1, 2, 3]);
        await adapter.invoke("log_message", { message: "hi" });
        assert.deepEqual(logs, [
          ["info", "fixture", "hi"],
          ["warning", "fixture", { warned: "hi" }],
        ]);
        logs.length = 0;
        assert.equal(await adapter.setLogLevel("warning"), true);
        await adapter.invoke("log_message", { message: "again" });
        assert.deepEqual(logs, [["warning", "fixture", { warned: "again" }]]);
      } finally {
        await adapter.disconnect();
      }
    });

    it("answers input_required with the elicitation handler, and names the handler when there is none", async () => {
      const asked: unknown[] = [];
      const adapter = new MCPToolAdapter(stdioConfig(legacy), {
        handlers: {
          elicitation: (request) => {
            asked.push(request.message);
            return { action: "accept", content: { name: "Ada" } };
          },
        },
      });
      const bare = new MCPToolAdapter(stdioConfig(legacy));
      try {
        await adapter.connect();
        const hello = await adapter.invoke("ask_name", {});
        assert.equal(hello.success, true, hello.error ?? "");
        assert.equal(text(hello), "hello Ada");
        assert.deepEqual(asked, ["What is your name?"]);
        await bare.connect();
        const failed = await bare.invoke("ask_name", {});
        assert.equal(failed.success, false);
        assert.match(failed.error ?? "", /handlers\.elicitation/);
      } finally {
        await adapter.disconnect();
        await bare.disconnect();
      }
    });

    it("URL-mode elicitation: declared on request, the URL checked before the handler sees it", async () => {
      const opened: unknown[] = [];
      const adapter = new MCPToolAdapter(stdioConfig(legacy), {
        handlers: {
          urlElicitation: true,
          elicitation: (request) => {
            opened.push([request.mode, request.url, request.message]);
            return { action: "accept" };
          },
        },
      });
      const formsOnly = new MCPToolAdapter(stdioConfig(legacy), {
        handlers: { elicitation: () => ({ action: "decline" }) },
      });
      try {
        await adapter.connect();
        const url = "https://auth.example.com/login?state=1";
        const done = await adapter.invoke("open_page", { url });
        assert.equal(text(done), "page accept", done.error ?? "");
        assert.deepEqual(opened, [["url", url, "Sign in, please"]]);
        for (
          const [hostile, said] of [
            ["javascript:alert(1)", /its scheme "javascript:" is not https:/],
            ["http://evil.example/", /plain http: on another machine/],
            ["https://bank.example@evil.example/", /credentials/],
            ["not a url", /not a valid absolute URL/],
          ] as const
        ) {
          const refused = await adapter.invoke("open_page", { url: hostile });
          assert.equal(refused.success, false, hostile);
          assert.match(refused.error ?? "", said);
        }
        const odd = await adapter.invoke("open_page", {
          url,
          message: { toString: 1 },
        });
        assert.equal(odd.success, false);
        assert.match(odd.error ?? "", /message is an object, not text/);
        assert.equal(opened.length, 1);
        // A client that declared forms only is never asked to open a page.
        await formsOnly.connect();
        const undeclared = await formsOnly.invoke("open_page", { url });
        assert.equal(undeclared.success, false);
        assert.match(undeclared.error ?? "", /-32021/);
      } finally {
        await adapter.disconnect();
        await formsOnly.disconnect();
      }
    });

    it("follows tool-list changes through subscriptions/listen (adapter and hub)", async () => {
      await assertFollowsChanges(stdioConfig(legacy));
    });

    it("deadlines, cancellation, output validation and reconnect", async () => {
      await assertCallBehaviour(stdioConfig(legacy));
    });

    it("hands its tools to a model (/models) and runs the model's call", async () => {
      const adapter = new MCPToolAdapter(stdioConfig(legacy));
      try {
        await adapter.connect();
        const registry = new ToolRegistry();
        await adapter.registerTools(registry, "v2");
        const tools = modelTools(registry, "openai-chat");
        const sum = tools.definitions.find((tool) =>
          tool.function.name === "v2__get_sum"
        );
        assert.ok(sum, "get_sum is offered to the model");
        const [message] = await tools.dispatch({
          id: "call_1",
          type: "function",
          function: { name: "v2__get_sum", arguments: '{"a": 20, "b": 22}' },
        });
        assert.deepEqual(message, {
          role: "tool",
          tool_call_id: "call_1",
          content: "42",
        });
      } finally {
        await adapter.disconnect();
      }
    });
  });
}

describe("modern era over streamable HTTP (createMcpHandler)", () => {
  const servers: Record<LegacyMode, ModernHttpServer | undefined> = {
    reject: undefined,
    serve: undefined,
  };
  before(async () => {
    servers.reject = await startModernHttp("reject");
    servers.serve = await startModernHttp("serve");
  });
  after(async () => {
    await servers.reject?.close();
    await servers.serve?.close();
  });

  for (const legacy of ["reject", "serve"] as const) {
    it(`legacy: ${legacy}: every request carries the envelope and the 2026-07-28 headers`, async () => {
      const server = servers[legacy]!;
      server.seen.length = 0;
      const adapter = new MCPToolAdapter({
        name: "v2",
        transport: "streamable-http",
        url: server.url,
      });
      try {
        await adapter.connect();
        assert.equal(adapter.serverInfo?.era, "modern");
        assert.equal(adapter.transportKind, "streamable-http");
        const sum = await adapter.invoke("get_sum", { a: 1, b: 2 });
        assert.equal(text(sum), "3", sum.error ?? "");
        const methods = server.seen.map((request) => request.method);
        assert.deepEqual(methods, [
          "server/discover",
          "subscriptions/listen",
          "tools/list",
          "tools/call",
        ]);
        for (const request of server.seen) {
          assert.equal(request.headers["mcp-protocol-version"], "2026-07-28");
          assert.equal(request.headers["mcp-method"], request.method);
          assert.equal(request.headers["mcp-session-id"], undefined);
        }
        assert.equal(server.seen[3]!.headers["mcp-name"], "get_sum");
      } finally {
        await adapter.disconnect();
      }
    });

    it(`legacy: ${legacy}: follows tool-list changes through subscriptions/listen (adapter and hub)`, async () => {
      await assertFollowsChanges({
        name: "v2",
        transport: "streamable-http",
        url: servers[legacy]!.url,
      });
    });

    it(`legacy: ${legacy}: deadlines, cancellation, output validation and reconnect`, async () => {
      await assertCallBehaviour({
        name: "v2",
        transport: "streamable-http",
        url: servers[legacy]!.url,
      });
    });
  }

  it("mirrors x-mcp-header parameters into Mcp-Param-* headers, and leaves out a tool whose annotation is invalid", async () => {
    const server = servers.serve!;
    const notes: Error[] = [];
    const adapter = new MCPToolAdapter({
      name: "v2",
      transport: "streamable-http",
      url: server.url,
    }, { onError: (error) => notes.push(error) });
    try {
      await adapter.connect();
      const names = (await adapter.discoverTools()).map((tool) => tool.name);
      assert.ok(names.includes("weather"));
      assert.ok(!names.includes("bad_header"), "an invalid tool is left out");
      assert.match(
        notes.map((n) => n.message).join("\n"),
        /"bad_header".*number/,
      );
      server.seen.length = 0;
      const result = await adapter.invoke("weather", {
        region: "Zürich ",
        note: "not mirrored",
      });
      assert.equal(text(result), "weather for Zürich ", result.error ?? "");
      const call = server.seen.find((r) => r.method === "tools/call")!;
      assert.equal(call.headers["mcp-name"], "weather");
      assert.equal(
        call.headers["mcp-param-region"],
        `=?base64?${
          btoa(String.fromCharCode(...new TextEncoder().encode("Zürich ")))
        }?=`,
      );
      assert.equal(
        call.headers["mcp-param-days"],
        undefined,
        "absent: no header",
      );
      const seven = await adapter.invoke("weather", {
        region: "Oslo",
        days: 7,
      });
      assert.equal(seven.success, true, seven.error ?? "");
      const second = server.seen.filter((r) => r.method === "tools/call")[1]!;
      assert.equal(second.headers["mcp-param-region"], "Oslo");
      assert.equal(second.headers["mcp-param-days"], "7");
    } finally {
      await adapter.disconnect();
    }
  });

  it("answers input_required over HTTP with the elicitation handler", async () => {
    const adapter = new MCPToolAdapter({
      name: "v2",
      transport: "streamable-http",
      url: servers.reject!.url,
    }, {
      handlers: {
        elicitation: () => ({ action: "accept", content: { name: "Grace" } }),
      },
    });
    try {
      await adapter.connect();
      const hello = await adapter.invoke("ask_name", {});
      assert.equal(text(hello), "hello Grace", hello.error ?? "");
    } finally {
      await adapter.disconnect();
    }
  });

  it('protocol: "legacy" against a modern-only server fails with the server\'s own words', async () => {
    const adapter = new MCPToolAdapter({
      name: "v2",
      transport: "streamable-http",
      url: servers.reject!.url,
      protocol: "legacy",
    });
    try {
      await assert.rejects(adapter.connect(), (error: unknown) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.match(error.message, /Unsupported protocol version/);
        return true;
      });
    } finally {
      await adapter.disconnect();
    }
  });
});
