/**
 * This library's version, sent as `clientInfo` and printed by
 * `mcp-adapter --version` (kept equal to `deno.json`'s by a test), and the
 * newest MCP protocol revision it speaks. Internal.
 *
 * @module
 */

/** The package version. */
export const VERSION = "0.1.0";

/** The newest protocol revision this client speaks, offered in `initialize`. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
