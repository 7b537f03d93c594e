/**
 * The tokens a model is handed for the tool-search benchmark's catalog
 * (`/work/shared/toolsearch`, 1,577 tools of 58 servers): every tool's
 * definition (flat) against the progressive hand-off of `/models` — its
 * definitions, the overview for the system prompt, and what one search
 * hands the model (the mean over the dev requests: the search result of
 * the meta pair, the tools Anthropic loads from `tool_reference` blocks,
 * the `tool_search_output` of OpenAI Responses). Tokens are o200k_base
 * (`gpt-tokenizer`, as the benchmark's `tokens.mjs`) over the exact JSON
 * or text sent.
 *
 * ```sh
 * deno run -A bench/toolsearch_handoff.ts [--dir /work/shared/toolsearch] [--set dev]
 * ```
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { type RegisteredTool, ToolRegistry } from "../mod.ts";
import { type ModelProvider, modelTools } from "../models.ts";
import type { BenchmarkCatalog } from "./toolsearch_ranker.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1]!;
};
const dir = option("dir", "/work/shared/toolsearch");
const set = option("set", "dev");
const catalog = JSON.parse(
  readFileSync(join(dir, "catalog.json"), "utf8"),
) as BenchmarkCatalog;
const queries = JSON.parse(
  readFileSync(join(dir, `queries.${set}.json`), "utf8"),
) as { query: string }[];

const registry = new ToolRegistry();
const byServer = new Map<string, RegisteredTool[]>();
for (const tool of catalog.tools) {
  const list = byServer.get(tool.server) ?? [];
  list.push({
    name: `${tool.server}/${tool.name}`,
    description: tool.description ?? "",
    inputSchema: (tool.inputSchema ?? { type: "object" }) as never,
    capability: { readOnly: false, writes: false },
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: tool.server },
    invoke: () =>
      Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
  });
  byServer.set(tool.server, list);
}
for (const [server, tools] of byServer) {
  registry.replaceNamespace(server, tools);
}

const tokens = (value: unknown) =>
  countTokens(typeof value === "string" ? value : JSON.stringify(value));
const mean = (values: number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/** What one search hands the model, in tokens, for each provider's form. */
async function loaded(provider: ModelProvider, query: string): Promise<number> {
  const tools = modelTools(registry, provider, { toolSearch: "always" });
  if (provider === "anthropic") {
    const result = await tools.dispatch({
      type: "tool_use",
      id: "t",
      name: "search_tools",
      input: { query },
    } as never) as { content: { type: string; tool_name?: string }[] };
    const names = new Set(result.content.map((block) => block.tool_name));
    // The references themselves, and the definitions the API loads for them.
    const definitions = (tools.definitions as { name: string }[]).filter((
      definition,
    ) => names.has(definition.name)).map((definition) => ({
      ...definition,
      defer_loading: undefined,
    }));
    return tokens(result) + tokens(definitions);
  }
  if (provider === "openai-responses") {
    return tokens(
      await tools.dispatch({
        type: "tool_search_call",
        call_id: "t",
        execution: "client",
        arguments: { query },
      } as never),
    );
  }
  return tokens(
    await tools.dispatch({
      id: "t",
      type: "function",
      function: { name: "search_tools", arguments: JSON.stringify({ query }) },
    } as never),
  );
}

// deno-lint-ignore no-console -- a benchmark prints its table
const print = console.log;
print(
  `catalog: ${byServer.size} servers, ${catalog.tools.length} tools; ${queries.length} ${set} requests; o200k_base tokens`,
);
print(
  "provider          flat    | definitions  overview  one search (mean)  progressive | ratio",
);
for (
  const provider of ["openai-chat", "openai-responses", "anthropic"] as const
) {
  const flat = tokens(
    modelTools(registry, provider, { toolSearch: "never" }).definitions,
  );
  const progressive = modelTools(registry, provider, { toolSearch: "always" });
  // Anthropic's deferred definitions are sent but not loaded into the
  // model's context: only the search tool is, and what a search references.
  const declared = provider === "anthropic"
    ? (progressive.definitions as { defer_loading?: boolean }[]).filter((
      definition,
    ) => !definition.defer_loading)
    : progressive.definitions;
  const definitions = tokens(declared);
  const overview = tokens(progressive.instructions);
  const perSearch: number[] = [];
  for (const { query } of queries) {
    perSearch.push(await loaded(provider, query));
  }
  const total = definitions + overview + mean(perSearch);
  print(
    `${provider.padEnd(17)} ${String(flat).padStart(7)} | ${
      String(definitions).padStart(11)
    }  ${String(overview).padStart(8)}  ${
      mean(perSearch).toFixed(0).padStart(17)
    }  ${total.toFixed(0).padStart(11)} | ${(flat / total).toFixed(0)}x`,
  );
}
