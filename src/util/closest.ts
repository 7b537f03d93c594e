/**
 * "Did you mean": the nearest of some names to a misspelt one. Internal.
 *
 * @module
 */

/** Other forms of a candidate to compare with a name; see {@linkcode closest}. */
export interface ClosestOptions {
  /** Forms of `candidate` compared besides itself (a tool's name without its namespace). */
  forms?: (candidate: string) => Iterable<string>;
}

/**
 * The candidate nearest to `name`, if it is near enough to be a likely
 * typo: the one policy of every "did you mean" of the library (options,
 * commands, config fields, arguments, tools, prompts, resources). Names are
 * compared in lower case with `-`, `_`, `.` and spaces left out (so
 * `read-only`, `readOnly` and `read_only` are one name), by edit distance:
 * at most a third of the name's length, and never more than 3 edits.
 */
export function closest(
  name: string,
  candidates: Iterable<string>,
  options: ClosestOptions = {},
): string | undefined {
  const wanted = normalize(name);
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.ceil(wanted.length / 3)) + 1;
  for (const candidate of candidates) {
    const forms = options.forms ? [candidate, ...options.forms(candidate)] : [
      candidate,
    ];
    for (const form of forms) {
      const distance = editDistance(wanted, normalize(form), bestDistance);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
  }
  return best;
}

/** Lower case, without `-`, `_`, `.` and white space. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, "");
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
