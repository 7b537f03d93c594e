/**
 * An adapter connected in-process to a low-level SDK `Server` that lists
 * the tools given, schemas exactly as written, and counts the calls that
 * reach it. Messages cross a JSON wire (serialised and parsed), as over
 * stdio or HTTP: what JSON cannot carry fails there, as it would for real.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type JSONRPCMessage,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  type MCPTransport,
} from "@cleveragents/mcp-adapter";
import { linkServer } from "../_in_memory.ts";

/** A tool as listed. */
export interface RawTool {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** The connected adapter and what reached the server. */
export interface RawPeer {
  adapter: MCPToolAdapter;
  /** The arguments of each call that reached the server, in order. */
  calls: unknown[];
}

/** Connects an adapter (with `options`) to a server listing `tools`; each call answers `ok`. */
export async function rawToolsPeer(
  tools: RawTool[],
  options: MCPToolAdapterOptions = {},
): Promise<RawPeer> {
  const server = new Server({ name: "raw", version: "1" }, {
    capabilities: { tools: {} },
  });
  const calls: unknown[] = [];
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (request: { params: { arguments?: unknown } }) => {
      calls.push(request.params.arguments);
      return { content: [{ type: "text", text: "ok" }] };
    },
  );
  const adapter = new MCPToolAdapter({
    name: "raw",
    transport: "stdio",
    command: "in-memory",
  }, { ...options, transport: jsonWire(await linkServer(server)) });
  await adapter.connect();
  return { adapter, calls };
}

/** `transport`, with every message sent serialised and parsed first. */
function jsonWire(transport: InMemoryTransport): MCPTransport {
  const wire: MCPTransport = {
    start: () => transport.start(),
    close: () => transport.close(),
    send: async (message) => {
      await transport.send(JSON.parse(JSON.stringify(message)));
    },
  };
  transport.onmessage = (message: unknown) =>
    wire.onmessage?.(message as JSONRPCMessage);
  transport.onclose = () => wire.onclose?.();
  transport.onerror = (error: Error) => wire.onerror?.(error);
  return wire;
}
