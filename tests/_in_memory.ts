/**
 * Test servers built with the official SDK, linked to an adapter in-process
 * through the SDK's InMemoryTransport.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Counts of calls the server actually received, by tool. */
export type CallLog = Map<string, number>;

/** An SDK McpServer with a handful of tools that exercise the adapter. */
export function createTestServer(calls: CallLog = new Map()): McpServer {
  const server = new McpServer({ name: "test-server", version: "1.0.0" });
  const seen = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const text = (value: string) => ({
    content: [{ type: "text" as const, text: value }],
  });

  server.registerTool("echo", {
    description: "Echo a message",
    inputSchema: { message: z.string().min(1) },
  }, ({ message }: { message: string }) => {
    seen("echo");
    return text(message);
  });
  server.registerTool("add", {
    description: "Add numbers",
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  }, ({ a, b }: { a: number; b: number }) => {
    seen("add");
    return { ...text(String(a + b)), structuredContent: { sum: a + b } };
  });
  server.registerTool(
    "fail",
    { description: "Always fails", inputSchema: {} },
    () => {
      seen("fail");
      return {
        isError: true,
        content: [{ type: "text" as const, text: "disk on fire" }],
      };
    },
  );
  server.registerTool(
    "throw_rpc",
    { description: "Throws", inputSchema: {} },
    () => {
      seen("throw_rpc");
      throw new Error("kaboom");
    },
  );
  server.registerTool("sleep", {
    description: "Sleeps until aborted or for ms",
    inputSchema: { ms: z.number() },
  }, async ({ ms }: { ms: number }, extra: Extra) => {
    seen("sleep");
    const aborted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (aborted) {
      calls.set("sleep:aborted", (calls.get("sleep:aborted") ?? 0) + 1);
    }
    return text(aborted ? "aborted" : "slept");
  });
  server.registerTool(
    "progress",
    {
      description:
        "Reports progress `steps` times, `gapMs` apart, then answers immediately after the last one",
      inputSchema: { steps: z.number(), gapMs: z.number() },
    },
    async (
      { steps, gapMs }: { steps: number; gapMs: number },
      extra: Extra,
    ) => {
      seen("progress");
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => setTimeout(resolve, gapMs));
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress: i,
              total: steps,
              message: `step ${i}`,
            },
          });
        }
      }
      return text(`done ${steps}`);
    },
  );
  server.registerTool("delete_file", {
    description: "Pretends to delete",
    inputSchema: { path: z.string() },
  }, () => text("deleted"));
  return server;
}

/** An SDK server of either kind: `McpServer` or the low-level `Server`. */
export type SdkServer = Pick<McpServer, "connect"> | Pick<Server, "connect">;

/**
 * Connects `server` to one end of a new in-memory pair and returns the
 * other end: an adapter's `transport` (or what its factory returns).
 */
export async function linkServer(
  server: SdkServer,
): Promise<InMemoryTransport> {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return client;
}

/**
 * An adapter named `name`, connected to `server` over one in-memory link
 * (a reconnect finds nobody: use `linkedAdapter` for that).
 */
export async function connectedAdapter(
  server: SdkServer,
  name: string,
  options: Omit<MCPToolAdapterOptions, "transport"> = {},
): Promise<MCPToolAdapter> {
  const adapter = new MCPToolAdapter({
    name,
    transport: "stdio",
    command: "in-memory",
  }, { ...options, transport: await linkServer(server) });
  await adapter.connect();
  return adapter;
}

/** Connects a fresh SDK server (from `makeServer`) to a new adapter per connection attempt. */
export function linkedAdapter(
  makeServer: () => McpServer = () => createTestServer(),
  options: Omit<MCPToolAdapterOptions, "transport"> = {},
): { adapter: MCPToolAdapter; servers: McpServer[] } {
  const servers: McpServer[] = [];
  const adapter = new MCPToolAdapter({
    name: "mem",
    transport: "stdio",
    command: "in-memory",
  }, {
    ...options,
    transport: () => {
      const server = makeServer();
      servers.push(server);
      return linkServer(server);
    },
  });
  return { adapter, servers };
}
