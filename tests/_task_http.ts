/**
 * The task fixture server (`_task_server.ts`) over streamable HTTP: one SDK
 * `StreamableHTTPServerTransport` and one `McpServer` per session, all
 * sharing one task store, so a test can check that a task id is useless
 * outside the session that created it (or, with `sessionBound: false`,
 * that a task outlives its session: durable tasks). Runs under `deno test` and,
 * transpiled, under `node --test`.
 *
 * @module
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  closeSessions,
  listen,
  serveSession,
  type Sessions,
  type TestHttpServer,
} from "./_remote.ts";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import type { Cleanup } from "./_helpers.ts";
import {
  createTaskServer,
  newTaskServerLog,
  type TaskServerLog,
} from "./_task_server.ts";
import { FixtureTaskStore } from "./_task_store.ts";

/** A listening {@linkcode taskHttpServer}. */
export interface TaskHttpServer extends TestHttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  /** What every session's server saw, in one log. */
  log: TaskServerLog;
  /** The store all sessions share. */
  store: FixtureTaskStore;
  /** Live sessions by id. */
  sessions: Map<string, StreamableHTTPServerTransport>;
}

/**
 * Serves {@linkcode createTaskServer} at `/mcp` over streamable HTTP
 * (stateful; an unknown session id gets 404). Progress and `log_later`
 * messages, which are tied to no open request, travel on the GET stream;
 * a task's elicitation travels inside the `tasks/result` response stream.
 *
 * @example
 * ```ts ignore
 * const server = await taskHttpServer();
 * // connect a client to server.url
 * await server.close();
 * ```
 */
export async function taskHttpServer(
  options: { pollIntervalMs?: number; sessionBound?: boolean } = {},
): Promise<TaskHttpServer> {
  const log = newTaskServerLog();
  const store = new FixtureTaskStore(options.pollIntervalMs ?? 20, {
    sessionBound: options.sessionBound ?? true,
  });
  const sessions: Sessions = new Map();
  const servers: McpServer[] = [];
  const http = await listen(async (req, res, body) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    await serveSession(sessions, req, res, body, () => ({}), (transport) => {
      const server = createTaskServer(log, { store });
      servers.push(server);
      return server.connect(transport);
    });
  });
  return {
    ...http,
    url: `${http.origin}/mcp`,
    log,
    store,
    sessions,
    close: async () => {
      await closeSessions(sessions);
      await Promise.all(servers.map((server) => server.close()));
      await http.close();
    },
  };
}

/** A {@linkcode taskHttpServer} and an adapter named "tasks" connected to it, both released by `cleanups`. */
export async function connectedOverHttp(
  cleanups: Cleanup[],
  options?: MCPToolAdapterOptions,
): Promise<{ server: TaskHttpServer; adapter: MCPToolAdapter }> {
  const server = await taskHttpServer();
  cleanups.push(() => server.close());
  const adapter = new MCPToolAdapter({
    name: "tasks",
    transport: "streamable-http",
    url: server.url,
  }, options);
  cleanups.push(() => adapter.disconnect());
  await adapter.connect();
  return { server, adapter };
}
