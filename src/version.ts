/**
 * This library's version, sent as `clientInfo` and printed by
 * `mcp-adapter --version` (kept equal to `deno.json`'s by a test), and the
 * MCP protocol revisions it speaks. Internal.
 *
 * @module
 */

/** The package version. */
export const VERSION = "0.1.0";

/**
 * The newest revision of the 2025 era (the `initialize` handshake), offered
 * in `initialize`.
 */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/** The revisions of the modern era (per-request `_meta`, no handshake), newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];

/** The revisions of the 2025 era (the `initialize` handshake), newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** Whether `version` is a revision of the modern era (2026-07-28 or later). */
export function isModernVersion(version: string): boolean {
  return version >= "2026-07-28";
}
