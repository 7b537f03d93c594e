/**
 * The JSON this module produces against the provider SDKs' own request and
 * response types. The SDKs are imported for their types only (esbuild and
 * Deno erase these imports), so the checks happen when `deno check` / `deno
 * test` type-checks this file; the tests then exercise the same values at
 * run time. No network.
 *
 * SDK versions: openai 7.59, @anthropic-ai/sdk 1.14, @google/genai 3.3,
 * ai 7.0 (see deno.json).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import type * as Genai from "@google/genai";
import type { ModelMessage, ToolResultPart, ToolSet } from "ai";
import { modelTools, toolDefinitions } from "@cleveragents/mcp-adapter/models";
import { fixtureTools, registryOf } from "./_tools.ts";

const registry = registryOf("fs", fixtureTools("filesystem_tools.json"));
const tricky = registryOf("tricky", fixtureTools("tricky_tools.json"));

/**
 * Gemini's `Type` is a TypeScript string enum, which a string literal is
 * never assignable to although the JSON is the same; this swaps it for its
 * values.
 */
type EnumValues<T> = T extends Genai.Type ? `${T}`
  : T extends (infer U)[] ? EnumValues<U>[]
  : T extends object ? { [K in keyof T]: EnumValues<T[K]> }
  : T;

describe("the definitions are the SDKs' request types", () => {
  it("OpenAI chat tools, messages and calls", async () => {
    const tools = modelTools(registry, "openai-chat");
    const sdkTools: OpenAI.Chat.Completions.ChatCompletionTool[] =
      tools.definitions;
    const call: OpenAI.Chat.Completions.ChatCompletionMessageToolCall = {
      id: "call_1",
      type: "function",
      function: { name: "fs__list_allowed_directories", arguments: "{}" },
    };
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] =
      await tools
        .dispatchAll([call]);
    const params: OpenAI.Chat.Completions.ChatCompletionCreateParams = {
      model: "gpt-5",
      messages,
      tools: sdkTools,
    };
    assert.equal(params.tools?.length, 14);
    assert.equal(messages[0]!.role, "tool");
  });

  it("OpenAI responses tools, output items and calls", async () => {
    const tools = modelTools(tricky, "openai-responses");
    const sdkTools: OpenAI.Responses.Tool[] = tools.definitions;
    const call: OpenAI.Responses.ResponseFunctionToolCall = {
      type: "function_call",
      call_id: "c",
      name: "tricky__update_issue",
      arguments: '{"identifier":"A-1","title":"x","priority":null}',
    };
    const input: OpenAI.Responses.ResponseInputItem[] = await tools.dispatchAll(
      [call],
    );
    const params: OpenAI.Responses.ResponseCreateParams = {
      model: "gpt-5",
      input,
      tools: sdkTools,
    };
    assert.equal(params.tools?.length, 5);
  });

  it("Anthropic tools, tool_use blocks and the tool_result message", async () => {
    const tools = modelTools(tricky, "anthropic");
    const sdkTools: Anthropic.Messages.ToolUnion[] = tools.definitions;
    const block: Anthropic.Messages.ToolUseBlock = {
      type: "tool_use",
      id: "toolu_1",
      name: "tricky__set_env",
      input: { env: { A: "1" } },
      caller: { type: "direct" },
    };
    const reply: Anthropic.Messages.MessageParam = await tools.dispatchAll([
      block,
    ]);
    const params: Anthropic.Messages.MessageCreateParams = {
      model: "claude-sonnet-5",
      max_tokens: 1024,
      messages: [reply],
      tools: sdkTools,
    };
    assert.equal(params.tools?.length, 5);
  });

  it("Gemini tools in both schema forms, function calls and the function response content", async () => {
    const json = modelTools(tricky, "gemini");
    const jsonTools: Genai.Tool[] = json.definitions;
    const openapi: EnumValues<Genai.Tool>[] = toolDefinitions(
      tricky,
      "gemini-openapi",
    );
    const call: Genai.FunctionCall = {
      id: "1",
      name: "tricky__update_issue",
      args: { identifier: "A-1", title: "t" },
    };
    const content: Genai.Content = await json.dispatchAll([call]);
    const config: Genai.GenerateContentConfig = { tools: jsonTools };
    assert.equal(config.tools?.length, 1);
    assert.equal(openapi[0]!.functionDeclarations!.length, 5);
    assert.equal(content.parts!.length, 1);
  });

  it("AI SDK tool set, tool calls and the tool message", async () => {
    const tools = modelTools(registry, "ai-sdk");
    const set: ToolSet = tools.definitions;
    const part: ToolResultPart = await tools.dispatch({
      toolCallId: "1",
      toolName: "fs__list_allowed_directories",
      input: {},
    });
    const message: ModelMessage = await tools.dispatchAll([]);
    assert.equal(Object.keys(set).length, 14);
    assert.equal(part.type, "tool-result");
    assert.equal(message.role, "tool");
  });
});
