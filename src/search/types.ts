/**
 * The contract of tool search: what a ranker is given and what it answers.
 *
 * A ranker is data in, ranked ids out: it holds no connection, does no I/O
 * and knows nothing of model providers. The catalog (fed by the adapters' and
 * the hub's tool lists) keeps a ranker current with {@linkcode ToolRanker.add}
 * and {@linkcode ToolRanker.remove} as lists change, and narrows a search to
 * the tools a caller may see with `accept`. The built-in ranker is lexical; a
 * host may bring its own (embeddings, a small model) behind the same shape.
 *
 * @module
 */

/** One tool as a ranker sees it: the text a search may match. */
export interface ToolSearchEntry {
  /** The tool's id in the catalog: its registry name, `{namespace}/{tool}`. */
  id: string;
  /** The server (namespace) that lists it. */
  server: string;
  /** The tool's name as the server lists it. */
  name: string;
  /** Its display title, when the server gave one. */
  title?: string;
  /** Its description, when the server gave one. */
  description?: string;
  /**
   * Its input JSON Schema as listed (parameter names and descriptions are
   * evidence); server data, so a ranker reads it with a depth bound.
   */
  inputSchema?: unknown;
  /** Its annotations as listed (`readOnlyHint`, `destructiveHint`, …). */
  annotations?: Readonly<Record<string, unknown>>;
}

/** One search result: a tool's id and how well it matched (higher is better). */
export interface ToolSearchHit {
  /** The entry's id. */
  id: string;
  /** The ranker's score; comparable only within one answer. */
  score: number;
}

/** What a search asks for beyond the query. */
export interface ToolRankerSearchOptions {
  /** At most this many hits, best first. */
  k: number;
  /**
   * Whether an entry may be returned (servers, read-only, pins and
   * visibility are decided by the caller); every entry when absent.
   */
  accept?: (id: string) => boolean;
}

/**
 * A ranker over tool entries, kept current incrementally.
 *
 * @example
 * ```ts
 * import type { ToolRanker, ToolSearchHit } from "./types.ts";
 *
 * // The smallest ranker: every accepted tool whose name holds the query.
 * function substringRanker(): ToolRanker {
 *   const names = new Map<string, string>();
 *   return {
 *     add(entries) {
 *       for (const entry of entries) names.set(entry.id, entry.name);
 *     },
 *     remove(ids) {
 *       for (const id of ids) names.delete(id);
 *     },
 *     search(query, { k, accept }) {
 *       const hits: ToolSearchHit[] = [];
 *       for (const [id, name] of names) {
 *         if (accept && !accept(id)) continue;
 *         if (name.includes(query)) hits.push({ id, score: 1 });
 *       }
 *       return hits.slice(0, k);
 *     },
 *   };
 * }
 * ```
 */
export interface ToolRanker {
  /** Adds entries, replacing any with the same id. */
  add(entries: readonly ToolSearchEntry[]): void;
  /** Removes the entries with these ids; unknown ids are ignored. */
  remove(ids: readonly string[]): void;
  /** The best entries for `query`, best first, at most `k`. */
  search(
    query: string,
    options: ToolRankerSearchOptions,
  ): readonly ToolSearchHit[] | Promise<readonly ToolSearchHit[]>;
}
