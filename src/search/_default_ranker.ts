/**
 * The built-in ranker, loaded by the first search of a catalog that was
 * given none, so the index costs nothing until a search. Internal.
 *
 * @module
 */

import type { ToolRanker } from "./types.ts";

/** Loads and makes the built-in lexical ranker. */
export async function loadDefaultRanker(): Promise<ToolRanker> {
  const { createLexicalRanker } = await import("./lexical.ts");
  return createLexicalRanker();
}
