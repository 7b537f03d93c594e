import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { modelTools, toolDefinitions } from "@cleveragents/mcp-adapter/models";
import type { MCPToolDescriptor } from "@cleveragents/mcp-adapter";
import { fixtureTools, registryOf } from "./_tools.ts";

const tricky = registryOf("tricky", fixtureTools("tricky_tools.json"));

type Json = Record<string, unknown>;

/** Every key used anywhere in `value` (object keys, at any depth). */
function keysIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) { for (const item of value) keysIn(item, found); }
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      found.add(key);
      if (key !== "enum" && key !== "default" && key !== "example") {
        keysIn(item, found);
      }
    }
  }
  return found;
}

function byName<T extends { name: string }>(
  items: readonly T[],
  name: string,
): T {
  const item = items.find((entry) => entry.name === name);
  assert.ok(item, `no definition named ${name}`);
  return item;
}

describe("OpenAI schemas", () => {
  const { definitions, report } = modelTools(tricky, "openai-chat");
  const fn = (name: string) =>
    byName(definitions.map((tool) => tool.function), `tricky__${name}`);

  it("makes Pydantic $defs schemas strict: every object closed, optionals required and nullable", () => {
    const { parameters, strict } = fn("create_object");
    assert.equal(strict, true);
    const defs = parameters.$defs as Record<string, Json>;
    assert.deepEqual(defs.Database!.required, ["name", "comment"]);
    assert.equal(defs.Database!.additionalProperties, false);
    const properties = parameters.properties as Record<string, Json>;
    assert.deepEqual(properties.mode!.type, ["string", "null"]);
    assert.deepEqual(properties.mode!.enum, [
      "error_if_exists",
      "replace",
      "if_not_exists",
      null,
    ]);
    assert.match(
      String(properties.mode!.description),
      /Default: "error_if_exists"\./,
    );
    assert.deepEqual(parameters.required, [
      "object_type",
      "target_object",
      "mode",
    ]);
  });

  it("keeps a recursive $ref in the strict form (OpenAI resolves $defs)", () => {
    const { parameters, strict } = fn("write_tree");
    assert.equal(strict, true);
    const node = (parameters.$defs as Record<string, Json>).Node!;
    assert.deepEqual(node.required, ["label", "children"]);
    assert.deepEqual(
      (node.properties as Record<string, Json>).children!.type,
      ["array", "null"],
    );
    assert.equal("$schema" in parameters, false);
  });

  it("falls back to the plain schema for a map (z.record) and says why", () => {
    const { parameters, strict } = fn("set_env");
    assert.equal(strict, false);
    assert.deepEqual(
      (parameters.properties as Record<string, Json>).env!.additionalProperties,
      { type: "string" },
    );
    const notes = byName(
      report.map((entry) => ({ ...entry, name: entry.name })),
      "tricky__set_env",
    ).notes;
    assert.ok(
      notes.some((note) =>
        /not strict: \/properties\/env allows additional properties/.test(note)
      ),
      notes.join("\n"),
    );
  });

  it("falls back for a tuple", () => {
    assert.equal(fn("move_point").strict, false);
  });

  it("moves a root anyOf into the description", () => {
    const tool = fn("update_issue");
    assert.equal("anyOf" in tool.parameters, false);
    assert.match(
      tool.description ?? "",
      /Arguments must satisfy at least one of: requires "title"; requires "priority"\./,
    );
    assert.equal(tool.strict, true);
  });

  it("never sends strict with strict: false", () => {
    const tools = toolDefinitions(tricky, "openai-responses", {
      strict: false,
    });
    assert.ok(tools.every((tool) => tool.strict === false));
    const echo = byName(tools, "tricky__create_object");
    assert.deepEqual(echo.parameters.required, [
      "object_type",
      "target_object",
    ]);
  });
});

describe("Gemini schemas", () => {
  it("parametersJsonSchema has no $ref, $defs or $schema, and cuts cycles with a description", () => {
    const [tool] = toolDefinitions(tricky, "gemini");
    const declarations = tool!.functionDeclarations;
    for (const declaration of declarations) {
      const keys = keysIn(declaration.parametersJsonSchema);
      for (
        const banned of [
          "$ref",
          "$defs",
          "$schema",
          "definitions",
          "oneOf",
          "allOf",
          "propertyNames",
          "uniqueItems",
          "const",
        ]
      ) {
        assert.equal(
          keys.has(banned),
          false,
          `${declaration.name} still has ${banned}`,
        );
      }
    }
    const tree = byName(declarations, "tricky__write_tree")
      .parametersJsonSchema as Json;
    const root = (tree.properties as Record<string, Json>).root!;
    assert.equal(root.description, "The tree's root");
    const children = (root.properties as Record<string, Json>).children!;
    const nested = ((children.items as Json).properties as Record<string, Json>)
      .children!;
    assert.match(
      String((nested.items as Json).description),
      /recursive: the same structure as Node/,
    );
    assert.equal((nested.items as Json).type, "object");
    const snowflake = byName(declarations, "tricky__create_object")
      .parametersJsonSchema as Json;
    const target = (snowflake.properties as Record<string, Json>)
      .target_object!;
    assert.equal(
      ((target.anyOf as Json[])[1]!.properties as Record<string, Json>)
        .database!.title,
      "Database",
    );
  });

  const OPENAPI_FIELDS = new Set([
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "default",
    "anyOf",
    "minimum",
    "maximum",
  ]);

  it("parameters use only the OpenAPI subset's fields, upper-case types and string int64 limits", () => {
    const [tool] = toolDefinitions(tricky, "gemini-openapi");
    for (const declaration of tool!.functionDeclarations) {
      const walk = (schema: Json) => {
        for (const [key, value] of Object.entries(schema)) {
          assert.ok(OPENAPI_FIELDS.has(key), `${declaration.name}: ${key}`);
          if (key === "properties") {
            Object.values(value as Record<string, Json>).forEach(walk);
          }
          if (key === "items") walk(value as Json);
          if (key === "anyOf") (value as Json[]).forEach(walk);
        }
        if (schema.type !== undefined) {
          assert.match(String(schema.type), /^[A-Z]+$/);
        }
        if (schema.anyOf !== undefined) {
          assert.equal(schema.type, undefined, "type beside anyOf");
        }
      };
      walk(declaration.parameters as Json);
    }
    const env = byName(tool!.functionDeclarations, "tricky__set_env")
      .parameters!;
    assert.deepEqual(env.properties!.note, { nullable: true, type: "STRING" });
    assert.equal(env.properties!.tags!.minItems, "1");
    assert.equal(env.properties!.url!.description, "Format: uri.");
    assert.deepEqual(env.properties!.level!.anyOf, [
      { type: "NUMBER" },
      { type: "STRING", enum: ["max"], format: "enum" },
    ]);
    const issue = byName(tool!.functionDeclarations, "tricky__update_issue")
      .parameters!;
    assert.deepEqual(issue.properties!.priority, {
      type: "INTEGER",
      description: "One of: 0, 1, 2, 3.",
    });
    const point = byName(tool!.functionDeclarations, "tricky__move_point")
      .parameters!;
    assert.deepEqual(point.properties!.style!.required, ["width"]);
    assert.deepEqual(Object.keys(point.properties!.style!.properties!), [
      "color",
      "width",
    ]);
    assert.equal(point.properties!.shape!.anyOf!.length, 2);
    assert.equal(point.properties!.speed!.description, "Greater than 0.");
  });

  it("leaves parameters unset for a tool without parameters, and prefixes names that start with a digit", () => {
    const descriptor: MCPToolDescriptor = {
      name: "ping",
      description: "",
      inputSchema: { type: "object", properties: {} },
    };
    const [tool] = toolDefinitions(
      registryOf("1pass", [descriptor]),
      "gemini-openapi",
    );
    assert.deepEqual(tool!.functionDeclarations, [{ name: "_1pass__ping" }]);
  });
});

describe("Anthropic schemas", () => {
  const tools = toolDefinitions(tricky, "anthropic");

  it("keeps schemas as they are, $defs and $ref included", () => {
    const create = byName(tools, "tricky__create_object");
    const original = fixtureTools("tricky_tools.json")[0]!.inputSchema;
    assert.deepEqual(create.input_schema, original);
  });

  it("removes a root anyOf, which the API refuses, and describes it", () => {
    const issue = byName(tools, "tricky__update_issue");
    assert.equal("anyOf" in issue.input_schema, false);
    assert.equal(issue.input_schema.type, "object");
    assert.match(
      issue.description ?? "",
      /requires "title"; requires "priority"/,
    );
  });

  it("rewrites draft-07 tuples and draft-04 exclusive bounds for draft 2020-12", () => {
    const point = byName(tools, "tricky__move_point").input_schema
      .properties as Record<string, Json>;
    assert.deepEqual(point.point, {
      type: "array",
      prefixItems: [{ type: "number" }, { type: "number" }],
      items: false,
    });
    assert.deepEqual(point.speed, { type: "number", exclusiveMinimum: 0 });
  });
});

describe("AI SDK schemas", () => {
  it("tags the JSON Schema as the AI SDK's jsonSchema() does and offers it as a Standard Schema", () => {
    const tools = toolDefinitions(tricky, "ai-sdk");
    const tool = tools["tricky__set_env"]!;
    const schema = tool.inputSchema as unknown as Record<PropertyKey, unknown>;
    assert.equal(schema[Symbol.for("vercel.ai.schema")], true);
    assert.ok("validate" in schema);
    assert.equal(tool.inputSchema.jsonSchema.type, "object");
    assert.equal("$schema" in tool.inputSchema.jsonSchema, false);
    assert.deepEqual(
      tool.inputSchema["~standard"].jsonSchema.input({ target: "draft-07" }),
      tool.inputSchema.jsonSchema,
    );
    assert.deepEqual(tool.inputSchema["~standard"].validate({ a: 1 }), {
      value: { a: 1 },
    });
  });
});

describe("descriptions", () => {
  const descriptor: MCPToolDescriptor = {
    name: "delete_note",
    title: "Delete Note",
    description: "Deletes a note by id.",
    inputSchema: { type: "object", properties: { id: { type: "number" } } },
  };
  const registry = registryOf("notes", [descriptor]);

  it("carry the title, and the capability when asked", () => {
    const [tool] = toolDefinitions(registry, "anthropic", {
      capabilityHint: true,
    });
    assert.equal(
      tool!.description,
      "Delete Note: Deletes a note by id. (writes)",
    );
    const [plain] = toolDefinitions(registry, "anthropic", { title: false });
    assert.equal(plain!.description, "Deletes a note by id.");
  });

  it("accept a skill's selection as well as a registry", () => {
    const [tool] = toolDefinitions(registry.list(), "openai-responses");
    assert.equal(tool!.name, "notes__delete_note");
  });

  it("refuse an unknown provider", () => {
    assert.throws(
      () => toolDefinitions(registry, "mistral" as "anthropic"),
      /Unknown model provider "mistral"; use one of "openai-chat"/,
    );
  });
});
