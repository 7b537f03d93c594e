/**
 * `MCPToolAdapter`: the lifecycle of one MCP server connection, its tool
 * list, validated invocation and registry integration.
 *
 * @module
 */

import { inferCapabilities, resolveCapability } from "./capabilities.ts";
import type { CapabilityOverrides } from "./capabilities.ts";
import { type MCPServerConfig, validateServerConfig } from "./config.ts";
import {
  MCPConfigError,
  MCPConnectionError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPSessionExpiredError,
  MCPTimeoutError,
} from "./errors.ts";
import type { RegisteredTool, ToolRegistry } from "./registry.ts";
import { type RequestOptions, type Result, Session } from "./session.ts";
import { configSecrets, redact } from "./_redact.ts";
import { listAllTools } from "./_tool_list.ts";
import { compileToolFilter } from "./tool_filter.ts";
import type { JSONRPCNotification, MCPTransport } from "./transport.ts";
import { createTransport, type RemoteOptions } from "./_create_transport.ts";
import type { OAuthClientProviderLike } from "./oauth.ts";
import {
  clientCapabilities,
  type ClientHandlers,
  handleServerRequest,
} from "./handlers.ts";
import type {
  JsonSchema,
  MCPErrorKind,
  MCPProgress,
  MCPToolDescriptor,
  MCPToolFilter,
  MCPToolResult,
  ToolAnnotations,
  ToolCapability,
} from "./types.ts";
import { type ArgumentValidator, compileValidator } from "./validation.ts";

/** Protocol versions this client speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** Makes a fresh transport for each connection attempt. */
export type TransportFactory = () => MCPTransport | Promise<MCPTransport>;

/** Options of {@linkcode MCPToolAdapter}'s constructor. */
export interface MCPToolAdapterOptions {
  /**
   * A transport to use instead of the one `config.transport` names (mocks,
   * in-process servers, custom channels). Pass a factory to allow `reconnect()`.
   */
  transport?: MCPTransport | TransportFactory;
  /** Sent in `initialize`. Default: this library's name and version. */
  clientInfo?: { name: string; version: string };
  /** Default deadline of `invoke()` in ms, pushed back by progress. Default 60 000. */
  requestTimeoutMs?: number;
  /** Default deadline of `connect()` in ms (start + handshake). Default 30 000. */
  connectTimeoutMs?: number;
  /** The `fetch` the remote transports use (edge runtimes, proxies, tests). Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /**
   * OAuth for remote servers: the MCP SDK's `OAuthClientProvider` (e.g. its
   * `ClientCredentialsProvider`). On 401, or 403 `insufficient_scope`, the
   * SDK's `auth()` flow runs (loaded lazily) and the request is retried once.
   */
  authProvider?: OAuthClientProviderLike;
  /** Answers to server-initiated requests; each one given is declared as a client capability. */
  handlers?: ClientHandlers;
  /** Receives non-fatal problems (a malformed message, a stream that could not be reopened). */
  onError?: (error: Error) => void;
}

/** Options of `connect()` and `reconnect()`. */
export interface ConnectOptions {
  /** Deadline for starting the server and the handshake, in ms. */
  timeoutMs?: number;
  /** Aborts the attempt. */
  signal?: AbortSignal;
}

/** Options of `invoke()`. */
export interface InvokeOptions {
  /** Deadline in ms without a response or progress report. Default: `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Absolute deadline in ms, which progress does not push back. Default: none. */
  totalTimeoutMs?: number;
  /** Cancels the call; the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Receives every progress report the server sends before the result. */
  onProgress?: (progress: MCPProgress) => void;
}

/** Options of `registerTools()`. */
export interface RegisterToolsOptions {
  /** Capability overrides keyed by tool name or `*` glob, applied last. */
  overrides?: CapabilityOverrides;
}

const CLIENT_INFO = { name: "@cleveragents/mcp-adapter", version: "0.1.0" };
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** What a server said about itself in `initialize`. */
export interface MCPServerInfo {
  /** The negotiated protocol version. */
  protocolVersion: string;
  /** The server's name and version. */
  serverInfo: { name: string; version: string };
  /** The server's capabilities. */
  capabilities: Record<string, unknown>;
  /** Usage hints for the model, when the server sent some. */
  instructions?: string;
}

/**
 * Connects to one MCP server and exposes its tools: discovery, validated
 * invocation with deadlines, capability inference and registration into a
 * {@linkcode ToolRegistry}.
 *
 * All methods are safe to call concurrently: concurrent `connect()` calls
 * share one attempt, `invoke()` during a (re)connect waits for it, and
 * `disconnect()` settles every call in flight.
 *
 * @example Invoke a tool of an in-process SDK server
 * ```ts
 * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { z } from "zod";
 *
 * const server = new McpServer({ name: "demo", version: "1.0.0" });
 * server.tool("add", { a: z.number(), b: z.number() }, ({ a, b }: { a: number; b: number }) => ({
 *   content: [{ type: "text", text: String(a + b) }],
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 *
 * const adapter = new MCPToolAdapter(
 *   { name: "demo", transport: "stdio", command: "unused" },
 *   { transport: clientSide },
 * );
 * await adapter.connect();
 * const result = await adapter.invoke("add", { a: 2, b: 3 });
 * console.log(result.data.content); // [{ type: "text", text: "5" }]
 * await adapter.disconnect();
 * ```
 */
export class MCPToolAdapter {
  /** The validated server configuration. */
  readonly config: MCPServerConfig;
  readonly #transportOption: MCPTransport | TransportFactory | undefined;
  readonly #clientInfo: { name: string; version: string };
  readonly #requestTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #remote: RemoteOptions;
  readonly #handlers: ClientHandlers | undefined;
  readonly #onError: ((error: Error) => void) | undefined;
  /** Values of `config.env` and `config.headers`, kept out of every message. */
  readonly #secrets: string[];

  #session: Session | undefined;
  #server: MCPServerInfo | undefined;
  #lostError: MCPNotConnectedError | undefined;
  /** The in-progress connect, reconnect or disconnect; invoke() waits for it. */
  #transition: Promise<void> | undefined;
  #connectAbort: AbortController | undefined;
  /** A re-initialization after the remote session expired. */
  #renewing: Promise<void> | undefined;

  /** The server's whole tool list, by name; `undefined` when stale. */
  #tools: Map<string, MCPToolDescriptor> | undefined;
  #refreshing: Promise<Map<string, MCPToolDescriptor>> | undefined;
  /** Moves on every invalidation, so a fetch that started before one is not cached. */
  #toolsGeneration = 0;
  #filter: ((name: string) => boolean) | undefined;
  /** Compiled once per tool and schema: a refreshed list brings new schema objects. */
  readonly #validators = new WeakMap<
    JsonSchema,
    ArgumentValidator | undefined
  >();

  /**
   * Creates an adapter. Nothing is started until `connect()`.
   *
   * @param config How to reach the server.
   * @param options A custom transport, client info and default deadlines.
   * @throws {MCPConfigError} When `config` or an option is invalid; the message names the field.
   */
  constructor(config: MCPServerConfig, options: MCPToolAdapterOptions = {}) {
    this.config = validateServerConfig(config);
    this.#transportOption = options.transport;
    this.#clientInfo = options.clientInfo ?? CLIENT_INFO;
    this.#requestTimeoutMs =
      checkMs("requestTimeoutMs", options.requestTimeoutMs) ??
        DEFAULT_REQUEST_TIMEOUT_MS;
    this.#connectTimeoutMs =
      checkMs("connectTimeoutMs", options.connectTimeoutMs) ??
        DEFAULT_CONNECT_TIMEOUT_MS;
    this.#remote = { fetch: options.fetch, authProvider: options.authProvider };
    this.#secrets = configSecrets(this.config);
    this.#handlers = options.handlers;
    this.#onError = options.onError;
  }

  /** Whether a connection is established and alive. */
  get connected(): boolean {
    return this.#session !== undefined && !this.#session.closed;
  }

  /** What the server said in `initialize`; `undefined` before connecting. */
  get serverInfo(): Readonly<MCPServerInfo> | undefined {
    return this.#server;
  }

  /**
   * Infers what a tool may do from its name (the spec's table).
   *
   * @example
   * ```ts
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * console.log(MCPToolAdapter.inferCapabilities("getUser")); // { readOnly: true, writes: false }
   * ```
   *
   * @param toolName The tool's name.
   * @returns `readOnly` / `writes` flags.
   */
  static inferCapabilities(toolName: string): ToolCapability {
    return inferCapabilities(toolName);
  }

  /**
   * Starts the server (stdio) or opens the session (HTTP) and performs the
   * MCP handshake. Concurrent calls share one attempt; a no-op when connected.
   *
   * @param options Deadline and cancellation.
   * @throws {MCPConnectionError} When the server cannot be started, reached or initialized in time.
   */
  connect(options: ConnectOptions = {}): Promise<void> {
    if (this.connected) return Promise.resolve();
    return this.#transition ?? this.#begin(this.#open(options));
  }

  /**
   * Closes the connection; a stdio server is stopped (stdin closed, then
   * SIGTERM, then SIGKILL) and gone when this resolves. Calls in flight are
   * rejected with {@linkcode MCPNotConnectedError}. Idempotent.
   */
  async disconnect(): Promise<void> {
    this.#connectAbort?.abort(
      new MCPConnectionError(
        `Connecting to MCP server "${this.config.name}" was cancelled by disconnect()`,
      ),
    );
    await this.#transition?.catch(() => {});
    await this.#close();
  }

  /**
   * Disconnects and connects again, clearing the cached tool list. Call
   * `discoverTools()` afterwards to see the server's current tools.
   *
   * @param options Deadline and cancellation of the new connection.
   * @throws {MCPConnectionError} When the new connection fails or times out.
   */
  reconnect(options: ConnectOptions = {}): Promise<void> {
    const run = async () => {
      await this.#transition?.catch(() => {});
      await this.#close();
      await this.#open(options);
    };
    return this.#begin(run());
  }

  /**
   * Lists the server's tools, following pagination to the end, and caches
   * them. The list is refreshed when the server announces a change.
   *
   * @param filter Which tools to expose (exact names or `*` globs; exclude wins). It also governs `invoke()` and `registerTools()`.
   * @returns The exposed tools.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPConfigError} When the filter is malformed.
   */
  async discoverTools(filter?: MCPToolFilter): Promise<MCPToolDescriptor[]> {
    const accept = compileToolFilter(filter);
    const tools = await this.#toolMap(true);
    this.#filter = filter ? accept : undefined;
    return [...tools.values()].filter((tool) => accept(tool.name));
  }

  /**
   * Calls a tool. Arguments are validated against its `inputSchema` first; an
   * invalid call never reaches the server. Failures come back as
   * `success: false` with an `errorKind`; only a missing connection throws.
   *
   * @param name The tool's name as the server exposes it.
   * @param args The tool's arguments.
   * @param options Deadlines, cancellation and progress reporting.
   * @returns The result envelope.
   * @throws {MCPNotConnectedError} Before `connect()`, or when the connection dropped (also for calls in flight).
   */
  async invoke(
    name: string,
    args: Record<string, unknown> = {},
    options: InvokeOptions = {},
  ): Promise<MCPToolResult> {
    const started = performance.now();
    const fail = (
      errorKind: MCPErrorKind,
      error: string,
      data: Record<string, unknown> = {},
    ): MCPToolResult => ({
      success: false,
      data,
      error: redact(error, this.#secrets),
      errorKind,
      durationMs: performance.now() - started,
    });
    const session = await this.#requireSession("invoke");
    const tool = await this.#findTool(name);
    if (!tool) return fail("not_found", this.#notFoundMessage(name));
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return fail(
        "validation",
        `Input validation failed for tool "${name}": arguments must be an object of named arguments, got ${
          Array.isArray(args) ? "an array" : String(args)
        }`,
      );
    }
    const problems = this.#validatorFor(tool)?.(args);
    if (problems) {
      return fail(
        "validation",
        `Input validation failed for tool "${name}": ${problems.join("; ")}`,
      );
    }
    let result: Result;
    try {
      result = await this.#request(session, "tools/call", {
        name,
        arguments: args,
      }, {
        timeoutMs: checkMs("timeoutMs", options.timeoutMs) ??
          this.#requestTimeoutMs,
        totalTimeoutMs: checkMs("totalTimeoutMs", options.totalTimeoutMs),
        signal: options.signal,
        onProgress: options.onProgress,
        trackProgress: true,
      });
    } catch (error) {
      if (error instanceof MCPTimeoutError) {
        return fail(
          "timeout",
          `Tool "${name}" timeout: ${error.message}; the server was asked to cancel. Raise timeoutMs if the tool needs longer.`,
        );
      }
      if (error instanceof MCPProtocolError) {
        return fail(
          "server_error",
          `Tool "${name}" failed with a server error: ${error.message} (code ${error.rpcCode})`,
        );
      }
      if (error instanceof MCPNotConnectedError) throw error;
      if (options.signal?.aborted) {
        return fail(
          "cancelled",
          `Tool "${name}" was cancelled: ${
            describeReason(options.signal.reason)
          }`,
        );
      }
      return fail(
        "connection",
        `Tool "${name}" could not be called: ${errorMessage(error)}`,
      );
    }
    if (result.isError === true) {
      return fail(
        "server_error",
        `Tool "${name}" reported a server error: ${
          textOf(result) || "no details given"
        }`,
        result,
      );
    }
    return {
      success: true,
      data: result,
      error: null,
      durationMs: performance.now() - started,
    };
  }

  /**
   * Registers every exposed tool as `{namespace}/{tool}` with provenance
   * (`source: "mcp"`, `sourceMetadata.server`) and inferred capabilities.
   * Replaces this namespace's earlier entries, removing stale ones; other
   * namespaces are untouched.
   *
   * @param registry Where to register.
   * @param namespace The name prefix; default `config.name`.
   * @param options Capability overrides keyed by tool name or `*` glob.
   * @returns The registered tools.
   * @throws {MCPNotConnectedError} Before `connect()`.
   * @throws {MCPConfigError} When the namespace is empty or contains "/".
   */
  async registerTools(
    registry: ToolRegistry,
    namespace: string = this.config.name,
    options: RegisterToolsOptions = {},
  ): Promise<RegisteredTool[]> {
    if (
      typeof namespace !== "string" || namespace === "" ||
      namespace.includes("/")
    ) {
      throw new MCPConfigError(
        "namespace",
        `Namespace must be a non-empty string without "/", got ${
          JSON.stringify(namespace)
        }; tools are registered as "{namespace}/{tool}"`,
      );
    }
    const tools = await this.#toolMap(false);
    const server = this.config.name;
    const registered: RegisteredTool[] = [];
    for (const tool of tools.values()) {
      if (this.#filter && !this.#filter(tool.name)) continue;
      const resolveOptions: {
        annotations?: ToolAnnotations;
        overrides?: CapabilityOverrides;
      } = {};
      if (tool.annotations) resolveOptions.annotations = tool.annotations;
      if (options.overrides) resolveOptions.overrides = options.overrides;
      const toolName = tool.name;
      registered.push({
        name: `${namespace}/${toolName}`,
        description: tool.description,
        inputSchema: tool.inputSchema,
        capability: resolveCapability(toolName, resolveOptions),
        checkpointable: false,
        source: "mcp",
        sourceMetadata: { server },
        invoke: (args?: Record<string, unknown>) => this.invoke(toolName, args),
      });
    }
    registry.replaceNamespace(namespace, registered);
    return registered;
  }

  /** Runs a connect/reconnect as the current transition, so invoke() and connect() wait for it. */
  #begin(attempt: Promise<void>): Promise<void> {
    const transition = attempt.finally(() => {
      if (this.#transition === transition) this.#transition = undefined;
    });
    this.#transition = transition;
    return transition;
  }

  async #open(options: ConnectOptions): Promise<void> {
    const timeoutMs = checkMs("timeoutMs", options.timeoutMs) ??
      this.#connectTimeoutMs;
    const abort = new AbortController();
    this.#connectAbort = abort;
    const name = this.config.name;
    const onAbort = () => abort.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () =>
        abort.abort(
          new MCPConnectionError(
            `Connecting to MCP server "${name}" timed out after ${timeoutMs} ms; check that it starts and answers "initialize", or raise timeoutMs`,
          ),
        ),
      timeoutMs,
    );
    let session: Session | undefined;
    try {
      if (options.signal?.aborted) throw options.signal.reason;
      const transport = await this.#createTransport();
      session = new Session(transport, name, {
        onNotification: (notification) => this.#onNotification(notification),
        onRequest: (request) => handleServerRequest(this.#handlers, request),
        onClose: (error) => this.#onClose(session!, error),
        onError: this.#onError,
      });
      const handshake = this.#handshake(session, timeoutMs);
      handshake.catch(() => {}); // its failure is reported through the race below
      const server = await raceAbort(handshake, abort.signal);
      this.#session = session;
      this.#server = server;
      this.#lostError = undefined;
      this.#invalidateTools();
    } catch (error) {
      await session?.close().catch(() => {});
      throw this.#connectionError(error, session);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (this.#connectAbort === abort) this.#connectAbort = undefined;
    }
  }

  async #handshake(
    session: Session,
    timeoutMs: number,
  ): Promise<MCPServerInfo> {
    await session.start();
    return await this.#initialize(session, timeoutMs);
  }

  /** The `initialize` exchange; also re-run over a live transport when a remote session expired. */
  async #initialize(
    session: Session,
    timeoutMs: number,
  ): Promise<MCPServerInfo> {
    const result = await session.request("initialize", {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS[0],
      capabilities: clientCapabilities(this.#handlers),
      clientInfo: this.#clientInfo,
    }, { timeoutMs });
    const version = result.protocolVersion;
    if (
      typeof version !== "string" ||
      !SUPPORTED_PROTOCOL_VERSIONS.includes(version)
    ) {
      throw new MCPConnectionError(
        `MCP server "${this.config.name}" answered with protocol version ${
          JSON.stringify(version)
        }, which this client does not speak (supported: ${
          SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        }); upgrade the server or this library`,
      );
    }
    session.transport.setProtocolVersion?.(version);
    await session.notify("notifications/initialized");
    const info: MCPServerInfo = {
      protocolVersion: version,
      serverInfo: (result.serverInfo as MCPServerInfo["serverInfo"]) ??
        { name: "unknown", version: "unknown" },
      capabilities: (result.capabilities as Record<string, unknown>) ?? {},
    };
    if (typeof result.instructions === "string") {
      info.instructions = result.instructions;
    }
    return info;
  }

  async #createTransport(): Promise<MCPTransport> {
    const option = this.#transportOption;
    if (typeof option === "function") return await option();
    if (option) return option;
    return createTransport(this.config, this.#remote);
  }

  /** The one error `connect()` throws: what failed, the server's last stderr lines, no secrets. */
  #connectionError(
    error: unknown,
    session: Session | undefined,
  ): MCPConnectionError {
    const name = this.config.name;
    let message: string;
    if (error instanceof MCPConnectionError) {
      message = error.message;
    } else if (error instanceof MCPNotConnectedError) {
      message =
        `MCP server "${name}" closed the connection before completing the handshake`;
    } else if (error instanceof MCPProtocolError) {
      message = `MCP server "${name}" rejected "initialize": ${error.message}`;
    } else {
      message = `Cannot connect to MCP server "${name}": ${
        errorMessage(error)
      }`;
    }
    const tail = (session?.transport as { stderrTail?: string[] } | undefined)
      ?.stderrTail;
    if (tail && tail.length > 0) {
      message += `\nLast lines of the server's stderr:\n  ${tail.join("\n  ")}`;
    }
    const cause = error instanceof MCPConnectionError
      ? error.cause ?? error
      : error;
    return new MCPConnectionError(redact(message, this.#secrets), { cause });
  }

  /** Sends a request; when the remote session expired, re-initializes once and sends it again. */
  async #request(
    session: Session,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Result> {
    try {
      return await session.request(method, params, options);
    } catch (error) {
      if (!(error instanceof MCPSessionExpiredError) || session.closed) {
        throw error;
      }
      await this.#renew(session);
      return await session.request(method, params, options);
    }
  }

  /**
   * Re-runs `initialize` over the live transport after the server dropped our
   * session (it processed nothing). Concurrent callers share one attempt. The
   * tool list is invalidated: a restarted server may offer other tools.
   */
  #renew(session: Session): Promise<void> {
    this.#renewing ??= (async () => {
      this.#invalidateTools();
      const info = await this.#initialize(session, this.#connectTimeoutMs);
      if (this.#session === session) this.#server = info;
    })().finally(() => this.#renewing = undefined);
    return this.#renewing;
  }

  async #close(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    this.#lostError = undefined;
    this.#invalidateTools();
    await session?.close();
  }

  #onClose(session: Session, error: Error | undefined): void {
    if (this.#session !== session || !error) return;
    this.#session = undefined;
    this.#lostError = new MCPNotConnectedError(
      `The connection to MCP server "${this.config.name}" was lost; call reconnect()`,
      { cause: error },
    );
  }

  #onNotification(notification: JSONRPCNotification): void {
    if (notification.method === "notifications/tools/list_changed") {
      this.#invalidateTools();
    }
  }

  /**
   * Forgets the tool list (its validators go with its schema objects). A list being fetched right now
   * may predate the change, so it is not kept either (the generation moves).
   */
  #invalidateTools(): void {
    this.#tools = undefined;
    this.#refreshing = undefined;
    this.#toolsGeneration++;
  }

  async #requireSession(operation: string): Promise<Session> {
    while (this.#transition) await this.#transition.catch(() => {});
    if (this.#session && !this.#session.closed) return this.#session;
    throw this.#lostError ??
      new MCPNotConnectedError(
        `Cannot ${operation}: MCP server "${this.config.name}" is not connected; call connect() first`,
      );
  }

  /** The server's whole tool list, fetched when stale (or always, with `refresh`). */
  async #toolMap(refresh: boolean): Promise<Map<string, MCPToolDescriptor>> {
    const session = await this.#requireSession("list tools");
    if (!refresh && this.#tools) return this.#tools;
    if (!this.#refreshing) {
      const refreshing = this.#fetchTools(session).finally(() => {
        if (this.#refreshing === refreshing) this.#refreshing = undefined;
      });
      this.#refreshing = refreshing;
    }
    return await this.#refreshing;
  }

  async #fetchTools(session: Session): Promise<Map<string, MCPToolDescriptor>> {
    const generation = this.#toolsGeneration;
    const tools = await listAllTools(
      (cursor) =>
        this.#request(
          session,
          "tools/list",
          cursor === undefined ? undefined : { cursor },
          {
            timeoutMs: this.#requestTimeoutMs,
          },
        ),
      this.config.name,
    );
    if (this.#session === session && this.#toolsGeneration === generation) {
      this.#tools = tools;
    }
    return tools;
  }

  /** Finds an exposed tool, refreshing a stale or missing list once. */
  async #findTool(name: string): Promise<MCPToolDescriptor | undefined> {
    const exposed = (tools: Map<string, MCPToolDescriptor>) => {
      const tool = tools.get(name);
      return tool && (!this.#filter || this.#filter(name)) ? tool : undefined;
    };
    const cached = this.#tools;
    if (cached) {
      const tool = exposed(cached);
      if (tool) return tool;
    }
    return exposed(await this.#toolMap(true));
  }

  #notFoundMessage(name: string): string {
    const names = [...(this.#tools?.keys() ?? [])].filter((tool) =>
      !this.#filter || this.#filter(tool)
    );
    const listed = names.length === 0
      ? "it exposes no tools"
      : `available: ${names.slice(0, 20).join(", ")}${
        names.length > 20 ? ", …" : ""
      }`;
    return `Tool "${name}" not found on MCP server "${this.config.name}" (${listed}); check the name or the filter`;
  }

  #validatorFor(tool: MCPToolDescriptor): ArgumentValidator | undefined {
    const schema = tool.inputSchema;
    if (this.#validators.has(schema)) return this.#validators.get(schema);
    const validator = compileValidator(schema);
    this.#validators.set(schema, validator);
    return validator;
  }
}

function checkMs(field: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new MCPConfigError(
      field,
      `${field} must be a positive number of milliseconds (e.g. 30000), got ${
        JSON.stringify(value)
      }`,
    );
  }
  return value;
}

function textOf(result: Result): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .filter((item): item is { type: "text"; text: string } =>
      item?.type === "text" && typeof item.text === "string"
    )
    .map((item) => item.text)
    .join("\n");
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeReason(reason: unknown): string {
  return reason instanceof Error
    ? reason.message
    : reason === undefined
    ? "aborted"
    : String(reason);
}

/** Resolves or rejects with `promise`, or rejects with the signal's reason first. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}
