/**
 * Definitions sized for a context window: `$defs` no `$ref` reaches are
 * removed before any provider's form is built (so they neither cost tokens
 * nor cost a tool OpenAI strict mode), the report says so, and Gemini's
 * OpenAPI form declares what it cannot type (free-form objects, any-type
 * values) as JSON text that dispatch parses back. Measured on the Notion
 * server's 24 tools and on the whole toolsearch catalog (1,577 tools of 58
 * servers, `fixtures/catalog.json.gz`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { MCPToolDescriptor } from "@cleveragents/mcp-adapter";
import {
  type AnthropicTool,
  modelTools,
  toolDefinitions,
} from "@cleveragents/mcp-adapter/models";
import { checkRules, PROVIDERS, sentSchemas } from "./_rules.ts";
import {
  catalogRegistry,
  catalogTools,
  fixtureTools,
  registryOf,
} from "./_tools.ts";

type Json = Record<string, unknown>;

function tool(inputSchema: Json, name = "tool"): MCPToolDescriptor {
  return {
    name,
    description: "",
    inputSchema: inputSchema as MCPToolDescriptor["inputSchema"],
  };
}

describe("unreferenced $defs", () => {
  const notion = fixtureTools("notion_tools.json");

  it("are removed for Notion: 13 of 24 tools OpenAI-strict, definitions under half the size served", () => {
    const registry = registryOf("notion", notion);
    const served = JSON.stringify(notion).length;
    for (const provider of ["openai-chat", "openai-responses"] as const) {
      // Flat: these tests read every tool's definition.
      const tools = modelTools(registry, provider, { toolSearch: "never" });
      const strict = tools.report.filter((entry) => entry.strict).length;
      assert.ok(strict >= 13, `${provider}: ${strict} of 24 strict`);
      assert.equal(
        tools.report.find((entry) => entry.name === "notion__API-get-self")
          ?.strict,
        true,
        "a tool without properties is strict",
      );
    }
    for (const provider of PROVIDERS) {
      const size = JSON.stringify(
        sentSchemas(provider, toolDefinitions(registry, provider)),
      ).length;
      assert.ok(
        size * 2 <= served,
        `${provider}: ${size} characters of schemas for ${served} served`,
      );
    }
  });

  it("are named in every provider's report, and the ones a $ref reaches stay", () => {
    const registry = registryOf("notion", notion);
    for (const provider of PROVIDERS) {
      const { report, definitions } = modelTools(registry, provider, {
        toolSearch: "never",
      });
      const self = report.find((entry) =>
        entry.name === "notion__API-get-self"
      )!;
      assert.ok(
        self.notes.some((note) =>
          note.startsWith(
            'removed 9 unreferenced $defs (no $ref reaches them): "richTextRequest", ',
          )
        ),
        `${provider}: ${self.notes.join("\n")}`,
      );
      if (provider !== "anthropic") continue;
      const patch = (definitions as Array<{ name: string; input_schema: Json }>)
        .find((entry) => entry.name === "notion__API-patch-block-children")!;
      assert.deepEqual(
        Object.keys(patch.input_schema.$defs as Json).sort(),
        [
          "blockObjectRequest",
          "bulletedListItemBlockRequest",
          "paragraphBlockRequest",
          "richTextRequest",
        ],
      );
    }
  });

  it("follow references through definitions, stop at cycles and self-references, and keep the root's", () => {
    const [definition] = toolDefinitions(
      registryOf("t", [tool({
        type: "object",
        properties: { list: { $ref: "#/definitions/List" } },
        definitions: {
          List: {
            type: "object",
            properties: {
              head: { $ref: "#/definitions/Item" },
              tail: { $ref: "#/definitions/List" },
            },
          },
          Item: { type: "string" },
          Ping: { properties: { pong: { $ref: "#/definitions/Pong" } } },
          Pong: { properties: { ping: { $ref: "#/definitions/Ping" } } },
          Me: { properties: { me: { $ref: "#/definitions/Me" } } },
        },
      })]),
      "anthropic",
    );
    assert.deepEqual(
      Object.keys(definition!.input_schema.definitions as Json),
      ["List", "Item"],
    );
  });

  it("are kept whenever a reference cannot be followed for certain", () => {
    for (
      const ref of [
        "https://example.com/schema.json",
        "#anchor",
        "#/$defs",
        "#/%E0",
      ]
    ) {
      const [definition] = toolDefinitions(
        registryOf("t", [tool({
          type: "object",
          properties: { a: { $ref: ref } },
          $defs: { Unused: { type: "object", additionalProperties: true } },
        })]),
        "openai-chat",
      );
      assert.ok(
        "$defs" in definition!.function.parameters,
        `${ref}: the definitions were removed`,
      );
    }
  });

  it("walk a chain of 3,000 definitions without recursion", () => {
    const defs: Json = {};
    for (let index = 0; index < 3_000; index++) {
      defs[`D${index}`] = index === 2_999 ? { type: "string" } : {
        type: "object",
        properties: { next: { $ref: `#/$defs/D${index + 1}` } },
      };
    }
    defs.Unused = { type: "number" };
    const { report, definitions } = modelTools(
      registryOf("t", [tool({
        type: "object",
        properties: { first: { $ref: "#/$defs/D0" } },
        $defs: defs,
      })]),
      "anthropic",
      // Flat: one tool this large alone passes the tool-search threshold.
      { toolSearch: "never" },
    );
    assert.equal(
      Object.keys((definitions[0] as AnthropicTool).input_schema.$defs as Json)
        .length,
      3_000,
    );
    assert.ok(
      report[0]!.notes.some((note) =>
        /removed 1 unreferenced \$defs.*"Unused"/.test(note)
      ),
    );
  });
});

describe("Gemini's OpenAPI form", () => {
  it("declares free-form objects and any-type values as JSON text, and dispatch parses them back", async () => {
    const received: Json[] = [];
    const registry = registryOf(
      "t",
      [tool({
        type: "object",
        properties: {
          env: { type: "object", additionalProperties: { type: "string" } },
          rows: {
            type: "array",
            items: { type: "object", properties: { value: {} } },
          },
          body: {
            anyOf: [
              { type: "object", properties: {}, additionalProperties: true },
              { type: "string" },
            ],
          },
          name: { type: "string" },
        },
      }, "put")],
      (_name, args) => {
        received.push(args);
        return {
          success: true,
          data: { content: [] },
          error: null,
          durationMs: 0,
        };
      },
    );
    const tools = modelTools(registry, "gemini-openapi");
    const parameters = tools.definitions[0]!.functionDeclarations[0]!
      .parameters!;
    checkRules("gemini-openapi", parameters as Json, undefined);
    assert.deepEqual(parameters.properties!.env, {
      type: "STRING",
      description: "An object of any fields, written as JSON text.",
    });
    assert.match(
      tools.report[0]!.notes.join("\n"),
      /declared as JSON text, parsed back before the call .*: "env", "rows\[\]\.value", "body"/,
    );
    await tools.dispatch({
      name: "t__put",
      args: {
        env: '{"A":"1"}',
        rows: [{ value: "[1,2]" }, { value: "plain" }],
        body: '{"text":"hi"}',
        name: '{"not":"parsed"}',
      },
    });
    await tools.dispatch({ name: "t__put", args: { body: "paragraph" } });
    assert.deepEqual(received, [
      {
        env: { A: "1" },
        rows: [{ value: [1, 2] }, { value: "plain" }],
        body: { text: "hi" },
        name: '{"not":"parsed"}',
      },
      { body: "paragraph" },
    ]);
  });
});

describe("the toolsearch catalog (1,577 tools of 58 servers)", () => {
  const catalog = catalogTools();
  const registry = catalogRegistry(catalog);

  it("has 1,577 tools", () => {
    assert.equal(catalog.length, 1_577);
  });

  for (const provider of PROVIDERS) {
    it(`every definition keeps ${provider}'s rules`, () => {
      const tools = modelTools(registry, provider, { toolSearch: "never" });
      const schemas = sentSchemas(provider, tools.definitions);
      assert.equal(schemas.length, catalog.length);
      const broken: string[] = [];
      for (const [index, schema] of schemas.entries()) {
        if (schema === undefined) continue; // gemini-openapi: no parameters
        try {
          checkRules(provider, schema, tools.report[index]!.strict);
        } catch (error) {
          broken.push(
            `${tools.report[index]!.name}: ${(error as Error).message}`,
          );
        }
      }
      assert.deepEqual(broken.slice(0, 5), [], `${broken.length} broken`);
    });
  }
});
