import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { MCPToolDescriptor } from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
} from "@cleveragents/mcp-adapter/models";
import { registryOf } from "./_tools.ts";

type Json = Record<string, unknown>;

/** Property names that `in`, `obj[name] = …` and spreads get wrong. */
const NAMES = [
  "constructor",
  "toString",
  "valueOf",
  "__proto__",
  "hasOwnProperty",
  "isPrototypeOf",
];

// JSON.parse makes `__proto__` an own property, as a server's JSON does;
// an object literal or an assignment would set the prototype instead.
const property = (name: string) =>
  `${JSON.stringify(name)}: { "type": "string", "description": "${name}" }`;
const DIRECT = JSON.parse(`{
  "type": "object",
  "properties": { ${NAMES.map(property).join(", ")} },
  "required": ["constructor", "__proto__", "toString"]
}`);
const ROOT_ALL_OF = JSON.parse(`{
  "type": "object",
  "properties": { "plain": { "type": "number" } },
  "allOf": [
    { "properties": { ${NAMES.map(property).join(", ")} },
      "required": ["hasOwnProperty", "isPrototypeOf", "__proto__"] }
  ],
  "required": ["plain", "valueOf"]
}`);
const NESTED = JSON.parse(`{
  "type": "object",
  "properties": {
    "inner": {
      "type": "object",
      "properties": { ${NAMES.map(property).join(", ")} },
      "required": ["__proto__", "constructor"],
      "additionalProperties": false
    },
    "merged": {
      "allOf": [
        { "type": "object", "properties": { "__proto__": { "type": "string" } } },
        { "type": "object", "properties": { "toString": { "type": "string" } },
          "required": ["toString"] }
      ]
    },
    "ref": { "$ref": "#/$defs/__proto__" },
    "other": { "$ref": "#/$defs/constructor" }
  },
  "$defs": {
    "__proto__": { "type": "object", "properties": { "valueOf": { "type": "string" } } },
    "constructor": { "type": "string", "description": "a def named constructor" }
  }
}`);
// `required` names a property that is nowhere: it must not be sent.
const PHANTOM = JSON.parse(`{
  "type": "object",
  "properties": { "a": { "type": "string" } },
  "required": ["a", "toString", "constructor", "__proto__"]
}`);

const DESCRIPTORS: MCPToolDescriptor[] = [
  { name: "direct", description: "", inputSchema: DIRECT },
  { name: "root_all_of", description: "", inputSchema: ROOT_ALL_OF },
  { name: "nested", description: "", inputSchema: NESTED },
  { name: "phantom", description: "", inputSchema: PHANTOM },
];

const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];

/** Each tool's schema as the provider receives it, after a JSON round trip. */
function sentSchemas(provider: ModelProvider): Map<string, Json> {
  const definitions: unknown = modelTools(
    registryOf("t", DESCRIPTORS),
    provider,
  ).definitions;
  const schemas = new Map<string, Json>();
  const add = (name: string, schema: unknown) =>
    schemas.set(name.replace(/^t__/, ""), JSON.parse(JSON.stringify(schema)));
  switch (provider) {
    case "openai-chat":
      for (const tool of definitions as { function: Json }[]) {
        add(tool.function.name as string, tool.function.parameters);
      }
      break;
    case "openai-responses":
      for (const tool of definitions as Json[]) {
        add(tool.name as string, tool.parameters);
      }
      break;
    case "anthropic":
      for (const tool of definitions as Json[]) {
        add(tool.name as string, tool.input_schema);
      }
      break;
    case "gemini":
    case "gemini-openapi": {
      const [{ functionDeclarations }] = definitions as [
        { functionDeclarations: Json[] },
      ];
      for (const declaration of functionDeclarations) {
        add(
          declaration.name as string,
          provider === "gemini"
            ? declaration.parametersJsonSchema
            : declaration.parameters,
        );
      }
      break;
    }
    case "ai-sdk":
      for (
        const [name, tool] of Object.entries(
          definitions as Record<string, { inputSchema: { jsonSchema: Json } }>,
        )
      ) {
        add(name, tool.inputSchema.jsonSchema);
      }
      break;
  }
  return schemas;
}

/** The object node's own properties, asserting they are a plain mapping. */
function propertiesOf(node: unknown, where: string): Json {
  assert.ok(typeof node === "object" && node !== null, `${where}: no node`);
  const properties = (node as Json).properties as Json;
  assert.ok(
    typeof properties === "object" && properties !== null,
    `${where}: no properties`,
  );
  return properties;
}

function assertNames(properties: Json, names: string[], where: string): void {
  for (const name of names) {
    assert.ok(
      Object.hasOwn(properties, name),
      `${where}: property ${JSON.stringify(name)} is missing (has ${
        Object.keys(properties).join(", ")
      })`,
    );
  }
}

/** Every `required` of every object node names one of its own properties. */
function assertRequiredExist(node: unknown, where: string): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) =>
      assertRequiredExist(item, `${where}/${index}`)
    );
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const schema = node as Json;
  if (Array.isArray(schema.required) && isObjectNode(schema)) {
    const properties = (schema.properties ?? {}) as Json;
    for (const name of schema.required) {
      assert.ok(
        Object.hasOwn(properties, name),
        `${where}: required names ${
          JSON.stringify(name)
        }, which is not a property`,
      );
    }
  }
  for (const [key, child] of Object.entries(schema)) {
    if (key !== "enum" && key !== "default" && key !== "const") {
      assertRequiredExist(child, `${where}/${key}`);
    }
  }
}

function isObjectNode(node: Json): boolean {
  return typeof node.properties === "object" ||
    node.type === "object" || node.type === "OBJECT";
}

describe("property names that are also Object.prototype's", () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: every property survives, and required names only existing ones`, () => {
      const schemas = sentSchemas(provider);
      for (const tool of ["direct", "root_all_of"]) {
        const schema = schemas.get(tool);
        const properties = propertiesOf(schema, `${provider} ${tool}`);
        assertNames(properties, NAMES, `${provider} ${tool}`);
        for (const name of NAMES) {
          assert.equal(
            Object.getPrototypeOf(properties[name]),
            Object.prototype,
            `${provider} ${tool}: ${name} is not a schema object`,
          );
        }
        assertRequiredExist(schema, `${provider} ${tool}`);
      }
      const direct = schemas.get("direct")!;
      for (const name of ["constructor", "__proto__", "toString"]) {
        assert.ok(
          (direct.required as string[]).includes(name),
          `${provider} direct: ${name} is no longer required`,
        );
      }
      const allOf = schemas.get("root_all_of")!;
      for (const name of ["hasOwnProperty", "isPrototypeOf", "valueOf"]) {
        assert.ok(
          (allOf.required as string[]).includes(name),
          `${provider} root_all_of: ${name} is no longer required`,
        );
      }
      const nested = schemas.get("nested")!;
      const inner = propertiesOf(
        propertiesOf(nested, `${provider} nested`).inner,
        `${provider} nested.inner`,
      );
      assertNames(inner, NAMES, `${provider} nested.inner`);
      assertRequiredExist(nested, `${provider} nested`);
      const phantom = schemas.get("phantom")!;
      assert.deepEqual(phantom.required, ["a"], `${provider} phantom`);
    });
  }

  it("gemini and gemini-openapi: a $ref into $defs named __proto__ or constructor is inlined", () => {
    for (const provider of ["gemini", "gemini-openapi"] as const) {
      const nested = propertiesOf(
        sentSchemas(provider).get("nested"),
        provider,
      );
      const ref = propertiesOf(nested.ref, `${provider} ref`);
      assertNames(ref, ["valueOf"], `${provider} ref`);
      assert.equal(
        (nested.other as Json).description,
        "a def named constructor",
      );
      const merged = propertiesOf(nested.merged, `${provider} merged`);
      assertNames(merged, ["__proto__", "toString"], `${provider} merged`);
    }
  });

  it("openai-chat strict: dispatch keeps a __proto__ argument as an own property", async () => {
    const seen: Record<string, unknown>[] = [];
    const tools = modelTools(
      registryOf("t", DESCRIPTORS, (_name, args) => {
        seen.push(args);
        return {
          success: true,
          data: { content: [] },
          error: null,
          durationMs: 0,
        };
      }),
      "openai-chat",
    );
    await tools.dispatch({
      id: "call_1",
      type: "function",
      function: {
        name: "t__direct",
        arguments:
          '{"__proto__": "p", "constructor": "c", "toString": "s", "valueOf": null}',
      },
    });
    const [args] = seen;
    assert.ok(args);
    assert.equal(Object.getPrototypeOf(args), Object.prototype);
    assert.deepEqual(Object.keys(args).sort(), [
      "__proto__",
      "constructor",
      "toString",
    ]);
    assert.equal(
      Object.getOwnPropertyDescriptor(args, "__proto__")?.value,
      "p",
    );
  });
});
