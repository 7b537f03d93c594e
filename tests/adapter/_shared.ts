/**
 * Pieces the adapter tests against remote servers share: an adapter factory
 * bound to a test file's cleanup list, and the elicitation the "ask" tools
 * send.
 *
 * @module
 */

import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import type { Cleanup } from "../_helpers.ts";

/** An adapter named "remote" to `url` over `transport`, disconnected by `cleanups`. */
export type RemoteAdapterFactory = (
  transport: "streamable-http" | "sse",
  url: string,
  options?: MCPToolAdapterOptions,
) => MCPToolAdapter;

/** Makes {@linkcode RemoteAdapterFactory} adapters whose disconnect() is pushed to `cleanups`. */
export function remoteAdapters(cleanups: Cleanup[]): RemoteAdapterFactory {
  return (transport, url, options = {}) => {
    const adapter = new MCPToolAdapter(
      { name: "remote", transport, url },
      options,
    );
    cleanups.push(() => adapter.disconnect());
    return adapter;
  };
}

/** The elicitation the "ask" tools send: a required name, and a color that defaults to blue. */
export const ASK_NAME: ElicitRequestFormParams = {
  message: "Your name?",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string" },
      color: { type: "string", default: "blue" },
    },
    required: ["name"],
  },
};
