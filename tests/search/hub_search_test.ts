/**
 * Tool search against real servers through a hub: server-everything and an
 * SDK v1 `McpServer` over stdio (the 2025 era), SDK v2 `McpServer`s over
 * streamable HTTP (the 2026 era: tool-list changes arrive over
 * `subscriptions/listen`). Search finds their tools with the built-in
 * ranker; a model's call through the meta-tool pair, Anthropic's
 * `tool_reference` hand-off and OpenAI's client `tool_search` reaches the
 * server; an app-only or a held (drifted, pinned) tool is never found; a
 * tool added by `list_changed` is found, in both eras.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  MCPToolHub,
  type ServerEntry,
  type ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  modelTools,
  type OpenAIChatToolMessage,
} from "@cleveragents/mcp-adapter/models";
import { toolCatalog } from "@cleveragents/mcp-adapter/search";
import { everythingCommand } from "../_everything.ts";
import {
  fixturePath,
  runtimeCommand,
  sdkServerCommand,
  waitFor,
} from "../_helpers.ts";
import { type ModernHttpServer, startModernHttp } from "../_modern.ts";
import { buildAppServer } from "../apps/_app_server.ts";

const TIMEOUT_MS = 60_000;

function stdio(
  name: string,
  { command, args }: { command: string; args: string[] },
): ServerEntry {
  return {
    config: { name, transport: "stdio", command, args },
    namespace: name,
    enabled: true,
  };
}

function http(name: string, url: string): ServerEntry {
  return {
    config: { name, transport: "streamable-http", url },
    namespace: name,
    enabled: true,
  };
}

/** The names a search finds, best first. */
async function found(
  hub: MCPToolHub,
  query: string,
  k = 5,
): Promise<string[]> {
  return (await toolCatalog(hub).search(query, { k })).map((hit) => hit.name);
}

async function invoke(registry: ToolRegistry, name: string, args = {}) {
  const result = await registry.get(name)!.invoke(args);
  assert.equal(result.success, true, result.error ?? "");
}

describe("tool search through a hub of real servers", {
  timeout: TIMEOUT_MS,
}, () => {
  let modern: ModernHttpServer;
  let apps: ModernHttpServer;
  let hub: MCPToolHub;

  before(async () => {
    modern = await startModernHttp("serve");
    apps = await startModernHttp("serve", () => buildAppServer());
    hub = new MCPToolHub([
      stdio("everything", everythingCommand("stdio")),
      stdio("live", sdkServerCommand),
      http("modern", modern.url),
      http("apps", apps.url),
    ]);
    for (const status of await hub.start()) {
      assert.equal(
        status.state,
        "connected",
        `${status.name}: ${status.error}`,
      );
    }
    assert.equal(hub.status()[2]!.era, "modern");
    assert.equal(hub.status()[0]!.era, "legacy");
  });
  after(async () => {
    await hub?.close();
    await modern?.close();
    await apps?.close();
  });

  it("finds each server's tools with the built-in ranker", async () => {
    assert.equal(
      (await found(hub, "echo back the message I give you"))[0],
      "everything/echo",
    );
    assert.ok(
      (await found(hub, "add two numbers together")).includes(
        "modern/get_sum",
      ),
    );
    assert.equal(
      (await found(hub, "what process is this, its facts"))[0],
      "live/whoami",
    );
    assert.deepEqual(
      (await toolCatalog(hub).search("chart", { k: 5, servers: ["apps"] }))
        .map((hit) => hit.name),
      ["apps/show_chart"],
    );
  });

  it("never finds an app-only tool, nor offers it to a model", async () => {
    assert.ok(hub.registry.has("apps/refresh_chart"));
    const hits = await found(hub, "refresh the chart's data", 20);
    assert.ok(!hits.includes("apps/refresh_chart"), hits.join(", "));
    const tools = modelTools(hub, "anthropic", { toolSearch: "always" });
    assert.ok(
      !JSON.stringify(tools.definitions).includes("refresh_chart"),
      "no deferred definition of the app-only tool",
    );
  });

  it("finds a tool a 2025-era server adds with list_changed", async () => {
    await invoke(hub.registry, "live/grow");
    assert.ok(await waitFor(() => hub.registry.has("live/grown_1"), 10_000));
    assert.ok((await found(hub, "grown_1")).includes("live/grown_1"));
  });

  it("finds a tool a 2026-era server adds, announced over subscriptions/listen", async () => {
    const name = `translate_text_${Date.now()}`;
    await invoke(hub.registry, "modern/add_tool", { name });
    assert.ok(
      await waitFor(() => hub.registry.has(`modern/${name}`), 10_000),
    );
    assert.equal((await found(hub, name))[0], `modern/${name}`);
  });

  it("a model's call through the meta-tool pair reaches the server", async () => {
    const tools = modelTools(hub, "openai-chat", { toolSearch: "always" });
    const reply = async (name: string, args: unknown) =>
      ((await tools.dispatch({
        id: "c",
        type: "function",
        function: { name, arguments: JSON.stringify(args) },
      }))[0] as OpenAIChatToolMessage).content;
    const search = await reply("search_tools", {
      query: "echo back a message",
    });
    const first = JSON.parse(search.split("\n")[1]!);
    assert.equal(first.name, "everything__echo");
    assert.deepEqual(first.inputSchema.required, ["message"]);
    assert.equal(
      await reply("call_tool", {
        name: first.name,
        arguments: { message: "hello" },
      }),
      "Echo: hello",
    );
  });

  it("a model's call after Anthropic's tool_reference hand-off reaches the server", async () => {
    const tools = modelTools(hub, "anthropic", { toolSearch: "always" });
    const search = await tools.dispatch({
      type: "tool_use",
      id: "toolu_1",
      name: "search_tools",
      input: { query: "echo back a message" },
    });
    const reference = search.content[0];
    assert.ok(reference?.type === "tool_reference");
    assert.equal(reference.tool_name, "everything__echo");
    const called = await tools.dispatch({
      type: "tool_use",
      id: "toolu_2",
      name: reference.tool_name,
      input: { message: "deferred" },
    });
    assert.deepEqual(called.content, [{
      type: "text",
      text: "Echo: deferred",
    }]);
  });

  it("a model's call after OpenAI's client tool_search reaches the server", async () => {
    const tools = modelTools(hub, "openai-responses", { toolSearch: "always" });
    const output = await tools.dispatch({
      type: "tool_search_call",
      call_id: "ts_1",
      execution: "client",
      arguments: { query: "add two numbers" },
    });
    const namespace = output.tools.find((ns) => ns.name === "modern");
    const sum = namespace?.tools.find((fn) => fn.name === "modern__get_sum");
    assert.ok(sum, JSON.stringify(output.tools.map((ns) => ns.name)));
    const result = await tools.dispatch({
      type: "function_call",
      call_id: "fc_1",
      namespace: "modern",
      name: sum.name,
      arguments: '{"a":20,"b":22}',
    });
    assert.match(String(result.output), /42/);
  });
});

describe("tool search and pinned tools", { timeout: TIMEOUT_MS }, () => {
  it("never finds a held tool: new, or changed since it was pinned", async () => {
    const drift = runtimeCommand(
      fixturePath(
        `drift_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
      ),
    );
    // Pinned with nothing accepted: every tool is held until accepted.
    const hub = new MCPToolHub([stdio("notes", drift)], {
      pins: { notes: {} },
    });
    try {
      assert.equal((await hub.start())[0]!.state, "connected");
      assert.deepEqual(await found(hub, "read your notes"), []);
      await hub.acceptToolChanges("notes");
      assert.equal(
        (await found(hub, "read your notes"))[0],
        "notes/read_notes",
      );
      // The server rewrites read_notes, drops list_notes, adds send_notes.
      await invoke(hub.registry, "notes/rug_pull");
      assert.ok(
        await waitFor(() => !hub.registry.has("notes/list_notes"), 10_000),
      );
      assert.ok(hub.adapter("notes")!.connected);
      for (const query of ["read your notes", "mail notes", "list notes"]) {
        const hits = await found(hub, query, 10);
        assert.ok(
          hits.every((name) => name === "notes/rug_pull"),
          `${query}: ${hits.join(", ")}`,
        );
      }
      const tools = modelTools(hub, "openai-chat", { toolSearch: "always" });
      const [reply] = await tools.dispatch({
        id: "c",
        type: "function",
        function: {
          name: "call_tool",
          arguments: '{"name":"notes__send_notes","arguments":{"to":"x"}}',
        },
      });
      assert.match(
        (reply as OpenAIChatToolMessage).content,
        /Unknown tool "notes__send_notes"/,
      );
    } finally {
      await hub.close();
    }
  });
});
