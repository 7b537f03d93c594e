/**
 * The messages `resourceMessages()` and `promptMessages()` return, against
 * the provider SDKs' own request types (checked when this file is
 * type-checked; the SDKs are imported for their types only) and, for the
 * AI SDK, its own runtime schema of a `ModelMessage`. No network.
 *
 * SDK versions: openai 7.59, @anthropic-ai/sdk 1.14, @google/genai 3.3,
 * ai 7.0 (see deno.json).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import type * as Genai from "@google/genai";
import { type ModelMessage, modelMessageSchema } from "ai";
import {
  type PromptMessageData,
  promptMessages,
  resourceMessages,
} from "@cleveragents/mcp-adapter/models";

const PNG = btoa("\x89PNG fake");
const READ = {
  contents: [
    { uri: "file:///a.md", mimeType: "text/markdown", text: "# A" },
    { uri: "file:///b.png", mimeType: "image/png", blob: PNG },
  ],
};
const PROMPT: { messages: PromptMessageData[] } = {
  messages: [
    { role: "user", content: { type: "text", text: "Look:" } },
    {
      role: "user",
      content: { type: "image", data: PNG, mimeType: "image/png" },
    },
    { role: "assistant", content: { type: "text", text: "I see a chart." } },
    {
      role: "assistant",
      content: { type: "image", data: PNG, mimeType: "image/png" },
    },
    {
      role: "user",
      content: {
        type: "resource",
        resource: { uri: "x:1", mimeType: "text/plain", text: "data" },
      },
    },
  ],
};

describe("context messages are the SDKs' request types", () => {
  it("OpenAI Chat: ChatCompletionMessageParam", () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      ...resourceMessages(READ, "openai-chat"),
      ...promptMessages(PROMPT, "openai-chat"),
    ];
    const params: OpenAI.Chat.Completions.ChatCompletionCreateParams = {
      model: "gpt-5",
      messages,
    };
    assert.equal(params.messages.length, 6);
  });

  it("OpenAI Responses: ResponseInputItem", () => {
    const input: OpenAI.Responses.ResponseInputItem[] = [
      ...resourceMessages(READ, "openai-responses"),
      ...promptMessages(PROMPT, "openai-responses"),
    ];
    const params: OpenAI.Responses.ResponseCreateParams = {
      model: "gpt-5",
      input,
    };
    assert.equal(input.length, 6);
    assert.ok(params.input);
  });

  it("Anthropic: MessageParam", () => {
    const messages: Anthropic.Messages.MessageParam[] = [
      ...resourceMessages(READ, "anthropic"),
      ...promptMessages(PROMPT, "anthropic"),
    ];
    const params: Anthropic.Messages.MessageCreateParams = {
      model: "claude-sonnet-5",
      max_tokens: 1024,
      messages,
    };
    assert.equal(params.messages.length, 6);
  });

  it("Gemini, both schema forms: Content", () => {
    const contents: Genai.Content[] = [
      ...resourceMessages(READ, "gemini"),
      ...promptMessages(PROMPT, "gemini-openapi"),
    ];
    const params: Genai.GenerateContentParameters = {
      model: "gemini-2.5-flash",
      contents,
    };
    assert.equal(contents.length, 6);
    assert.ok(params.contents);
  });

  it("AI SDK: ModelMessage, by its types and by its own runtime schema", () => {
    const messages: ModelMessage[] = [
      ...resourceMessages(READ, "ai-sdk"),
      ...promptMessages(PROMPT, "ai-sdk"),
    ];
    for (const message of messages) {
      const parsed = modelMessageSchema.safeParse(message);
      assert.ok(parsed.success, parsed.error?.message);
    }
    assert.equal(messages.length, 6);
  });
});
