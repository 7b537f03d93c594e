/**
 * Joining byte chunks. Internal.
 *
 * @module
 */

/**
 * The bytes of `parts` in one array of `total` bytes (their summed
 * length); a single part is returned as it is, without a copy.
 */
export function concatBytes(
  parts: readonly Uint8Array[],
  total: number,
): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
