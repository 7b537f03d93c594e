/**
 * Each model API's documented rules for a tool's arguments schema, as the
 * models tests check them: the fuzz test on random schemas, the catalog test
 * on 1,577 real tools. The lists are written out here rather than imported
 * from `src/models/`: an oracle that shares the code's list would pass a
 * wrong entry.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { ModelProvider } from "@cleveragents/mcp-adapter/models";

type Json = Record<string, unknown>;

/** Every provider, in the order the tests run them. */
export const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];

/**
 * Each tool's arguments schema as `provider` received it in `definitions`
 * (after a JSON round trip); `undefined` for a `gemini-openapi` tool
 * without parameters.
 */
export function sentSchemas(
  provider: ModelProvider,
  definitions: unknown,
): Array<Json | undefined> {
  const json = JSON.parse(JSON.stringify(definitions));
  switch (provider) {
    case "openai-chat":
      return json.map((tool: Json) => (tool.function as Json).parameters);
    case "openai-responses":
      return json.map((tool: Json) => tool.parameters);
    case "anthropic":
      return json.map((tool: Json) => tool.input_schema);
    case "gemini":
      return json[0].functionDeclarations.map((declaration: Json) =>
        declaration.parametersJsonSchema
      );
    case "gemini-openapi":
      return json[0].functionDeclarations.map((declaration: Json) =>
        declaration.parameters
      );
    case "ai-sdk":
      return Object.values(json as Record<string, Json>).map((tool) =>
        (tool.inputSchema as Json).jsonSchema as Json
      );
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every object-like node of a schema, with its JSON path (not into `enum`/`default`/`const`). */
function* nodes(value: unknown, path = ""): Generator<[string, Json]> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      yield* nodes(item, `${path}/${index}`);
    }
    return;
  }
  if (!isObject(value)) return;
  yield [path, value];
  for (const [key, item] of Object.entries(value)) {
    if (key === "enum" || key === "default" || key === "const") continue;
    if (key === "example" || key === "examples") continue;
    if (key === "properties" || key === "$defs" || key === "definitions") {
      if (isObject(item)) {
        for (const [name, child] of Object.entries(item)) {
          yield* nodes(child, `${path}/${key}/${name}`);
        }
      }
      continue;
    }
    yield* nodes(item, `${path}/${key}`);
  }
}

/**
 * Gemini's documented `parametersJsonSchema` keywords, written out here
 * rather than imported from `src/models/_gemini.ts`: an oracle that shares
 * the code's list would pass a wrong entry.
 */
const GEMINI_JSON_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "enum",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "properties",
  "additionalProperties",
  "required",
  "propertyOrdering",
  "default",
]);
const GEMINI_SCHEMA_FIELDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);
const GEMINI_TYPES = new Set([
  "STRING",
  "NUMBER",
  "INTEGER",
  "BOOLEAN",
  "ARRAY",
  "OBJECT",
]);

/**
 * Asserts that `schema`, as `provider` received it, keeps that API's rules;
 * `strict` is the report's strict flag (OpenAI).
 */
export function checkRules(
  provider: ModelProvider,
  schema: Json,
  strict: boolean | undefined,
): void {
  const rootType = provider === "gemini-openapi" ? "OBJECT" : "object";
  assert.equal(schema.type, rootType, "the root is an object");
  for (const key of ["anyOf", "oneOf", "allOf", "not"]) {
    assert.ok(!Object.hasOwn(schema, key), `no root ${key}`);
  }
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) {
      assert.ok(
        isObject(schema.properties) && Object.hasOwn(schema.properties, name),
        `the root requires ${JSON.stringify(name)}, which it does not declare`,
      );
    }
  }
  const gemini = provider === "gemini" || provider === "gemini-openapi";
  for (const [path, node] of nodes(schema)) {
    const at = path || "/";
    if (gemini && Array.isArray(node.required)) {
      for (const name of node.required) {
        assert.ok(
          isObject(node.properties) && Object.hasOwn(node.properties, name),
          `${at}: requires ${JSON.stringify(name)}, which it does not declare`,
        );
      }
    }
    if (provider === "gemini") {
      for (const key of Object.keys(node)) {
        assert.ok(GEMINI_JSON_KEYS.has(key), `${at}: keyword ${key}`);
      }
    }
    if (provider === "gemini-openapi") {
      for (const key of Object.keys(node)) {
        assert.ok(GEMINI_SCHEMA_FIELDS.has(key), `${at}: field ${key}`);
      }
      if (node.type !== undefined) {
        assert.ok(GEMINI_TYPES.has(node.type as string), `${at}: type`);
        assert.ok(!("anyOf" in node), `${at}: type beside anyOf`);
      }
      if (Array.isArray(node.enum)) {
        assert.ok(node.enum.every((item) => typeof item === "string"), at);
      }
      // "properties: should be non-empty for OBJECT type"; "type: must be
      // specified when not using one_of, any_of or all_of fields".
      if (node.type === "OBJECT") {
        assert.ok(
          isObject(node.properties) && Object.keys(node.properties).length > 0,
          `${at}: an OBJECT without properties`,
        );
      }
      assert.ok(
        node.type !== undefined || Array.isArray(node.anyOf),
        `${at}: neither type nor anyOf`,
      );
      for (const key of ["minItems", "maxItems", "minLength", "maxLength"]) {
        if (key in node) {
          assert.equal(typeof node[key], "string", `${at}: ${key}`);
        }
      }
    }
    if (provider === "anthropic") {
      assert.ok(!Array.isArray(node.items), `${at}: a draft-07 tuple`);
      for (const key of ["exclusiveMinimum", "exclusiveMaximum"]) {
        assert.notEqual(typeof node[key], "boolean", `${at}: boolean ${key}`);
      }
    }
    if (strict && provider.startsWith("openai") && isObject(node.properties)) {
      assert.equal(node.additionalProperties, false, `${at}: not closed`);
      assert.deepEqual(
        node.required,
        Object.keys(node.properties),
        `${at}: strict mode requires every property`,
      );
    }
  }
}
