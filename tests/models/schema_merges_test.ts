import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { MCPToolDescriptor } from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
} from "@cleveragents/mcp-adapter/models";
import { registryOf } from "./_tools.ts";

type Json = Record<string, unknown>;

const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];

/** The one tool's schema as `provider` receives it. */
function sent(inputSchema: Json, provider: ModelProvider): Json {
  const descriptor: MCPToolDescriptor = {
    name: "tool",
    description: "",
    inputSchema: inputSchema as MCPToolDescriptor["inputSchema"],
  };
  const definitions: unknown = modelTools(
    registryOf("t", [descriptor]),
    provider,
  ).definitions;
  const json = JSON.parse(JSON.stringify(definitions));
  switch (provider) {
    case "openai-chat":
      return json[0].function.parameters;
    case "openai-responses":
      return json[0].parameters;
    case "anthropic":
      return json[0].input_schema;
    case "gemini":
      return json[0].functionDeclarations[0].parametersJsonSchema;
    case "gemini-openapi":
      return json[0].functionDeclarations[0].parameters;
    case "ai-sdk":
      return json.t__tool.inputSchema.jsonSchema;
  }
}

const keys = (node: unknown) =>
  Object.keys((node as { properties?: Json }).properties ?? {}).sort();

describe("schemas whose properties sit behind a $ref or a nested allOf", () => {
  it("a root $ref (Pydantic's { $ref, $defs }) gives every provider the target's properties", () => {
    const schema = {
      $ref: "#/$defs/Args",
      $defs: {
        Args: {
          type: "object",
          properties: { query: { type: "string" }, limit: { type: "integer" } },
          required: ["query"],
        },
      },
    };
    for (const provider of PROVIDERS) {
      const root = sent(schema, provider);
      assert.deepEqual(keys(root), ["limit", "query"], provider);
      assert.ok(
        (root.required as string[]).includes("query"),
        `${provider}: query is no longer required`,
      );
      assert.ok(!("$ref" in root), `${provider}: the root still has a $ref`);
    }
  });

  it("a root allOf whose branches are $refs or allOfs is merged whole", () => {
    const schema = {
      type: "object",
      allOf: [
        { $ref: "#/$defs/A" },
        { allOf: [{ properties: { b: { type: "string" } }, required: ["b"] }] },
      ],
      $defs: { A: { properties: { a: { type: "string" } }, required: ["a"] } },
    };
    for (const provider of PROVIDERS) {
      const root = sent(schema, provider);
      assert.deepEqual(keys(root), ["a", "b"], provider);
      assert.deepEqual([...root.required as string[]].sort(), ["a", "b"]);
    }
  });

  it("a nested allOf inside an allOf keeps its properties (OpenAI strict, Gemini)", () => {
    const schema = {
      type: "object",
      properties: {
        x: {
          allOf: [{
            type: "object",
            properties: { outer: { type: "string" } },
            allOf: [{
              type: "object",
              properties: { inner: { type: "string" } },
            }],
          }],
        },
      },
    };
    for (
      const provider of ["openai-chat", "gemini", "gemini-openapi"] as const
    ) {
      const x = (sent(schema, provider).properties as Json).x;
      assert.deepEqual(keys(x), ["inner", "outer"], provider);
    }
  });

  it("anthropic rewrites draft-07 tuples and boolean bounds inside $defs too", () => {
    const root = sent({
      type: "object",
      properties: {
        p: { $ref: "#/$defs/Pair" },
        q: { $ref: "#/$defs/Bound" },
      },
      $defs: {
        Pair: {
          type: "array",
          items: [{ type: "string" }, { type: "number" }],
        },
        Bound: { type: "number", minimum: 0, exclusiveMinimum: true },
      },
    }, "anthropic");
    const defs = root.$defs as Record<string, Json>;
    assert.deepEqual(defs.Pair, {
      type: "array",
      prefixItems: [{ type: "string" }, { type: "number" }],
    });
    assert.deepEqual(defs.Bound, { type: "number", exclusiveMinimum: 0 });
  });
  it("a required name that is not text (an object String() cannot call) is no name, and the tool is kept", () => {
    const bad = { toString: 1 };
    const text = { type: "string" };
    for (
      const [where, schema] of [
        ["an allOf branch", {
          type: "object",
          allOf: [{ properties: { a: text }, required: ["a", bad] }],
        }],
        ["an anyOf branch", {
          type: "object",
          properties: { a: text },
          anyOf: [{ required: [bad] }, { required: ["a"] }],
        }],
        ["a nested object", {
          type: "object",
          properties: {
            a: { type: "object", properties: { b: text }, required: [bad] },
          },
        }],
      ] as const
    ) {
      for (const provider of PROVIDERS) {
        const root = sent(schema, provider);
        assert.ok(root !== undefined, `${where}, ${provider}: left out`);
        assert.deepEqual(keys(root), ["a"], `${where}, ${provider}`);
      }
    }
  });
});
