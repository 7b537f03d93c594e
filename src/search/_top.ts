/**
 * The top of a search's answer: the best `k` tools a caller's filter lets
 * through, in a total order. Internal.
 *
 * @module
 */

import type { ToolSearchHit } from "./types.ts";

/**
 * The best `k` of `docs` (scored by `scores`, same order) that `accept`
 * lets through, best first: higher score, then lower id. `accept` is asked
 * only about tools that would enter the top `k` at the time.
 */
export function top(
  docs: readonly { readonly id: string }[],
  scores: Float64Array,
  k: number,
  accept: ((id: string) => boolean) | undefined,
): ToolSearchHit[] {
  const kept: number[] = [];
  const before = (a: number, b: number) =>
    scores[a]! > scores[b]! ||
    (scores[a] === scores[b] && docs[a]!.id < docs[b]!.id);
  for (let i = 0; i < docs.length; i++) {
    if (kept.length >= k && !before(i, kept[kept.length - 1]!)) continue;
    if (accept !== undefined && !accept(docs[i]!.id)) continue;
    let at = kept.length;
    while (at > 0 && before(i, kept[at - 1]!)) at--;
    kept.splice(at, 0, i);
    if (kept.length > k) kept.pop();
  }
  return kept.map((i) => ({ id: docs[i]!.id, score: scores[i]! }));
}
