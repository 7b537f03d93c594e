/**
 * This library's version, sent as `clientInfo` and printed by
 * `mcp-adapter --version`. Kept equal to `deno.json`'s by a test. Internal.
 *
 * @module
 */

/** The package version. */
export const VERSION = "0.1.0";
