/**
 * The definitions each provider gets for real servers' tools, compared with
 * golden files in `fixtures/golden/`: server-everything from a live stdio
 * run, server-filesystem from its captured tool list, an SDK `McpServer`
 * with zod schemas in-process, and the tricky schemas. Regenerate with
 * `UPDATE_GOLDEN=1` and review the diff.
 */
import { after, before, describe, it } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolRegistry } from "@cleveragents/mcp-adapter";
import { ToolRegistry as Registry } from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
} from "@cleveragents/mcp-adapter/models";
import { linkedAdapter } from "../_in_memory.ts";
import {
  assertGolden,
  fixtureTools,
  registryOf,
  startEverything,
} from "./_tools.ts";

const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];

/** What a golden file holds: the definitions (AI SDK: their JSON part) and the report. */
function snapshot(registry: ToolRegistry, provider: ModelProvider): unknown {
  const tools = modelTools(registry, provider, { capabilityHint: true });
  const definitions = provider === "ai-sdk"
    ? Object.fromEntries(
      Object.entries(
        tools.definitions as Record<
          string,
          { description?: string; inputSchema: { jsonSchema: unknown } }
        >,
      ).map(([name, tool]) => [name, {
        description: tool.description,
        inputSchema: tool.inputSchema.jsonSchema,
      }]),
    )
    : tools.definitions;
  return { definitions, report: tools.report };
}

/** An SDK McpServer whose tool schemas zod generates. */
function zodServer(): McpServer {
  const server = new McpServer({ name: "zod", version: "1.0.0" });
  const done = () => ({ content: [{ type: "text" as const, text: "ok" }] });
  server.registerTool("create_event", {
    title: "Create Event",
    description: "Add an event to the calendar",
    inputSchema: {
      title: z.string().min(1).describe("What happens"),
      start: z.string().datetime(),
      attendees: z.array(
        z.object({
          email: z.string().email(),
          optional: z.boolean().optional(),
        }),
      ).default([]),
      reminder: z.number().int().positive().nullable().optional(),
      visibility: z.enum(["public", "private"]).optional(),
      metadata: z.record(z.string(), z.string()).optional(),
      location: z.union([
        z.object({ kind: z.literal("room"), room: z.string() }),
        z.object({ kind: z.literal("url"), url: z.string().url() }),
      ]).optional(),
    },
  }, done);
  server.registerTool("search_events", {
    description: "Find events",
    inputSchema: { query: z.string(), limit: z.number().max(100).optional() },
    annotations: { readOnlyHint: true },
  }, done);
  return server;
}

describe("golden tool definitions", { timeout: 90_000 }, () => {
  let everything: Awaited<ReturnType<typeof startEverything>> | undefined;
  before(async () => {
    everything = await startEverything();
  });
  after(async () => {
    await everything?.adapter.disconnect();
  });

  for (const provider of PROVIDERS) {
    it(`server-everything (live), ${provider}`, () => {
      assertGolden(
        `everything.${provider}`,
        snapshot(everything!.registry, provider),
      );
    });
  }

  for (const provider of PROVIDERS) {
    it(`server-filesystem (captured), ${provider}`, () => {
      const registry = registryOf(
        "filesystem",
        fixtureTools("filesystem_tools.json"),
      );
      assertGolden(`filesystem.${provider}`, snapshot(registry, provider));
    });
  }

  for (const provider of PROVIDERS) {
    it(`tricky schemas, ${provider}`, () => {
      const registry = registryOf("tricky", fixtureTools("tricky_tools.json"));
      assertGolden(`tricky.${provider}`, snapshot(registry, provider));
    });
  }

  it("an SDK McpServer with zod schemas, every provider", async () => {
    const { adapter } = linkedAdapter(zodServer);
    await adapter.connect();
    try {
      const registry = new Registry();
      await adapter.registerTools(registry, "zod");
      for (const provider of PROVIDERS) {
        assertGolden(`zod.${provider}`, snapshot(registry, provider));
      }
    } finally {
      await adapter.disconnect();
    }
  });
});
