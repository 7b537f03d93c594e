/**
 * "Did you mean": the nearest of some names to a misspelt one. Internal.
 *
 * @module
 */

/**
 * The candidate nearest to `name` by edit distance (case-insensitive), if
 * it is near enough to be a likely typo: at most a third of its length
 * away, and never more than 3 edits.
 */
export function closest(
  name: string,
  candidates: Iterable<string>,
): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.ceil(wanted.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(
      wanted,
      candidate.toLowerCase(),
      bestDistance,
    );
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean "x"?)`, or `""` when nothing is near. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = closest(name, candidates);
  return near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`;
}

/** Levenshtein distance, giving up (returning `limit`) once it reaches `limit`. */
export function editDistance(
  a: string,
  b: string,
  limit: number = Infinity,
): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) return limit;
    previous = current;
  }
  return previous[b.length]!;
}
