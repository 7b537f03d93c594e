/**
 * A host's own ranker driven by the tool-search benchmark through the seam:
 * any {@linkcode ToolRanker} (embeddings, a small model, a remote service)
 * plugs in with `benchmarkRanker`, and `score.mjs` scores it exactly as it
 * scores the built-in one.
 *
 * ```sh
 * deno run -A /work/shared/toolsearch/score.mjs --ranker ./bench/toolsearch_host_ranker.ts --set dev
 * ```
 *
 * This one is deliberately small: it counts the query's words found in a
 * tool's name, and answers asynchronously, as a ranker that calls out would.
 *
 * @module
 */

import type { ToolRanker, ToolSearchEntry, ToolSearchHit } from "../search.ts";
import { benchmarkRanker } from "./toolsearch_ranker.ts";

const words = (text: string) =>
  text.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)
    .filter((word) => word.length > 2);

/** A ranker by words shared with the tool's name. */
function nameWordRanker(): ToolRanker {
  const names = new Map<string, Set<string>>();
  return {
    add(entries: readonly ToolSearchEntry[]) {
      for (const entry of entries) {
        names.set(entry.id, new Set(words(`${entry.server} ${entry.name}`)));
      }
    },
    remove(ids: readonly string[]) {
      for (const id of ids) names.delete(id);
    },
    search(query, { k, accept }): Promise<ToolSearchHit[]> {
      const asked = words(query);
      const hits: ToolSearchHit[] = [];
      for (const [id, name] of names) {
        if (accept !== undefined && !accept(id)) continue;
        const score = asked.filter((word) => name.has(word)).length;
        if (score > 0) hits.push({ id, score });
      }
      hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      return Promise.resolve(hits.slice(0, k));
    },
  };
}

/** The benchmark's entry point, over the host's ranker. */
export const createRanker = benchmarkRanker(nameWordRanker);
