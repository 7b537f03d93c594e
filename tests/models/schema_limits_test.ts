import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { MCPToolDescriptor } from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { PROVIDERS } from "./_rules.ts";
import { registryOf } from "./_tools.ts";

/** `$defs` L0 … L{levels}, each object holding two references to the next: 2^levels nodes inlined. */
function exponential(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) {
    const next = { $ref: `#/$defs/L${level + 1}` };
    defs[`L${level}`] = {
      type: "object",
      properties: { left: next, right: next },
    };
  }
  defs[`L${levels}`] = { type: "string" };
  return {
    type: "object",
    properties: { root: { $ref: "#/$defs/L0" } },
    $defs: defs,
  };
}

const descriptors = (schemas: Record<string, unknown>): MCPToolDescriptor[] =>
  Object.entries(schemas).map(([name, inputSchema]) => ({
    name,
    description: "",
    inputSchema: inputSchema as MCPToolDescriptor["inputSchema"],
  }));

describe("schema limits in the per-tool report", () => {
  it("gemini and gemini-openapi report a schema cut at the $ref inlining limit", () => {
    const registry = registryOf(
      "t",
      descriptors({ big: exponential(14), small: exponential(3) }),
    );
    for (const provider of ["gemini", "gemini-openapi"] as const) {
      const { report } = modelTools(registry, provider);
      const [big, small] = report;
      assert.ok(
        big!.notes.some((note) =>
          /inlining \$ref grew the schema past 5000 nodes/.test(note)
        ),
        `${provider}: no note of the cut in ${JSON.stringify(big!.notes)}`,
      );
      assert.equal(
        big!.notes.filter((note) => note.includes("5000 nodes")).length,
        1,
        `${provider}: the cut is reported once`,
      );
      assert.ok(
        !small!.notes.some((note) => note.includes("5000 nodes")),
        `${provider}: a small schema is not cut`,
      );
    }
  });

  it("notes quote at most a short excerpt of a long $ref or root type", () => {
    const long = `#/$defs/${"x".repeat(10_000)}`;
    const registry = registryOf(
      "t",
      descriptors({
        dangling: { type: "object", properties: { a: { $ref: long } } },
        typed: { type: Array.from({ length: 5_000 }, (_, i) => `t${i}`) },
        // A malformed %-escape in a pointer is a dangling reference, not a crash.
        escape: { type: "object", properties: { a: { $ref: "#/$defs/%E0" } } },
      }),
    );
    for (const provider of ["gemini", "anthropic"] as const) {
      // Flat: the 5,000 types alone pass the search threshold.
      const { report } = modelTools(registry, provider, {
        toolSearch: "never",
      });
      for (const entry of report) {
        for (const note of entry.notes) {
          assert.ok(
            note.length < 300,
            `${provider} ${entry.tool}: a note of ${note.length} characters`,
          );
        }
      }
    }
    const { report } = modelTools(registry, "gemini", { toolSearch: "never" });
    const escape = report.find((entry) => entry.tool === "t/escape")!;
    assert.ok(
      escape.notes.some((note) => note.includes("does not resolve")),
      JSON.stringify(escape.notes),
    );
  });
});

describe("a schema too long for a model", () => {
  const MB = 1_000_000;
  const registry = () =>
    registryOf(
      "srv",
      descriptors({
        many: {
          type: "object",
          properties: Object.fromEntries(
            Array.from({ length: 30_000 }, (_, i) => [`p${i}`, {}]),
          ),
        },
        long_name: {
          type: "object",
          properties: { ["n".repeat(MB)]: { type: "string" } },
        },
        long_enum: {
          type: "object",
          properties: { e: { type: "string", enum: ["v".repeat(MB)] } },
        },
        // Its description is cut, not counted whole: declared.
        long_text: {
          type: "object",
          properties: { d: { type: "string", description: "d".repeat(MB) } },
        },
        fine: { type: "object", properties: { a: { type: "string" } } },
      }),
    );

  it("is left out on every provider, flat and deferred, saying why; the others are declared", () => {
    for (const provider of PROVIDERS) {
      for (const when of ["never", "always"] as const) {
        const tools = modelTools(registry(), provider, {
          toolSearch: { when, form: "native" },
        });
        const sent = JSON.stringify(tools.definitions);
        assert.ok(
          sent.length < 50_000,
          `${provider} ${when}: ${sent.length} characters`,
        );
        // The meta pair and OpenAI's client search declare no server tool.
        if (when === "always" && provider !== "anthropic") continue;
        const left = tools.report.filter((entry) => entry.omitted);
        assert.deepEqual(
          left.map((entry) => entry.tool).sort(),
          ["srv/long_enum", "srv/long_name", "srv/many"],
          `${provider} ${when}`,
        );
        assert.match(
          left[0]!.omitted!,
          /^left out: its input schema is [\d,]+ characters of JSON as a model reads it, more than 256,000$/,
        );
        if (when === "never") {
          assert.ok(sent.includes("srv__fine"), `${provider}: fine`);
          assert.ok(sent.includes("srv__long_text"), `${provider}: long_text`);
        }
      }
    }
  });

  it("is not handed over by OpenAI Responses' client search that finds it", async () => {
    const tools = modelTools(registry(), "openai-responses", {
      toolSearch: "always",
    });
    const output = await tools.dispatch({
      type: "tool_search_call",
      call_id: "ts_1",
      execution: "client",
      arguments: { query: "long name enum many fine text" },
    });
    assert.equal(output.type, "tool_search_output");
    const names = output.tools.flatMap((namespace) =>
      (namespace as { tools: { name: string }[] }).tools.map((tool) =>
        tool.name
      )
    );
    assert.ok(names.includes("srv__fine"), JSON.stringify(names));
    assert.ok(!names.includes("srv__long_name"), JSON.stringify(names));
    assert.ok(JSON.stringify(output).length < 50_000);
  });
});
