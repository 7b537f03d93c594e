/**
 * End to end: a scripted "model" emits tool calls in each provider's format
 * against the real server-everything over stdio, and the conversation gets
 * each provider's tool-result messages back. For the AI SDK the loop is the
 * AI SDK's own `generateText()`, driven by its mock language model.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import {
  type ModelProvider,
  modelTools,
  type ProviderShapes,
} from "@cleveragents/mcp-adapter/models";
import { startEverything } from "./_tools.ts";

/** One model turn: the calls it makes, and what the answer must contain. */
interface Step {
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  expect: RegExp[];
}

/** Marks of an image block in each provider's tool result. */
const IMAGE: Record<string, RegExp> = {
  "openai-chat": /"image_url":\{"url":"data:image\/png;base64,/,
  "openai-responses":
    /"type":"input_image","image_url":"data:image\/png;base64,/,
  anthropic:
    /"type":"image","source":\{"type":"base64","media_type":"image\/png"/,
  gemini: /"inlineData":\{"mimeType":"image\/png"/,
};

function script(provider: string): Step[] {
  return [
    {
      calls: [
        { name: "everything__echo", args: { message: "hello" } },
        { name: "everything__get-sum", args: { a: 2, b: 3 } },
      ],
      expect: [/Echo: hello/, /The sum of 2 and 3 is 5/],
    },
    {
      calls: [{ name: "everything__get-tiny-image", args: {} }],
      expect: [IMAGE[provider]!],
    },
    {
      calls: [
        { name: "everything__get-sum", args: { a: "two", b: 3 } },
        { name: "get_sum", args: { a: 1, b: 1 } },
      ],
      expect: [
        /Input validation failed for tool \\"get-sum\\": \/a: /,
        /Unknown tool \\"get_sum\\"\. Did you mean \\"everything__get-sum\\"\?/,
      ],
    },
  ];
}

/** The provider's shape of a call. */
function callOf<P extends ModelProvider>(
  provider: P,
  id: string,
  name: string,
  args: Record<string, unknown>,
): ProviderShapes[P]["call"] {
  const json = JSON.stringify(args);
  const calls = {
    "openai-chat": {
      id,
      type: "function",
      function: { name, arguments: json },
    },
    "openai-responses": {
      type: "function_call",
      call_id: id,
      name,
      arguments: json,
    },
    anthropic: { type: "tool_use", id, name, input: args },
    gemini: { id, name, args },
    "gemini-openapi": { id, name, args },
    "ai-sdk": { toolCallId: id, toolName: name, input: args },
  } as const;
  return calls[provider] as ProviderShapes[P]["call"];
}

describe(
  "a scripted model against server-everything",
  { timeout: 90_000 },
  () => {
    let everything: Awaited<ReturnType<typeof startEverything>> | undefined;
    before(async () => {
      everything = await startEverything();
    });
    after(async () => {
      await everything?.adapter.disconnect();
    });

    for (
      const provider of [
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
      ] as const
    ) {
      it(`${provider}: every call of every turn is answered in the provider's format`, async () => {
        const approved: string[] = [];
        const tools = modelTools(everything!.registry, provider, {
          approveAll: true,
          approve: ({ name }) => {
            approved.push(name);
            return true;
          },
        });
        const declared = new Set(
          provider === "gemini"
            ? (tools.definitions as ProviderShapes["gemini"]["definitions"])[0]!
              .functionDeclarations.map((declaration) => declaration.name)
            : (tools.definitions as Array<
              { name?: string; function?: { name: string } }
            >)
              .map((tool) => tool.name ?? tool.function!.name),
        );
        const conversation: unknown[] = [];
        let id = 0;
        for (const step of script(provider)) {
          const calls = step.calls.map(({ name, args }) => {
            if (name.startsWith("everything__")) {
              assert.ok(declared.has(name), name);
            }
            return callOf(provider, `call_${++id}`, name, args);
          });
          const turn = await tools.dispatchAll(calls as never[]);
          conversation.push(turn);
          const text = JSON.stringify(turn);
          for (const pattern of step.expect) assert.match(text, pattern);
        }
        assert.equal(conversation.length, 3);
        assert.deepEqual(approved.length, 4); // the unknown and the invalid call are not asked about
      });
    }

    it("openai strict mode: nulls for omitted optionals are dropped before the call", async () => {
      const tools = modelTools(everything!.registry, "openai-chat");
      const links = tools.definitions.find((tool) =>
        tool.function.name === "everything__get-resource-links"
      )!;
      assert.equal(links.function.strict, true);
      const [message] = await tools.dispatch(
        callOf("openai-chat", "c", "everything__get-resource-links", {
          count: null,
        }),
      );
      assert.match(String(message!.content), /Resource link: /);
    });

    it("ai-sdk: generateText() runs the tools and sends their results back to the model", async () => {
      const tools = modelTools(everything!.registry, "ai-sdk");
      const prompts: unknown[] = [];
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      };
      let step = 0;
      const model = new MockLanguageModelV4({
        doGenerate: (options) => {
          prompts.push(options);
          step++;
          if (step === 1) {
            return Promise.resolve({
              content: [
                {
                  type: "tool-call",
                  toolCallId: "1",
                  toolName: "everything__echo",
                  input: '{"message":"hello"}',
                },
                {
                  type: "tool-call",
                  toolCallId: "2",
                  toolName: "everything__get-tiny-image",
                  input: "{}",
                },
              ],
              finishReason: { unified: "tool-calls", raw: undefined },
              usage,
              warnings: [],
            });
          }
          return Promise.resolve({
            content: [{ type: "text", text: "done" }],
            finishReason: { unified: "stop", raw: undefined },
            usage,
            warnings: [],
          });
        },
      });
      const result = await generateText({
        model,
        tools: tools.definitions,
        prompt: "Echo hello and show me the tiny image",
        stopWhen: stepCountIs(3),
      });
      assert.equal(result.text, "done");
      const first = JSON.stringify(prompts[0]);
      assert.match(first, /"name":"everything__echo"/);
      assert.match(
        first,
        /"inputSchema":\{"type":"object","properties":\{"message":\{"type":"string","description":"Message to echo"\}\},"required":\["message"\]/,
      );
      const second = JSON.stringify(prompts[1]);
      assert.match(second, /"role":"tool"/);
      assert.match(second, /Echo: hello/);
      assert.match(second, /"mediaType":"image\/png"/);
    });
  },
);
