/**
 * The one statistic every benchmark reports. Internal to the benchmarks.
 *
 * @module
 */

/**
 * The median of `values`: the middle one, or the mean of the two middle
 * ones of an even count.
 *
 * @throws {RangeError} When `values` is empty: there is no median to report.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of no values");
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
