/**
 * Tool search (`@cleveragents/mcp-adapter/search`): the ranker contract and
 * the built-in lexical ranker. A host with many servers indexes their tools
 * and hands a model the few a request needs; a host with its own ranker
 * (embeddings, a small model) implements {@linkcode ToolRanker}.
 *
 * @example
 * ```ts
 * import { createLexicalRanker } from "@cleveragents/mcp-adapter/search";
 *
 * const ranker = createLexicalRanker();
 * ranker.add([{
 *   id: "git/git_status",
 *   server: "git",
 *   name: "git_status",
 *   description: "Show the working tree status",
 * }]);
 * console.log(ranker.search("which files changed?", { k: 5 }));
 * ```
 *
 * @module
 */

export type {
  ToolRanker,
  ToolRankerSearchOptions,
  ToolSearchEntry,
  ToolSearchHit,
} from "./src/search/types.ts";
export {
  type CatalogAdapter,
  type CatalogHub,
  type CatalogSource,
  DEFAULT_SEARCH_K,
  MAX_QUERY_CHARS,
  MAX_SEARCH_K,
  ToolCatalog,
  toolCatalog,
  type ToolCatalogOptions,
  type ToolRankerSource,
  type ToolSearchOptions,
  type ToolSearchResult,
} from "./src/search/catalog.ts";
export {
  createLexicalRanker,
  type LexicalFieldWeights,
  type LexicalRanker,
  type LexicalRankerOptions,
} from "./src/search/lexical.ts";
