/**
 * The stdio peer of the hostile suites: `fixtures/hostile.mjs` in one of
 * its modes, as an adapter that `cleanups` disconnects after the test.
 *
 * @module
 */

import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import { type Cleanup, fixturePath, runtimeCommand } from "../_helpers.ts";

/** Bound on every wait of the hostile suites; each test ends well within it. */
export const WAIT_MS = 20_000;
/** The secret the suites hand the peer and look for in what comes back. */
export const SECRET = "s3cr3t-VALUE-0123456789-abcdef";

/**
 * An adapter (not yet connected) for `fixtures/hostile.mjs` in `mode`, with
 * `extra` arguments after it and `env` for the child.
 */
export function hostileStdio(
  cleanups: Cleanup[],
  mode: string,
  extra: readonly string[] = [],
  options: MCPToolAdapterOptions = {},
  env?: Record<string, string>,
): MCPToolAdapter {
  const { command, args } = runtimeCommand(fixturePath("hostile.mjs"));
  const adapter = new MCPToolAdapter({
    name: "hostile",
    transport: "stdio",
    command,
    args: [...args, mode, ...extra],
    ...(env ? { env } : {}),
  }, options);
  cleanups.push(() => adapter.disconnect());
  return adapter;
}
