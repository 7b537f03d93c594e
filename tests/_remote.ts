/**
 * Real HTTP peers for the remote-transport tests: in-process `node:http`
 * servers on 127.0.0.1 (ephemeral ports) that record every request, SDK
 * streamable-HTTP and SSE servers built on them, and
 * `@modelcontextprotocol/server-everything` as a child process. Runs under
 * `deno test` and, transpiled, under `node --test`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import {
  type JSONRPCMessage,
  MCPConnectionError,
  MCPRequestLostError,
  type MCPTransport,
  type RequestId,
} from "@cleveragents/mcp-adapter";
import { createTestServer } from "./_in_memory.ts";
import { everythingCommand, type EverythingMode } from "./_everything.ts";
import { type Cleanup, poll } from "./_helpers.ts";

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The JSON-RPC method of a POST body, when it had one. */
  rpcMethod?: string | undefined;
  /** Milliseconds on `performance.now()` when the request arrived. */
  at: number;
  /** Set once the exchange is over: answered in full, or dropped by either side. */
  closed: boolean;
}

/** A request handler; `body` is the parsed JSON of a POST (or undefined). */
export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
) => void | Promise<void>;

/** A listening test server. */
export interface TestHttpServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Every request so far, in arrival order. */
  requests: SeenRequest[];
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

/** Makes {@linkcode listen} servers on ephemeral ports whose close() is pushed to `cleanups`. */
export function rawServers(
  cleanups: Cleanup[],
): (handler: Handler) => Promise<TestHttpServer> {
  return async (handler) => {
    const server = await listen(handler);
    cleanups.push(() => server.close());
    return server;
  };
}

/** Starts a `node:http` server on 127.0.0.1 with an ephemeral port (or `port`). */
export async function listen(
  handler: Handler,
  port = 0,
): Promise<TestHttpServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const seen: SeenRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      at: performance.now(),
      closed: false,
    };
    requests.push(seen);
    res.on("close", () => seen.closed = true);
    let body: unknown;
    try {
      if (req.method === "POST") {
        const chunks: Uint8Array[] = [];
        for await (const chunk of req) chunks.push(chunk as Uint8Array);
        const text = new TextDecoder().decode(concat(chunks));
        try {
          body = JSON.parse(text);
          seen.rpcMethod = (body as { method?: string }).method;
        } catch {
          body = text;
        }
      }
      await handler(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${actual}`,
    port: actual,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = await listen((_req, res) => void res.end());
  await server.close();
  return server.port;
}

/** Options of {@linkcode sdkStreamableServer}. */
export interface SdkStreamableOptions {
  /** No sessions; a fresh SDK transport per request; GET answers 405. */
  stateless?: boolean;
  /** `enableJsonResponse`: answers are JSON bodies instead of SSE. */
  json?: boolean;
  /** Keep events for resumption (`InMemoryEventStore`). */
  eventStore?: boolean;
  /** The `retry:` delay sent in priming events, in ms. */
  retryInterval?: number;
  /** Adds tools to each new McpServer. */
  extend?: (server: McpServer) => void;
  /** Runs before the SDK sees a request; return true when it answered. */
  intercept?: (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => boolean;
}

/** An SDK streamable-HTTP server at `url` (path `/mcp`). */
export interface SdkStreamableServer extends TestHttpServer {
  url: string;
  /** Live sessions by id. */
  sessions: Map<string, StreamableHTTPServerTransport>;
  /** Forgets every session, as a restarted server would. */
  dropSessions(): Promise<void>;
}

/** The live sessions of a stateful SDK streamable-HTTP server, by id. */
export type Sessions = Map<string, StreamableHTTPServerTransport>;

/** Settings of a session's transport, besides its id and session callbacks. */
export type SessionSettings = Omit<
  StreamableHTTPServerTransportOptions,
  "sessionIdGenerator" | "onsessioninitialized" | "onsessionclosed"
>;

/**
 * Serves one request of a stateful SDK streamable-HTTP server: a known
 * session id goes to its transport and an unknown one gets 404; a POST
 * without one (an initialize) gets a new transport with `settings()`, which
 * `connect` connects to a server and `sessions` keeps under the id the SDK
 * assigns; any other request without one gets 400.
 */
export async function serveSession(
  sessions: Sessions,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  settings: () => SessionSettings,
  connect: (transport: StreamableHTTPServerTransport) => Promise<void>,
): Promise<void> {
  const sessionId = req.headers["mcp-session-id"];
  if (typeof sessionId === "string") {
    const transport = sessions.get(sessionId);
    if (transport === undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32001, message: "Session not found" },
          id: null,
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(400).end("Bad Request: Mcp-Session-Id header is required");
    return;
  }
  const transport: StreamableHTTPServerTransport =
    new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      ...settings(),
      onsessioninitialized: (id: string) => void sessions.set(id, transport),
      onsessionclosed: (id: string) => void sessions.delete(id),
    });
  await connect(transport);
  await transport.handleRequest(req, res, body);
}

/** Forgets and closes every session in `sessions`. */
export async function closeSessions(sessions: Sessions): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  await Promise.all(open.map((transport) => transport.close()));
}

/**
 * Serves `createTestServer()` over the SDK's `StreamableHTTPServerTransport`.
 * Stateful mode keeps one transport per session and answers an unknown
 * session id with 404, as the spec says.
 */
export async function sdkStreamableServer(
  options: SdkStreamableOptions = {},
): Promise<SdkStreamableServer> {
  const sessions: Sessions = new Map();
  const servers: McpServer[] = [];
  const makeServer = () => {
    const server = createTestServer();
    options.extend?.(server);
    servers.push(server);
    return server;
  };
  const http = await listen(async (req, res, body) => {
    if (options.intercept?.(req, res, body)) return;
    if (!(req.url ?? "").startsWith("/mcp")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    if (options.stateless) {
      if (req.method !== "POST") {
        res.writeHead(405, { allow: "POST" }).end();
        return;
      }
      const server = makeServer();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: options.json ?? false,
      });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    await serveSession(sessions, req, res, body, () => ({
      enableJsonResponse: options.json ?? false,
      eventStore: options.eventStore ? new InMemoryEventStore() : undefined,
      retryInterval: options.retryInterval,
    }), (transport) => makeServer().connect(transport));
  });
  const dropSessions = () => closeSessions(sessions);
  return {
    ...http,
    url: `${http.origin}/mcp`,
    sessions,
    dropSessions,
    close: async () => {
      await dropSessions();
      await Promise.all(servers.map((server) => server.close()));
      await http.close();
    },
  };
}

/** Options of {@linkcode sdkSseServer}. */
export interface SdkSseOptions {
  /** Adds tools to each new McpServer. */
  extend?: (server: McpServer) => void;
  /** Runs before the SDK sees a request; return true when it answered. */
  intercept?: (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => boolean;
}

/** An SDK SSE server: GET `/sse` opens a session, POST `/messages?sessionId=` feeds it. */
export async function sdkSseServer(options: SdkSseOptions = {}): Promise<
  TestHttpServer & { url: string; sessions: Map<string, SSEServerTransport> }
> {
  const sessions = new Map<string, SSEServerTransport>();
  const servers: McpServer[] = [];
  const http = await listen(async (req, res, body) => {
    if (options.intercept?.(req, res, body)) return;
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      const server = createTestServer();
      options.extend?.(server);
      servers.push(server);
      await server.connect(transport);
      return;
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (transport === undefined) {
        res.writeHead(404).end("Session not found");
        return;
      }
      await transport.handlePostMessage(req, res, body);
      return;
    }
    res.writeHead(404).end("Not Found");
  });
  return {
    ...http,
    url: `${http.origin}/sse`,
    sessions,
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
      await http.close();
    },
  };
}

/** server-everything running as a child process. */
export interface EverythingServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Kills the process and waits (bounded) for it to exit. */
  stop(): Promise<void>;
  /** Stops it and starts a new one on the same port: every session is gone. */
  restart(): Promise<void>;
}

const EVERYTHING_START_MS = 60_000;

/** Starts server-everything in `mode` on a free port and waits until it answers HTTP. */
export async function startEverything(
  mode: Exclude<EverythingMode, "stdio">,
): Promise<EverythingServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let child = await spawnEverything(mode, port, origin);
  return {
    origin,
    port,
    stop: () => stopChild(child),
    restart: async () => {
      await stopChild(child);
      child = await spawnEverything(mode, port, origin);
    },
  };
}

async function spawnEverything(
  mode: Exclude<EverythingMode, "stdio">,
  port: number,
  origin: string,
): Promise<ChildProcess> {
  const { command, args } = everythingCommand(mode);
  const child = spawn(command, args, {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + String(chunk)).slice(-2000);
  });
  let exited = false;
  child.once("exit", () => exited = true);
  // Listening (any answer), or `false` once the child has exited.
  const listening = await poll(
    async () => {
      if (exited) return false;
      try {
        const response = await fetch(origin, {
          signal: AbortSignal.timeout(1000),
        });
        await response.body?.cancel();
        return true;
      } catch {
        return undefined;
      }
    },
    EVERYTHING_START_MS,
    100,
  );
  if (listening) return child;
  await stopChild(child);
  throw new Error(
    `server-everything (${mode}) did not listen on ${origin}: ${stderr}`,
  );
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    exited,
    new Promise((resolve) => timer = setTimeout(resolve, 10_000)),
  ]);
  clearTimeout(timer);
  child.stderr?.destroy();
}

/** Rejects with a clear message when `promise` does not settle within `ms`. */
export function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// deno-lint-ignore no-explicit-any
type AnyRecord = Record<string, any>;

/**
 * A bare JSON-RPC client over one transport, for tests that watch the
 * transport itself: every message, error and close is recorded, and a
 * request fails when the transport reports it lost.
 */
export class Rpc {
  readonly messages: JSONRPCMessage[] = [];
  readonly errors: Error[] = [];
  closes = 0;
  #nextId = 1;
  readonly #pending = new Map<
    RequestId,
    { resolve: (result: AnyRecord) => void; reject: (error: Error) => void }
  >();

  constructor(readonly transport: MCPTransport) {
    transport.onmessage = (message) => {
      this.messages.push(message);
      if ("method" in message) return;
      const pending = this.#pending.get(message.id ?? "");
      if (pending === undefined) return;
      this.#pending.delete(message.id!);
      if ("error" in message) pending.reject(new Error(message.error.message));
      else pending.resolve(message.result);
    };
    transport.onerror = (error) => {
      this.errors.push(error);
      if (error instanceof MCPRequestLostError) {
        this.#pending.get(error.requestId)?.reject(error);
        this.#pending.delete(error.requestId);
      }
    };
    transport.onclose = () => this.closes++;
  }

  /** Sends a request; resolves with its result (bounded by `timeoutMs`). */
  async request(
    method: string,
    params?: AnyRecord,
    timeoutMs = 10_000,
  ): Promise<AnyRecord> {
    const id = this.#nextId++;
    const answer = new Promise<AnyRecord>((resolve, reject) =>
      this.#pending.set(id, { resolve, reject })
    );
    answer.catch(() => {});
    try {
      await this.transport.send(
        params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params },
      );
    } catch (error) {
      this.#pending.delete(id);
      throw error;
    }
    return await within(answer, timeoutMs, `"${method}"`);
  }

  /** Sends a notification. */
  notify(method: string, params?: AnyRecord): Promise<void> {
    return this.transport.send(
      params === undefined
        ? { jsonrpc: "2.0", method }
        : { jsonrpc: "2.0", method, params },
    );
  }

  /** The MCP handshake: initialize, set the version, initialized. */
  async initialize(protocolVersion = "2025-11-25"): Promise<AnyRecord> {
    const result = await this.request("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "rpc-test", version: "1.0.0" },
    });
    this.transport.setProtocolVersion?.(result.protocolVersion);
    await this.notify("notifications/initialized");
    return result;
  }
}

/** One request a {@linkcode recordingFetch} sent. */
export interface RecordedRequest {
  method: string;
  url: string;
  signal: AbortSignal | undefined;
  /** Set once the response arrived. */
  status: number | undefined;
}

/** A fetch that logs each request as it is sent; its status once answered. */
export function recordingFetch(): {
  fetch: typeof fetch;
  log: RecordedRequest[];
} {
  const log: RecordedRequest[] = [];
  const recording = async (input: RequestInfo | URL, init?: RequestInit) => {
    const entry: RecordedRequest = {
      method: init?.method ?? "GET",
      url: String(input),
      signal: init?.signal ?? undefined,
      status: undefined,
    };
    log.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    return response;
  };
  return { fetch: recording as typeof fetch, log };
}

/** Bodies that quote the token they were sent; `token` is only the part after "Bearer ". */
export const TOKEN_ECHOES: Record<
  string,
  (res: ServerResponse, token: string) => void
> = {
  "401": (res, token) =>
    void res.writeHead(401, { "content-type": "text/plain" })
      .end(`invalid token ${token}`),
  "500": (res, token) =>
    void res.writeHead(500, { "content-type": "application/json" })
      .end(JSON.stringify({ error: `cannot verify ${token} right now` })),
  "HTML 200": (res, token) =>
    void res.writeHead(200, { "content-type": "text/html" })
      .end(`<p>Welcome back, ${token}! Please sign in.</p>`),
};

/** Transport options that send `Authorization: Bearer <token>`. */
export interface BearerOptions {
  headers: Record<string, string>;
  getHeaders?: () => Promise<Record<string, string>>;
}

/** The two ways a transport is given the bearer token: as a fixed header, and from `getHeaders()`. */
export function bearerSources(token: string): [string, BearerOptions][] {
  return [
    ["headers", { headers: { Authorization: `Bearer ${token}` } }],
    ["getHeaders()", {
      headers: {},
      getHeaders: () => Promise.resolve({ Authorization: `Bearer ${token}` }),
    }],
  ];
}

/** The token part of a request's `Authorization: Bearer …` header ("" without one). */
export function tokenOf(req: IncomingMessage): string {
  return (req.headers.authorization ?? "").split(" ")[1] ?? "";
}

/** An `assert.rejects` check: a connection error whose message and cause do not hold `token`. */
export function withoutToken(token: string): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof MCPConnectionError, `got ${error}`);
    assert.ok(!error.message.includes(token), error.message);
    assert.ok(!String(error.cause).includes(token), String(error.cause));
    assert.match(error.message, /\[redacted\]/);
    return true;
  };
}
