/**
 * The same tools and the same results give byte-identical definitions and
 * tool-result messages, for every provider: across two independent
 * connections (two server processes, two registries, two `modelTools()`)
 * and across a reconnect of one — a prompt cache depends on it. Covered:
 * server-everything's tools and results (text, image, structured), and the
 * SDK server's structured-only result and a cut 1 MB text with its
 * `read_tool_result` id.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { MCPToolAdapter, ToolRegistry } from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { everythingCommand } from "../_everything.ts";
import { sdkServerCommand } from "../_helpers.ts";
import { callOf, PROVIDERS } from "./_share.ts";

const CALLS: Array<[string, Record<string, unknown>]> = [
  ["everything__echo", { message: "hello" }],
  ["everything__get-sum", { a: 2, b: 40 }],
  ["everything__get-structured-content", { location: "New York" }],
  ["everything__get-annotated-message", {
    messageType: "debug",
    includeImage: true,
  }],
  ["everything__get-resource-links", { count: 2 }],
  ["sdk__stats", {}],
  ["sdk__long_text", { bytes: 1024 * 1024 }],
];

function pair(): MCPToolAdapter[] {
  return [
    new MCPToolAdapter({
      name: "everything",
      transport: "stdio",
      ...everythingCommand("stdio"),
    }),
    new MCPToolAdapter({
      name: "sdk",
      transport: "stdio",
      ...sdkServerCommand,
    }),
  ];
}

/** Per provider, the definitions' JSON and every call's message JSON. */
async function bytes(adapters: MCPToolAdapter[]): Promise<string[]> {
  const registry = new ToolRegistry();
  for (const adapter of adapters) await adapter.registerTools(registry);
  const out: string[] = [];
  for (const provider of PROVIDERS) {
    const tools = modelTools(registry, provider, {
      capabilityHint: true,
      resultPages: true,
      resultBudget: { maxTokens: 20_000 },
    });
    out.push(`${provider} definitions ${JSON.stringify(tools.definitions)}`);
    for (const [index, [name, args]] of CALLS.entries()) {
      const run = await tools.run(
        callOf(provider, name, args, `call_${index}`),
      );
      out.push(`${provider} ${name} ${JSON.stringify(run.message)}`);
    }
  }
  return out;
}

describe("deterministic bytes", { timeout: 180_000 }, () => {
  const first = pair();
  const second = pair();

  before(async () => {
    for (const adapter of [...first, ...second]) {
      await adapter.connect({ timeoutMs: 60_000 });
    }
  });
  after(async () => {
    for (const adapter of [...first, ...second]) await adapter.disconnect();
  });

  it("the same tools and results give the same bytes on two connections and after a reconnect", async () => {
    const one = await bytes(first);
    assert.equal(one.length, PROVIDERS.length * (CALLS.length + 1));
    assert.ok(
      one.some((line) =>
        /call read_tool_result with \{\\"id\\":\\"r[0-9a-f]{16}\\"/.test(line)
      ),
      "a cut result names its read_tool_result id",
    );
    assert.ok(one.some((line) => line.includes('"image/png"')));
    assert.deepEqual(await bytes(second), one, "two connections");
    for (const adapter of first) {
      await adapter.disconnect();
      await adapter.connect({ timeoutMs: 60_000 });
    }
    assert.deepEqual(await bytes(first), one, "after a reconnect");
  });
});
