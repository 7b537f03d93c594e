/**
 * The built-in ranker, loaded by the first search of a catalog that was
 * given none. Internal.
 *
 * @module
 */

import type { ToolRanker } from "./types.ts";

/** Loads and makes the built-in lexical ranker. */
export function loadDefaultRanker(): Promise<ToolRanker> {
  return Promise.reject(new Error("no built-in ranker yet"));
}
