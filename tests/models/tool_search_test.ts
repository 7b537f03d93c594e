/**
 * The progressive hand-off of `/models`: the automatic policy (flat below
 * the threshold, search above), the meta-tool pair for the APIs without a
 * native deferral (its inner calls run through the same dispatch as direct
 * calls: the adapter's validation, approval policy, app-only refusal), each
 * native form (Anthropic `defer_loading` + `tool_reference`, OpenAI
 * Responses `tool_search` + namespaces), the overview the model is told,
 * and the shapes checked against the providers' SDK types. The tools here
 * are an SDK `McpServer` in memory behind a real adapter, so validation is
 * the adapter's own.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import {
  type MCPToolAdapter,
  type RegisteredTool,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  type AiSdkTool,
  type AnthropicTool,
  type ModelProvider,
  modelTools,
  type OpenAIChatToolMessage,
} from "@cleveragents/mcp-adapter/models";
import { toolCatalog } from "@cleveragents/mcp-adapter/search";
import {
  type CallLog,
  connectedAdapter,
  createTestServer,
} from "../_in_memory.ts";

const calls: CallLog = new Map();
let adapter: MCPToolAdapter;
const registry = new ToolRegistry();

before(async () => {
  adapter = await connectedAdapter(createTestServer(calls), "mem");
  await adapter.registerTools(registry, "mem");
  // An app-only tool of another server, and a second server.
  const base = registry.get("mem/echo")!;
  registry.replaceNamespace("ui", [{
    ...base,
    name: "ui/redraw_chart",
    description: "Redraws the chart (the app calls this)",
    ui: { visibility: ["app"] },
    sourceMetadata: { server: "ui" },
  }]);
});
after(async () => await adapter.disconnect());

const META: ModelProvider[] = ["openai-chat", "gemini", "gemini-openapi"];

/** The names the definitions declare, whatever their form. */
function declared(definitions: unknown): string[] {
  if (!Array.isArray(definitions)) return Object.keys(definitions as object);
  return definitions.flatMap((item) => {
    if (item.functionDeclarations) {
      return item.functionDeclarations.map((fn: { name: string }) => fn.name);
    }
    return [item.function?.name ?? item.name ?? item.type];
  });
}

function chatCall(name: string, args: unknown, id = "c1") {
  return {
    id,
    type: "function" as const,
    function: { name, arguments: JSON.stringify(args) },
  };
}

async function chatText(
  tools: ReturnType<typeof modelTools<"openai-chat">>,
  name: string,
  args: unknown,
  options?: Parameters<typeof tools.dispatch>[1],
): Promise<string> {
  const [message] = await tools.dispatch(chatCall(name, args), options);
  return (message as OpenAIChatToolMessage).content;
}

describe("the automatic policy", () => {
  it("is flat below the threshold and search above it, both overridable", () => {
    const flat = modelTools(registry, "openai-chat");
    assert.equal(flat.handoff.mode, "flat");
    assert.equal(flat.handoff.thresholdTokens, 6400); // 5% of 128,000
    assert.ok(flat.handoff.definitionTokens > 0);
    const tokens = flat.handoff.definitionTokens;
    assert.equal(
      modelTools(registry, "openai-chat", {
        toolSearch: { thresholdTokens: tokens - 1 },
      }).handoff.mode,
      "search",
    );
    assert.equal(
      modelTools(registry, "openai-chat", {
        toolSearch: { contextTokens: tokens * 10, threshold: 0.05 },
      }).handoff.mode,
      "search",
    );
    assert.equal(
      modelTools(registry, "openai-chat", { toolSearch: "always" }).handoff
        .mode,
      "search",
    );
    const never = modelTools(registry, "openai-chat", {
      toolSearch: { when: "never", thresholdTokens: 0 },
    });
    assert.equal(never.handoff.mode, "flat");
    assert.equal(never.definitions.length, 7);
  });

  it("refuses settings out of range, naming them", () => {
    for (
      const [toolSearch, pattern] of [
        [{ threshold: 5 }, /toolSearch\.threshold must be a share.*got 5/],
        [{ contextTokens: -1 }, /toolSearch\.contextTokens/],
        [
          { results: 50 },
          /toolSearch\.results must be a whole number from 1 to 20/,
        ],
        [{ when: "sometimes" }, /toolSearch\.when must be one of/],
        [{ form: "x" }, /toolSearch\.form/],
      ] as const
    ) {
      assert.throws(
        () => modelTools(registry, "anthropic", { toolSearch } as never),
        pattern,
      );
    }
  });
});

describe("the meta-tool pair", () => {
  for (const provider of [...META, "ai-sdk" as const]) {
    it(`${provider}: two definitions, search_tools then call_tool`, () => {
      const tools = modelTools(registry, provider, { toolSearch: "always" });
      assert.equal(tools.handoff.form, "meta");
      assert.deepEqual(declared(tools.definitions), [
        "search_tools",
        "call_tool",
      ]);
    });
  }

  it("with resultPages, read_tool_result is declared beside the search, never deferred", () => {
    for (const provider of ["openai-chat", "openai-responses"] as const) {
      const tools = modelTools(registry, provider, {
        toolSearch: "always",
        resultPages: true,
      });
      assert.ok(
        declared(tools.definitions).includes("read_tool_result"),
        provider,
      );
    }
    const anthropic = modelTools(registry, "anthropic", {
      toolSearch: "always",
      resultPages: true,
    }).definitions as AnthropicTool[];
    const read = anthropic.find((tool) => tool.name === "read_tool_result");
    assert.ok(read && read.defer_loading === undefined);
  });

  it("gemini-openapi takes call_tool's arguments as JSON text; the others as an object", () => {
    const [openapi] = modelTools(registry, "gemini-openapi", {
      toolSearch: "always",
    }).definitions;
    const call = openapi!.functionDeclarations[1]!;
    assert.equal(call.parameters?.properties?.arguments?.type, "STRING");
    const [chat, callChat] = modelTools(registry, "openai-chat", {
      toolSearch: "always",
    }).definitions;
    assert.equal(chat!.function.strict, true);
    assert.equal(callChat!.function.strict, false);
    assert.deepEqual(
      (callChat!.function.parameters.properties as Record<string, unknown>)
        .arguments,
      {
        type: "object",
        description: "The tool's arguments, as its input schema asks",
        additionalProperties: true,
      },
    );
  });

  it("search_tools answers with the tools found, their names and input schemas", async () => {
    const tools = modelTools(registry, "openai-chat", { toolSearch: "always" });
    const text = await chatText(tools, "search_tools", {
      query: "add two numbers",
    });
    const [header, ...lines] = text.split("\n");
    assert.match(header!, /Run one with call_tool/);
    const found = lines.map((line) => JSON.parse(line));
    assert.equal(found[0].name, "mem__add");
    assert.deepEqual(
      Object.keys(found[0].inputSchema.properties).sort(),
      ["a", "b"],
    );
    // Never the app-only tool, whatever the query.
    const redraw = await chatText(tools, "search_tools", {
      query: "redraw the chart",
    });
    assert.doesNotMatch(redraw, /redraw_chart/);
    assert.match(
      await chatText(tools, "search_tools", { query: " " }),
      /needs a query/,
    );
  });

  it("call_tool runs the tool through the same dispatch as a direct call", async () => {
    const meta = modelTools(registry, "openai-chat", { toolSearch: "always" });
    const flat = modelTools(registry, "openai-chat", { toolSearch: "never" });
    calls.clear();
    assert.equal(
      await chatText(meta, "call_tool", {
        name: "mem__add",
        arguments: { a: 2, b: 3 },
      }),
      "5",
    );
    // Arguments as JSON text work too (gemini-openapi sends them so).
    assert.equal(
      await chatText(meta, "call_tool", {
        name: "mem/add",
        arguments: '{"a": 1, "b": 1}',
      }),
      "2",
    );
    assert.equal(calls.get("add"), 2);
    // The adapter validates the inner call exactly as a direct one.
    const bad = { a: "two", b: 3 };
    const direct = await chatText(flat, "mem__add", bad);
    assert.match(direct, /Input validation failed for tool "add"/);
    assert.equal(
      await chatText(meta, "call_tool", { name: "mem__add", arguments: bad }),
      direct,
    );
    assert.equal(calls.get("add"), 2);
  });

  it("call_tool asks the approval policy, refuses app-only tools and unknown names", async () => {
    const asked: string[] = [];
    const tools = modelTools(registry, "openai-chat", {
      toolSearch: "always",
      approve: ({ name }) => {
        asked.push(name);
        return false;
      },
    });
    calls.clear();
    assert.match(
      await chatText(tools, "call_tool", {
        name: "mem__delete_file",
        arguments: { path: "/tmp/x" },
      }),
      /The user declined to run tool "mem__delete_file"/,
    );
    assert.deepEqual(asked, ["mem__delete_file"]);
    assert.equal(calls.get("delete_file"), undefined);
    assert.match(
      await chatText(tools, "call_tool", {
        name: "ui__redraw_chart",
        arguments: {},
      }),
      /offers it only to its own app UI/,
    );
    assert.match(
      await chatText(tools, "call_tool", { name: "mem__nope", arguments: {} }),
      /Unknown tool "mem__nope"\. Find tools with search_tools, then run one with call_tool/,
    );
    assert.match(
      await chatText(tools, "call_tool", { arguments: {} }),
      /call_tool needs the name of a tool search_tools returned/,
    );
  });

  it("AI SDK: the pair runs itself through execute", async () => {
    const tools = modelTools(registry, "ai-sdk", { toolSearch: "always" });
    const definitions = tools.definitions as Record<string, AiSdkTool>;
    const found = await definitions.search_tools!.execute(
      { query: "echo a message" },
      { toolCallId: "1" },
    );
    assert.match(found.text, /"name":"mem__echo"/);
    const echoed = await definitions.call_tool!.execute(
      { name: "mem__echo", arguments: { message: "hi" } },
      { toolCallId: "2" },
    );
    assert.deepEqual([echoed.status, echoed.text], ["ok", "hi"]);
  });
});

describe("Anthropic's native deferral", () => {
  it("declares every tool deferred after the search tool, and answers searches with tool_reference blocks", async () => {
    const tools = modelTools(registry, "anthropic", { toolSearch: "always" });
    assert.deepEqual(tools.handoff.form, "native");
    const [search, ...deferred] = tools.definitions as AnthropicTool[];
    assert.equal(search!.name, "search_tools");
    assert.equal(search!.defer_loading, undefined);
    assert.ok(deferred.length === 7 && deferred.every((t) => t.defer_loading));
    assert.deepEqual(
      deferred.map((t) => t.name),
      [...deferred.map((t) => t.name)].sort(),
    );
    const result = await tools.dispatch({
      type: "tool_use",
      id: "toolu_1",
      name: "search_tools",
      input: { query: "add numbers" },
    });
    assert.equal(result.tool_use_id, "toolu_1");
    assert.deepEqual(result.content[0], {
      type: "tool_reference",
      tool_name: "mem__add",
    });
    // Then the model calls the loaded tool itself.
    const called = await tools.dispatch({
      type: "tool_use",
      id: "toolu_2",
      name: "mem__add",
      input: { a: 4, b: 4 },
    });
    assert.deepEqual(called.content, [{ type: "text", text: "8" }]);
    const none = await tools.dispatch({
      type: "tool_use",
      id: "toolu_3",
      name: "search_tools",
      input: { query: "zzzz qqqq" },
    });
    assert.match(JSON.stringify(none.content), /No tool matched/);
  });

  it("searchBy provider: Anthropic's BM25 tool search tool", () => {
    const tools = modelTools(registry, "anthropic", {
      toolSearch: { when: "always", searchBy: "provider" },
    });
    assert.deepEqual(tools.definitions[0], {
      type: "tool_search_tool_bm25_20251119",
      name: "tool_search_tool_bm25",
    });
    const sdk: Anthropic.Messages.ToolUnion[] = tools.definitions;
    assert.equal(sdk.length, 8);
  });

  it("the shapes are the SDK's", async () => {
    const tools = modelTools(registry, "anthropic", { toolSearch: "always" });
    const sdkTools: Anthropic.Messages.ToolUnion[] = tools.definitions;
    const reply: Anthropic.Messages.MessageParam = await tools.dispatchAll([{
      type: "tool_use",
      id: "toolu_1",
      name: "search_tools",
      input: { query: "echo" },
    }]);
    assert.ok(sdkTools.length > 0 && reply.content.length === 1);
  });
});

describe("OpenAI Responses' native deferral", () => {
  it("catalog search: a client tool_search answered with namespaces of the tools found", async () => {
    const tools = modelTools(registry, "openai-responses", {
      toolSearch: "always",
    });
    assert.deepEqual(declared(tools.definitions), ["tool_search"]);
    const output = await tools.dispatch({
      type: "tool_search_call",
      call_id: "ts_1",
      execution: "client",
      arguments: { query: "add two numbers" },
    });
    assert.equal(output.type, "tool_search_output");
    assert.equal(output.call_id, "ts_1");
    const [namespace] = output.tools;
    assert.equal(namespace!.name, "mem");
    assert.match(namespace!.description, /Tools of MCP server "mem"/);
    assert.equal(namespace!.tools[0]!.name, "mem__add");
    assert.equal(namespace!.tools[0]!.defer_loading, undefined);
    // The call names the namespace and the function.
    const result = await tools.dispatch({
      type: "function_call",
      call_id: "fc_1",
      namespace: "mem",
      name: "mem__add",
      arguments: '{"a":1,"b":2}',
    });
    assert.equal(result.output, "3");
    const sdkTools: OpenAI.Responses.Tool[] = tools.definitions;
    const input: OpenAI.Responses.ResponseInputItem[] = [output, result];
    assert.equal(sdkTools.length + input.length, 3);
  });

  it("searchBy provider: OpenAI's hosted tool_search over deferred namespaces", () => {
    const tools = modelTools(registry, "openai-responses", {
      toolSearch: { when: "always", searchBy: "provider" },
    });
    const [search, namespace] = tools.definitions;
    assert.deepEqual(search, { type: "tool_search" });
    assert.ok(namespace && namespace.type === "namespace");
    assert.equal(namespace.name, "mem");
    assert.ok(namespace.tools.every((fn) => fn.defer_loading === true));
    const sdkTools: OpenAI.Responses.Tool[] = tools.definitions;
    assert.equal(sdkTools.length, 2);
  });
});

describe("what the model is told", () => {
  it("the servers and, under a budget, their tool names; server text neutralised", () => {
    const sneaky = new ToolRegistry();
    const tool = (name: string): RegisteredTool => ({
      ...registry.get("mem/echo")!,
      name,
      sourceMetadata: { server: "x" },
    });
    sneaky.replaceNamespace("files\u200b\u202e", [
      tool("files\u200b\u202e/read\u0007_file\u00ad"),
      ...Array.from(
        { length: 200 },
        (_, i) => tool(`files\u200b\u202e/tool_${i}`),
      ),
    ]);
    const tools = modelTools(sneaky, "openai-chat", {
      toolSearch: { when: "always", overviewChars: 300 },
    });
    const { instructions } = tools;
    assert.match(instructions, /Servers: files\./);
    assert.match(instructions, /files: read_file, tool_0,/);
    assert.match(instructions, /\+\d+ more/);
    assert.ok(instructions.length < 700, String(instructions.length));
    assert.doesNotMatch(
      instructions,
      // deno-lint-ignore no-control-regex
      /[\u0000-\u0009\u000b-\u001f\u200b\u202e\u00ad]/,
    );
    const description = tools.definitions[0]!.function.description!;
    assert.match(description, /\(files\)/);
    const bare = modelTools(sneaky, "openai-chat", {
      toolSearch: { when: "always", overviewChars: 0 },
    });
    assert.doesNotMatch(bare.instructions, /tool_0/);
  });

  it("a host's ranker drives the model's searches", async () => {
    const own = new ToolRegistry();
    own.replaceNamespace("mem", registry.listNamespace("mem"));
    const seen: string[] = [];
    toolCatalog(own, {
      ranker: {
        add() {},
        remove() {},
        search(query) {
          seen.push(query);
          return [{ id: "mem/sleep", score: 1 }];
        },
      },
    });
    const tools = modelTools(own, "openai-chat", { toolSearch: "always" });
    const text = await chatText(tools, "search_tools", { query: "anything" });
    assert.deepEqual(seen, ["anything"]);
    assert.match(text, /"name":"mem__sleep"/);
  });
});
