/**
 * Property: among random tools, some with schemas nested thousands of
 * levels deep (through `properties`, `items`, `anyOf`, `allOf`,
 * `additionalProperties`) or chained through thousands of `$ref`s, building
 * every provider's definitions never throws; every tool whose schema nests
 * at most 128 levels is declared, and every tool left out is in the report
 * with the reason.
 *
 * Bounded in time (`FUZZ_TIME_MS`, default 3 s) and seeded: the seed is
 * printed, and `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
} from "@cleveragents/mcp-adapter/models";

type Json = Record<string, unknown>;

const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];
const LIMIT = 128;

type Wrap = "properties" | "items" | "anyOf" | "allOf" | "additional";

/** One level around `inner`, and how many JSON levels it adds. */
function wrap(kind: Wrap, inner: Json): [Json, number] {
  switch (kind) {
    case "properties":
      return [{ type: "object", properties: { v: inner } }, 2];
    case "items":
      return [{ type: "array", items: inner }, 1];
    case "anyOf":
      return [{ anyOf: [inner, { type: "null" }] }, 2];
    case "allOf":
      return [{ allOf: [inner] }, 2];
    case "additional":
      return [{ type: "object", additionalProperties: inner }, 1];
  }
}

/** A tool's schema, and how deeply it nests in JSON levels. */
const nestedSchema = fc.array(
  fc.constantFrom<Wrap>("properties", "items", "anyOf", "allOf", "additional"),
  { minLength: 1, maxLength: 3000 },
).map((kinds) => {
  let schema: Json = { type: "string" };
  let depth = 1;
  for (const kind of kinds) {
    const [outer, levels] = wrap(kind, schema);
    schema = outer;
    depth += levels;
  }
  return {
    schema: { type: "object", properties: { root: schema } },
    depth: depth + 2,
  };
});

/** A schema whose `$ref`s chain through `links` definitions: shallow JSON, deep when inlined. */
const chainedSchema = fc.integer({ min: 1, max: 3000 }).map((links) => {
  const defs: Json = { d0: { type: "string" } };
  for (let i = 1; i <= links; i++) {
    defs[`d${i}`] = {
      type: "object",
      properties: { next: { $ref: `#/$defs/d${i - 1}` } },
    };
  }
  return {
    schema: {
      type: "object",
      properties: { start: { $ref: `#/$defs/d${links}` } },
      $defs: defs,
    },
    depth: 5,
  };
});

function tool(name: string, inputSchema: Json): RegisteredTool {
  return {
    name: `fuzz/${name}`,
    description: name,
    inputSchema,
    capability: { readOnly: true, writes: false },
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: "fuzz" },
    invoke: () =>
      Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
  };
}

describe("deeply nested tool schemas before a model (property)", () => {
  it("never take the other tools down, on any provider", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(nestedSchema, chainedSchema), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom(...PROVIDERS),
        (schemas, provider) => {
          const registry = new ToolRegistry();
          registry.register(tool("plain", { type: "object" }));
          schemas.forEach(({ schema }, i) =>
            registry.register(tool(`t${i}`, schema))
          );
          // Every tool declared (flat): the deep ones are left out alone.
          const tools = modelTools(registry, provider, { toolSearch: "never" });
          const declared = JSON.stringify(tools.definitions);
          // The search hand-off declares tools too (natively): it holds.
          const searched = modelTools(registry, provider, {
            toolSearch: "always",
          });
          assert.ok(JSON.stringify(searched.definitions).length > 0);
          assert.ok(declared.includes("fuzz__plain"));
          schemas.forEach(({ depth }, i) => {
            const report = tools.report.find((r) => r.tool === `fuzz/t${i}`);
            assert.ok(report, `t${i} is reported`);
            if (depth <= LIMIT) {
              assert.equal(report.omitted, undefined, report.omitted);
              assert.ok(declared.includes(`"fuzz__t${i}"`), `t${i} declared`);
            } else {
              assert.match(report.omitted ?? "", /nests more than 128 levels/);
            }
          });
        },
      ),
      fuzzParameters("deep schemas", 2_000),
    );
  });
});
