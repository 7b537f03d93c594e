/**
 * A small ranker for the tests that exercise the catalog itself: words of
 * the query found in a tool's name, description and server, counted. Not
 * the built-in ranker; a stand-in with the same contract.
 *
 * @module
 */

import type {
  ToolRanker,
  ToolSearchEntry,
  ToolSearchHit,
} from "../../src/search/types.ts";

/** Words: lower case, split on anything not a letter or digit and on camelCase. */
function words(text: string): string[] {
  return text.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(
    /[^a-z0-9]+/,
  ).filter((word) => word.length > 1);
}

/** The ranker, and what it was asked to do (to check incremental updates). */
export function wordRanker(): ToolRanker & {
  added: string[];
  removed: string[];
} {
  const index = new Map<string, Set<string>>();
  const added: string[] = [];
  const removed: string[] = [];
  return {
    added,
    removed,
    add(entries: readonly ToolSearchEntry[]) {
      for (const entry of entries) {
        added.push(entry.id);
        index.set(
          entry.id,
          new Set(
            words(
              `${entry.server} ${entry.name} ${entry.title ?? ""} ${
                entry.description ?? ""
              }`,
            ),
          ),
        );
      }
    },
    remove(ids: readonly string[]) {
      for (const id of ids) {
        removed.push(id);
        index.delete(id);
      }
    },
    search(query, { k, accept }) {
      const wanted = words(query);
      const hits: ToolSearchHit[] = [];
      for (const [id, bag] of index) {
        if (accept && !accept(id)) continue;
        const score = wanted.filter((word) => bag.has(word)).length;
        if (score > 0) hits.push({ id, score });
      }
      hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      return hits.slice(0, k);
    },
  };
}
