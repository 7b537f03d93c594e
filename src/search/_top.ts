/**
 * The top of a search's answer: the best `k` tools a caller's filter lets
 * through, in a total order, kept in a small heap. Internal.
 *
 * @module
 */

import type { ToolSearchHit } from "./types.ts";

/**
 * The best `k` of `count` candidates that `accept` lets through, best
 * first: higher score, then lower id. Candidate `i` is the tool of slot
 * `slots[i]` (its id `ids[slots[i]]`), scored `scores[i]`. `accept` is asked
 * only about tools that would enter the top `k` at the time.
 */
export function top(
  ids: readonly string[],
  slots: Int32Array,
  scores: Float64Array,
  count: number,
  k: number,
  accept: ((id: string) => boolean) | undefined,
): ToolSearchHit[] {
  // A heap of candidate numbers, the worst of the kept at its root.
  const heap: number[] = [];
  /** Whether candidate `a` ranks below candidate `b`. */
  const worse = (a: number, b: number) =>
    scores[a]! < scores[b]! ||
    (scores[a] === scores[b] && ids[slots[a]!]! > ids[slots[b]!]!);
  for (let i = 0; i < count; i++) {
    // Most candidates fall below the worst kept: one comparison each.
    if (heap.length >= k && scores[i]! <= scores[heap[0]!]!) {
      if (scores[i]! < scores[heap[0]!]! || !worse(heap[0]!, i)) continue;
    }
    if (accept !== undefined && !accept(ids[slots[i]!]!)) continue;
    if (heap.length < k) {
      // Sift up.
      let at = heap.length;
      heap.push(i);
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!worse(i, heap[parent]!)) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = i;
      continue;
    }
    // Replace the root and sift down.
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= k) break;
      const right = left + 1;
      const child = right < k && worse(heap[right]!, heap[left]!)
        ? right
        : left;
      if (!worse(heap[child]!, i)) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = i;
  }
  heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  return heap.map((i) => ({ id: ids[slots[i]!]!, score: scores[i]! }));
}
