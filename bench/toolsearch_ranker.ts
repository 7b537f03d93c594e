/**
 * The tool-search benchmark's ranker module (`/work/shared/toolsearch`): it
 * indexes the benchmark's catalog through the public `/search` entry and
 * answers its queries with `"server/tool"` ids, best first.
 *
 * ```sh
 * deno run -A /work/shared/toolsearch/score.mjs --ranker ./bench/toolsearch_ranker.ts --set dev
 * ```
 *
 * `createRanker` drives the built-in lexical ranker. A host's own ranker is
 * driven the same way through the seam: a module that exports
 * `createRanker = benchmarkRanker(() => myRanker)` (any {@linkcode ToolRanker})
 * is scored by the same command with `--ranker` pointing at it.
 *
 * @module
 */

import {
  createLexicalRanker,
  type ToolRanker,
  type ToolSearchEntry,
} from "../search.ts";

/** One tool of the benchmark's catalog, as `tools/list` gave it. */
export interface BenchmarkTool {
  server: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

/** The benchmark's catalog file. */
export interface BenchmarkCatalog {
  tools: BenchmarkTool[];
}

/** What the scorer calls: a query and a depth, ids back, best first. */
export interface BenchmarkRanker {
  search(query: string, k: number): Promise<string[]>;
}

/**
 * The catalog's tools as search entries, with the registry's
 * `{namespace}/{tool}` ids.
 *
 * @param catalog The benchmark's catalog.
 * @returns One entry per tool.
 */
export function entriesOf(catalog: BenchmarkCatalog): ToolSearchEntry[] {
  return catalog.tools.map((tool) => ({
    id: `${tool.server}/${tool.name}`,
    server: tool.server,
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  }));
}

/**
 * Makes a benchmark ranker module's `createRanker` from any
 * {@linkcode ToolRanker}: the catalog is added in one call, and each query
 * asks for `k` hits.
 *
 * @param create Makes the ranker (called once per catalog).
 * @returns The `createRanker(catalog)` the scorer imports.
 */
export function benchmarkRanker(
  create: () => ToolRanker | Promise<ToolRanker>,
): (catalog: BenchmarkCatalog) => Promise<BenchmarkRanker> {
  return async (catalog) => {
    const ranker = await create();
    ranker.add(entriesOf(catalog));
    return {
      async search(query, k = 10) {
        const hits = await ranker.search(query, { k });
        return hits.map((hit) => hit.id);
      },
    };
  };
}

/** The built-in lexical ranker over the benchmark's catalog. */
export const createRanker: (
  catalog: BenchmarkCatalog,
) => Promise<BenchmarkRanker> = benchmarkRanker(() => createLexicalRanker());
