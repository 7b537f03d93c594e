/**
 * `MCPToolAdapter`: one MCP server's tools — discovery and its cache,
 * validated invocation with deadlines, and registry integration — on top of
 * a {@linkcode Connection}.
 *
 * @module
 */

import { inferCapabilities, resolveCapability } from "./tools/capabilities.ts";
import type { CapabilityOverrides } from "./tools/capabilities.ts";
import {
  type MCPServerConfig,
  type MCPTransportKind,
  validateServerConfig,
} from "./server_config.ts";
import {
  checkTimeoutMs,
  Connection,
  type ConnectOptions,
  type MCPServerInfo,
  type TransportFactory,
} from "./protocol/connection.ts";
import { type MCPProtocolEra, protocolErrorKind } from "./protocol/era.ts";

export type { MCPProtocolEra };
import {
  MCPAdapterError,
  MCPAuthorizationRequiredError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPTimeoutError,
} from "./errors.ts";
import type { ClientHandlers } from "./protocol/handlers.ts";
import type { OAuthClientProviderLike } from "./transports/oauth.ts";

// The option types of the adapter, for the layers above it (the hub, the CLI),
// which never reach the protocol or the transports themselves.
export type {
  ClientHandlers,
  ElicitationRequest,
  ElicitationResult,
} from "./protocol/handlers.ts";
export type { OAuthClientProviderLike } from "./transports/oauth.ts";
import type { RegisteredTool, ToolRegistry } from "./tools/registry.ts";
import type { PinnedTools } from "./tools/fingerprint.ts";
import type { ToolDrift } from "./tools/drift.ts";
import type { ToolWatch } from "./tools/watch.ts";
import type { Result } from "./protocol/session.ts";
import { compileToolFilter } from "./tools/filter.ts";
import type {
  MCPAuthorizationCallback,
  MCPTransport,
} from "./transports/transport.ts";
import type {
  InvokeOptions,
  JsonSchema,
  MCPErrorKind,
  MCPLogHandler,
  MCPLogLevel,
  MCPToolDescriptor,
  MCPToolFilter,
  MCPToolResult,
  MCPUiResource,
  ReadUiResourceOptions,
  ToolAnnotations,
  ToolCapability,
} from "./types.ts";
import { validatorFor } from "./protocol/validation.ts";
import { configSecrets, redact, redactError } from "./util/redact.ts";
import type { MCPTelemetryOptions } from "./telemetry/types.ts";
import type { TaskHandle, TaskStore } from "./tasks/store.ts";
import type { CreatedTask, Tracked } from "./tasks/durable.ts";
import { checkMaxMessageBytes } from "./transports/limits.ts";
import { asError, errorMessage } from "./util/errors.ts";
import { race } from "./util/time.ts";
import { VERSION } from "./version.ts";
import type { Content } from "./adapter/content.ts";
import type * as shapes from "./protocol/content_types.ts";

export type { ConnectOptions, InvokeOptions, MCPServerInfo, TransportFactory };

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
   * `ClientCredentialsProvider`, or your own for the authorization-code
   * flow). Its token is read for every request. On 401, or 403
   * `insufficient_scope`, the SDK's `auth()` flow runs (loaded lazily):
   * a refresh, client credentials, or a step-up to the union of the scopes,
   * and the request is retried. When the user must approve in a browser,
   * {@linkcode MCPAuthorizationRequiredError} is thrown; see `finishAuth()`.
   */
  authProvider?: OAuthClientProviderLike;
  /**
   * The largest message the server may send, in bytes (SSE events:
   * characters); over stdio it also bounds what may wait to be written to a
   * server that stops reading. Past it the call or connection fails with an
   * error naming this option. Default 64 MiB.
   */
  maxMessageBytes?: number;
  /**
   * Streamable HTTP, 2025-era sessions: open the GET stream for
   * server-initiated messages (tool-list changes, logs outside a call).
   * Default `true`; pass `false` for an adapter that serves one request
   * (a Worker's): it would open the stream only to tear it down.
   */
  serverStream?: boolean;
  /** Answers to server-initiated requests; each one given is declared as a client capability. */
  handlers?: ClientHandlers;
  /** Receives non-fatal problems (a malformed message, a stream that could not be reopened). */
  onError?: (error: Error) => void;
  /**
   * Check a tool's `structuredContent` against its `outputSchema` (the
   * specification: clients SHOULD). A missing or mismatching one makes the
   * call fail with `errorKind: "server_error"`. Default `true`.
   */
  validateOutput?: boolean;
  /**
   * Check a call's arguments against the tool's `inputSchema` before it is
   * sent. Default `true`. A last resort for a server whose schemas refuse
   * calls the server itself accepts: with `false` only what JSON cannot
   * carry is refused, and the server alone judges the rest.
   */
  validateArguments?: boolean;
  /**
   * Receives the server's log messages (`notifications/message`): level,
   * logger name (when the server gives one) and data (any JSON). Default:
   * dropped, never printed. What it throws goes to `onError`.
   */
  onLog?: MCPLogHandler;
  /**
   * Receives each line a stdio server writes to stderr, with the values of
   * `config.env` masked. Default: the lines are kept (the last 20 are
   * quoted when connecting fails) but not passed on.
   */
  onStderr?: (line: string) => void;
  /**
   * OpenTelemetry spans and metrics by the MCP semantic conventions (see
   * docs/observability.md). Default: on when a provider is
   * registered with `@opentelemetry/api` before `connect()`, else off and
   * not loaded. `false` turns it off.
   */
  telemetry?: MCPTelemetryOptions | false;
  /**
   * Pin the tools: the accepted version of each (what `acceptToolChanges()`
   * returned, kept by the host). A tool whose fingerprint differs from its
   * pin is held back — left out of `discoverTools()` and `registerTools()`,
   * and `invoke()` throws `MCPToolHeldError` — until `acceptToolChanges()`.
   * `{}` holds back every tool until accepted. Checked when the tools are
   * first listed. Default: nothing pinned, nothing held.
   */
  pins?: PinnedTools;
  /**
   * With `pins`: whether a tool that has no pin is held back too (a server
   * can add a tool as well as change one). `false` pins it as first seen.
   * Default `true`.
   */
  holdNewTools?: boolean;
  /**
   * MCP Apps: declare the `io.modelcontextprotocol/ui` extension (HTML
   * apps, `text/html;profile=mcp-app`) in the client capabilities, in
   * `initialize` and on every modern request. Servers may then offer their
   * UI; read it with `readUiResource()`. Tools' `ui` metadata and
   * `visibility` are read and honoured either way. Default `false`.
   */
  apps?: boolean;
  /**
   * Where the handles of calls that became tasks are kept (see
   * docs/tasks.md): a `RedisTaskStore` lets another worker resume a task
   * whose worker is gone (`resumeTask()`). Default: a store in this
   * process's memory. Tasks of a stdio server are not recorded: the
   * server is this process's child and ends with it.
   */
  taskStore?: TaskStore;
}

/** Options of `resumeTask()`: those of `invoke()`, and how long to wait for the task's lease. */
export interface ResumeTaskOptions extends Omit<InvokeOptions, "task"> {
  /**
   * How long to wait for the task's lease while another worker holds it,
   * in ms: a worker that crashed stops renewing it, and it runs out within
   * the store's `leaseMs`. `0` gives up at once. Default: twice the
   * store's `leaseMs`.
   */
  waitMs?: number;
}

/** Options of `registerTools()`. */
export interface RegisterToolsOptions {
  /** Capability overrides keyed by tool name or `*` glob, applied last. */
  overrides?: CapabilityOverrides;
}

/** The schema checked with `validateArguments: false`: only what JSON cannot carry fails. */
const ANY_ARGUMENTS = {};
let outputCheck: typeof import("./protocol/output.ts") | undefined;
/** MCP Apps, loaded by the first tool list with `_meta` or the first `readUiResource()`. */
let apps: typeof import("./apps/apps.ts") | undefined;
/** The `x-mcp-header` rules, loaded by the first tool listing over modern HTTP. */
let paramHeaders: typeof import("./protocol/param_headers.ts") | undefined;
/** Fingerprints, drift and pins, loaded by the first tool listing. */
let watching: typeof import("./tools/watch.ts") | undefined;
/** Durable tasks, loaded by the first task (or task store method). */
let durable: Promise<typeof import("./tasks/durable.ts")> | undefined;

const CLIENT_INFO = { name: "@cleveragents/mcp-adapter", version: VERSION };
const noop = () => {};
/** A call's deadline without a `requestTimeoutMs` option; the CLI names it in hints. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

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
  readonly #connection: Connection;
  readonly #toolsListeners = new Set<() => void>();
  readonly #driftListeners = new Set<(drift: ToolDrift) => void>();
  readonly #pinning: Pick<MCPToolAdapterOptions, "pins" | "holdNewTools">;
  /** Made by `#toolWatch()`, the one way to it; `undefined` until a listing (nothing held yet). */
  #watch: ToolWatch | undefined;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #requestTimeoutMs: number;
  readonly #validateOutput: boolean;
  readonly #taskStore: TaskStore | undefined;
  readonly #validateArguments: boolean;
  /** Values of `config.env` and `config.headers`, kept out of every message. */
  readonly #configSecrets: string[];

  /** The server's whole tool list, by name; `undefined` when stale. */
  #tools: Map<string, MCPToolDescriptor> | undefined;
  /**
   * Until when (`performance.now()`) a modern server said the list stays
   * fresh (`ttlMs`); a 2025-era list is fresh until a change is announced.
   */
  #toolsFreshUntil = Infinity;
  /** The list is the user's own (`cacheScope: "private"`): not kept across logins. */
  #toolsPrivate = false;
  /** The listing in flight, and the generation it started in. */
  #refreshing:
    | { tools: Promise<Map<string, MCPToolDescriptor>>; generation: number }
    | undefined;
  /** The one listing queued behind a listing in flight that predates a change. */
  #queued: Promise<Map<string, MCPToolDescriptor>> | undefined;
  /** Moves on every invalidation, so a fetch that started before one is not cached. */
  #toolsGeneration = 0;
  #filter: ((name: string) => boolean) | undefined;
  /** Resources, prompts and completion (`adapter/content.ts`), loaded with the first use. */
  #content: Promise<Content> | undefined;
  readonly #listListeners = new Set<(list: shapes.MCPListKind) => void>();

  /**
   * Creates an adapter. Nothing is started until `connect()`.
   *
   * @param config How to reach the server.
   * @param options A custom transport, client info and default deadlines.
   * @throws {MCPConfigError} When `config` or an option is invalid; the message names the field.
   */
  constructor(config: MCPServerConfig, options: MCPToolAdapterOptions = {}) {
    this.config = validateServerConfig(config);
    this.#requestTimeoutMs =
      checkTimeoutMs("requestTimeoutMs", options.requestTimeoutMs) ??
        DEFAULT_REQUEST_TIMEOUT_MS;
    this.#validateOutput = options.validateOutput !== false;
    this.#taskStore = options.taskStore;
    this.#validateArguments = options.validateArguments !== false;
    this.#pinning = { pins: options.pins, holdNewTools: options.holdNewTools };
    this.#configSecrets = configSecrets(this.config);
    const onError = options.onError;
    this.#onError = onError &&
      ((error) => onError(redactError(error, this.#secrets())));
    this.#connection = new Connection({
      config: this.config,
      transport: options.transport,
      clientInfo: options.clientInfo ?? CLIENT_INFO,
      connectTimeoutMs:
        checkTimeoutMs("connectTimeoutMs", options.connectTimeoutMs) ??
          DEFAULT_CONNECT_TIMEOUT_MS,
      remote: {
        fetch: options.fetch,
        authProvider: options.authProvider,
        onStderr: options.onStderr,
        serverStream: options.serverStream,
        maxMessageBytes: checkMaxMessageBytes(
          options.maxMessageBytes,
          "MCPToolAdapter",
        ),
      },
      handlers: options.handlers,
      extensions: options.apps === true
        ? {
          "io.modelcontextprotocol/ui": {
            mimeTypes: ["text/html;profile=mcp-app"],
          },
        }
        : undefined,
      onError: this.#onError,
      onLog: options.onLog,
      telemetry: options.telemetry,
      secrets: this.#configSecrets,
      onToolsChanged: (reason) => {
        this.#invalidateTools();
        if (reason === "renewed" || reason === "list_changed") {
          this.#notifyToolsChanged();
        }
        void this.#content?.then((content) => content.sessionChanged(reason));
      },
      onNotice: (notice) =>
        void this.#content?.then((content) => content.notice(notice)),
    });
  }

  /**
   * What no message may contain: the config's secrets and what the
   * transport learned (OAuth tokens a server might echo back).
   */
  #secrets(): readonly string[] {
    // Asked while the constructor builds the connection: the config's own.
    return this.#connection?.secrets ?? this.#configSecrets;
  }

  /** Whether a connection is established and alive. */
  get connected(): boolean {
    return this.#connection.connected;
  }

  /** What the server said in `initialize`; `undefined` before connecting. */
  get serverInfo(): Readonly<MCPServerInfo> | undefined {
    return this.#connection.serverInfo;
  }

  /**
   * The server's `instructions` (from `initialize` or `server/discover`):
   * its usage guidance for the model, cut to 8192 characters; `undefined`
   * before connecting or when it sent none. It is the server's text: hand
   * it to a model as the server's words, and escape it before printing.
   */
  get instructions(): string | undefined {
    return this.#connection.serverInfo?.instructions?.slice(0, 8192);
  }

  /**
   * The transport that carries the connection: the configured one, `"sse"`
   * when a `streamable-http` server turned out to speak only the legacy SSE
   * transport (see `fallback` in the config), or `"custom"` for
   * `options.transport`. `undefined` before the first connection.
   */
  get transportKind(): MCPTransportKind | "custom" | undefined {
    return this.#connection.transportKind;
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
   * @throws {MCPAuthorizationRequiredError} When the user must authorize
   * this client in a browser first; see `finishAuth()`.
   * @throws {MCPConfigError} When the server asks for OAuth and the MCP SDK
   * (an optional peer, which runs the flow) is not installed; the message
   * says how to install it.
   */
  connect(options: ConnectOptions = {}): Promise<void> {
    return this.#connection.connect(options);
  }

  /**
   * Closes the connection; a stdio server is stopped (stdin closed, then
   * SIGTERM, then SIGKILL) and gone when this resolves. Calls in flight are
   * rejected with {@linkcode MCPNotConnectedError}. Idempotent.
   */
  disconnect(): Promise<void> {
    return this.#connection.disconnect();
  }

  /**
   * Disconnects and connects again, clearing the cached tool list. Call
   * `discoverTools()` afterwards to see the server's current tools.
   *
   * @param options Deadline and cancellation of the new connection.
   * @throws {MCPConnectionError} When the new connection fails or times out.
   */
  reconnect(options: ConnectOptions = {}): Promise<void> {
    return this.#connection.reconnect(options);
  }

  /**
   * Completes an OAuth authorization-code login. After `connect()`,
   * `discoverTools()` or `invoke()` threw
   * {@linkcode MCPAuthorizationRequiredError}, and the user approved at its
   * `authorizationUrl`, the authorization server redirects to the
   * provider's `redirectUrl` with a `code` and, RFC 9207, its `iss`: pass
   * the redirect URL (or its query) here. The `iss` is checked against the
   * authorization server before the code is exchanged with what the
   * server's 401 or 403 named (resource metadata, scope; the PKCE verifier
   * is in the provider), and the tokens are saved in the provider. Then
   * call `connect()` again, or repeat the call that failed: a live
   * connection keeps its session and tool list.
   *
   * @example
   * ```ts ignore
   * import { MCPAuthorizationRequiredError, MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * declare function redirectFromBrowser(url: URL): Promise<URL>;
   *
   * for (let tries = 0; ; tries++) {
   *   try {
   *     await adapter.connect();
   *     break;
   *   } catch (error) {
   *     if (!(error instanceof MCPAuthorizationRequiredError) || tries > 0) throw error;
   *     await adapter.finishAuth(await redirectFromBrowser(error.authorizationUrl));
   *   }
   * }
   * ```
   *
   * @param callback The redirect URL or its query (`code`, `iss`); a bare
   * `code` string is accepted only from a server that does not send `iss`.
   * @throws {MCPConfigError} Without an OAuth `authProvider`, or when the
   * redirect carries no code (the server's `error` is quoted).
   * @throws {MCPConnectionError} When the `iss` is wrong or missing, or the
   * exchange fails; the message never contains the code, tokens, client
   * secret or verifier.
   */
  async finishAuth(callback: MCPAuthorizationCallback): Promise<void> {
    await this.#connection.finishAuth(callback).catch((error) => {
      throw redactError(error, this.#secrets());
    });
    // A new login is a new authorization context: a private list is not its.
    if (this.#toolsPrivate) this.#invalidateTools();
    void this.#content?.then((content) => content.loggedIn());
  }

  /**
   * Asks the server to send log messages of `level` and above
   * (`logging/setLevel`), when it declares the `logging` capability. The
   * level is kept and sent again to every later session (reconnect, session
   * renewal). Messages reach the `onLog` option.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * const adapter = new MCPToolAdapter(config, {
   *   onLog: (level, logger, data) => console.error(level, logger ?? "", data),
   * });
   * await adapter.connect();
   * await adapter.setLogLevel("warning");
   * ```
   *
   * @param level The least severe level wanted.
   * @returns `true` when sent; `false` when the server does not declare logging.
   * @throws {MCPConfigError} When `level` is not one of the eight levels.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPProtocolError} When the server refuses the request.
   */
  async setLogLevel(level: MCPLogLevel): Promise<boolean> {
    try {
      return await this.#connection.setLogLevel(level, this.#requestTimeoutMs);
    } catch (error) {
      throw redactError(error, this.#secrets());
    }
  }

  /**
   * Calls `listener` whenever the server's tools may have changed: it sent
   * `notifications/tools/list_changed`, or it forgot our session (a restart)
   * and the adapter re-initialized. The cached list is already invalidated;
   * call `discoverTools()` or `registerTools()` again to see the new tools.
   *
   * @example Keep a registry in step with the server
   * ```ts ignore
   * import { MCPToolAdapter, ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const registry = new ToolRegistry();
   * adapter.onToolsChanged(() => void adapter.registerTools(registry));
   * ```
   *
   * @param listener Called with no arguments; what it throws goes to `options.onError`.
   * @returns A function that removes the listener.
   */
  onToolsChanged(listener: () => void): () => void {
    this.#toolsListeners.add(listener);
    return () => this.#toolsListeners.delete(listener);
  }

  /**
   * Calls `listener` when a listing of the tools differs from the previous
   * one (after `tools/list_changed`, a reconnect or a server restart: the
   * next `discoverTools()`, `registerTools()` or `invoke()` lists again), or,
   * for the first listing of an adapter with `pins`, from the pins. The
   * drift names the tools added, removed and changed, with the changed
   * fields and a line per difference.
   *
   * @example Tell the user what a server changed
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * adapter.onToolDrift(({ added, removed, changed }) => {
   *   for (const change of changed) console.warn(change.name, change.details);
   *   console.warn("added", added.map((tool) => tool.name), "removed", removed.map((tool) => tool.name));
   * });
   * ```
   *
   * @param listener Called with the drift; what it throws goes to `options.onError`.
   * @returns A function that removes the listener.
   */
  onToolDrift(listener: (drift: ToolDrift) => void): () => void {
    this.#driftListeners.add(listener);
    return () => this.#driftListeners.delete(listener);
  }

  /**
   * Compares the server's tools (the cached list, listed when stale) with
   * `pins`, default the adapter's own: what was added, removed and changed,
   * held-back tools included.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const drift = await adapter.compareTools();
   * if (drift.changed.length > 0) console.warn(drift.changed.map((change) => change.details));
   * ```
   *
   * @param pins Pins to compare with (e.g. read from a file).
   * @returns The drift from `pins` to the tools now.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPConfigError} When `pins` is malformed.
   * @throws {MCPAdapterError} `code` `"not_pinned"` without `pins` when the adapter pins nothing.
   */
  async compareTools(pins?: PinnedTools): Promise<ToolDrift> {
    await this.#listedTools();
    return (await this.#toolWatch()).compare(pins);
  }

  /**
   * Accepts the tools as they are now, and pins them: every tool (no
   * argument), the named ones, or exactly the versions a drift from
   * `compareTools()` or `onToolDrift` shows (a tool that changed again
   * since stays held back). Accepted tools are no longer held back, and
   * `onToolsChanged` listeners are called, so a registry that follows them
   * (a hub's does) registers them. A pinned tool that the server no longer
   * lists keeps its pin (it is back without a question if it returns
   * unchanged) until accepted: by name, as `removed` in a drift, or by
   * accepting everything. On an adapter without `pins`, this starts
   * pinning.
   *
   * @example Ask the user, then keep the pins
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * declare function userApproves(drift: unknown): Promise<boolean>;
   * declare function save(pins: unknown): Promise<void>;
   *
   * const drift = await adapter.compareTools();
   * if (await userApproves(drift)) await save(await adapter.acceptToolChanges(drift));
   * ```
   *
   * @param accepted Tool names, or a drift to accept exactly; default every tool.
   * @returns Every pin of the server's tools now, to keep for the next run.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   */
  async acceptToolChanges(
    accepted?: readonly string[] | ToolDrift,
  ): Promise<PinnedTools> {
    const tools = await this.#listedTools();
    const pins = (await this.#toolWatch()).accept(accepted, tools);
    this.#notifyToolsChanged();
    return pins;
  }

  /**
   * Lists the server's tools, following pagination to the end, and caches
   * them. The cached list serves `registerTools()` and `invoke()` until the
   * server announces a change or, on a modern server, its `ttlMs` runs out;
   * then `registerTools()` lists again (`invoke()` keeps validating with
   * the last list, and lists again for a tool it does not know). A list a
   * modern server marks `cacheScope: "private"` is not kept across a new
   * login (`finishAuth()`).
   *
   * @param filter Which tools to expose (exact names or `*` globs; exclude wins). It also governs `invoke()` and `registerTools()`.
   * @returns The exposed tools.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPAuthorizationRequiredError} When the user must approve a
   * (wider) OAuth authorization first; see `finishAuth()`.
   * @throws {MCPConfigError} When the filter is malformed.
   */
  async discoverTools(filter?: MCPToolFilter): Promise<MCPToolDescriptor[]> {
    const accept = compileToolFilter(filter);
    const tools = await this.#toolMap(true).catch((error) => {
      throw redactError(error, this.#secrets());
    });
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
   * @throws {MCPAuthorizationRequiredError} When the server wants a wider
   * OAuth scope that the user must approve; see `finishAuth()`.
   */
  invoke(
    name: string,
    args: Record<string, unknown> = {},
    options: InvokeOptions = {},
  ): Promise<MCPToolResult> {
    const telemetry = this.#connection.telemetry;
    return telemetry === undefined
      ? this.#invoke(name, args, options, undefined)
      : telemetry.call(
        name,
        (trace) => this.#invoke(name, args, options, trace),
        { args, signal: options.signal },
      );
  }

  /**
   * The open tasks of this server in the task store (see
   * `MCPToolAdapterOptions.taskStore`): calls that became tasks and have
   * not ended, whichever worker started them.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * for (const task of await adapter.openTasks()) console.log(task.id, task.tool);
   * ```
   *
   * @returns The handles, oldest first.
   */
  openTasks(): Promise<TaskHandle[]> {
    return this.#durable().then((tasks) => tasks.list());
  }

  /**
   * Resumes a task another worker (or this one, before it lost its
   * connection) started: takes the task's lease in the store, waiting up
   * to `waitMs` for a crashed holder's to run out, polls the task to its
   * end and returns the envelope `invoke()` would have returned. The
   * arguments are not checked again (only their fingerprint is kept); the
   * call's total deadline, if it had one, still holds.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const [task] = await adapter.openTasks();
   * if (task) console.log(await adapter.resumeTask(task.id));
   * ```
   *
   * @param id The handle's id (`openTasks()`, `mcp-adapter tasks`).
   * @param options Deadlines, cancellation, progress and status listeners, the lease wait.
   * @returns The result envelope.
   * @throws {MCPAdapterError} `task_not_found` when the store has no such
   * open task; `task_elsewhere` when it belongs to another server;
   * `task_leased` when another worker polls it.
   * @throws {MCPNotConnectedError} Before `connect()`, or when the connection drops (the task is kept).
   */
  resumeTask(
    id: string,
    options: ResumeTaskOptions = {},
  ): Promise<MCPToolResult> {
    return this.#durable().then((tasks) =>
      tasks.resume(
        id,
        options,
        (tool, totalTimeoutMs, created) =>
          this.#invoke(tool, {}, { ...options, totalTimeoutMs }, 0, created),
      )
    );
  }

  #durable() {
    return (durable ??= import("./tasks/durable.ts")).then((module) =>
      module.durableOf(this, this.#taskStore, this.#onError)
    );
  }

  async #invoke(
    name: string,
    args: Record<string, unknown>,
    options: InvokeOptions,
    trace: unknown,
    resume?: Result,
  ): Promise<MCPToolResult> {
    const started = performance.now();
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#requestTimeoutMs;
    const totalTimeoutMs = checkTimeoutMs(
      "totalTimeoutMs",
      options.totalTimeoutMs,
    );
    // The common case needs no wait: connected, and the tool list cached.
    let tool = this.#connection.ready && this.#tools
      ? this.#exposed(this.#tools, name)
      : undefined;
    // Whether the call waited since `started` was read.
    let waited = tool === undefined;
    if (tool === undefined) {
      try {
        // Waiting for a (re)connect or a fresh tool list spends the call's own budget.
        tool = await race(this.#lookUp(name), {
          signal: options.signal,
          timeoutMs: totalTimeoutMs,
          onTimeout: () =>
            new MCPTimeoutError(
              `it ran past its total deadline of ${totalTimeoutMs} ms while waiting for the connection or the tool list`,
              totalTimeoutMs!,
            ),
        });
      } catch (error) {
        return this.#failed(name, error, options.signal, started);
      }
      if (!tool) {
        const held = this.#watch?.heldError(name);
        if (held) throw redactError(held, this.#secrets());
        return this.#fail(
          started,
          "not_found",
          await this.#notFoundMessage(name),
        );
      }
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return this.#fail(
        started,
        "validation",
        `Input validation failed for tool "${name}": arguments must be an object of named arguments, got ${
          Array.isArray(args) ? "an array" : String(args)
        }`,
      );
    }
    // Compiled once per schema object; a refreshed list brings new objects.
    let validator = validatorFor(
      this.#validateArguments ? tool.inputSchema : ANY_ARGUMENTS,
    );
    if (validator instanceof Promise) {
      waited = true;
      // Building it (vetting the schema's patterns) is part of the call: its
      // deadlines hold, the idle one from now (a wait for the tool list was
      // a wait on a response), the total one from the start.
      const deadlineMs = Math.min(timeoutMs, totalTimeoutMs ?? timeoutMs);
      try {
        validator = await race(validator, {
          signal: options.signal,
          timeoutMs: Math.min(
            timeoutMs,
            (totalTimeoutMs ?? Infinity) - (performance.now() - started),
          ),
          onTimeout: () =>
            new MCPTimeoutError(
              `it ran past its deadline of ${deadlineMs} ms while its input schema was prepared for validation`,
              deadlineMs,
            ),
        });
      } catch (error) {
        return this.#failed(name, error, options.signal, started);
      }
    }
    // A resumed call's arguments went out with it; only their hash is kept.
    const problems = !resume && validator(args);
    if (problems) {
      return this.#fail(
        started,
        "validation",
        `Input validation failed for tool "${name}": ${problems.join("; ")}`,
      );
    }
    let result: Result;
    let tracked: Promise<Tracked> | undefined;
    const params = { name, arguments: args };
    const requestOptions = {
      timeoutMs,
      totalTimeoutMs,
      startedAt: started,
      signal: options.signal,
      onProgress: options.onProgress,
      trackProgress: true,
      onTaskStatus: options.onTaskStatus,
      onTaskCreated: resume
        ? undefined
        : (task: CreatedTask) =>
          tracked = this.#durable().then((tasks) =>
            tasks.track(task, params, requestOptions)
          ),
      trace,
      // Loaded by the tool listing of a modern HTTP connection.
      headers: paramHeaders && this.#connection.mirrorsParams
        ? paramHeaders.paramHeaderValues(tool.inputSchema, args)
        : undefined,
    };
    const taskSupport = tool.execution?.taskSupport;
    try {
      result = await (resume
        ? this.#connection.callTask({ name }, requestOptions, resume)
        : (taskSupport === "required" ||
            (taskSupport === "optional" && options.task === true)) &&
            this.#connection.acceptsToolTasks
        ? this.#connection.callTask(params, requestOptions)
        : this.#connection.request(
          "tools/call",
          params,
          requestOptions,
          // The clock was read at the start, and not since unless the call
          // waited (each read is an op on Deno).
          waited ? undefined : started,
        ));
    } catch (error) {
      // A task's handle goes, or stays for a resume when the call was cut off.
      if (tracked) await (await tracked).end(error);
      return this.#failed(name, error, options.signal, started);
    }
    // Only a call that became a task waits here: two awaits of nothing
    // would cost every other call two turns of the microtask queue.
    if (tracked) await (await tracked).end();
    if (result.isError === true) {
      return this.#fail(
        started,
        "server_error",
        `Tool "${name}" reported a server error: ${
          textOf(result) || "no details given"
        }`,
        result,
      );
    }
    // Nothing to check, and nothing spent, for a tool without an outputSchema.
    if (tool.outputSchema !== undefined && this.#validateOutput) {
      // Loaded with the first tool that declares an output schema; from
      // then on, and once its validator is compiled, checked without a wait.
      const check = outputCheck ??
        (outputCheck = await import("./protocol/output.ts"));
      let problem = check.outputProblem(tool.outputSchema, result);
      if (problem instanceof Promise) problem = await problem;
      if (problem !== undefined) {
        return this.#fail(
          started,
          "server_error",
          `Tool "${name}" ${problem}`,
          result,
        );
      }
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
      const title = tool.title ?? tool.annotations?.title;
      registered.push({
        name: `${namespace}/${toolName}`,
        description: tool.description,
        ...(typeof title === "string" ? { title } : {}),
        inputSchema: tool.inputSchema,
        ...(tool.execution ? { execution: tool.execution } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        ...(tool.ui ? { ui: tool.ui } : {}),
        capability: resolveCapability(toolName, resolveOptions),
        ...(tool.fingerprint ? { fingerprint: tool.fingerprint } : {}),
        checkpointable: false,
        source: "mcp",
        sourceMetadata: { server },
        invoke: (
          args?: Record<string, unknown>,
          invokeOptions?: InvokeOptions,
        ) => this.invoke(toolName, args, invokeOptions),
      });
    }
    registry.replaceNamespace(namespace, registered);
    return registered;
  }

  /**
   * Reads an MCP Apps UI resource (`resources/read`), for a host to render
   * in a sandboxed frame with the extension's own bridge (rendering is not
   * this library's job). Only `ui://` URIs are read; the answer must be
   * `text/html;profile=mcp-app` and at most `maxBytes`; its CSP, permission
   * and domain metadata are checked and bounded (what fails is left out,
   * with a note to `onError`).
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const [tool] = (await adapter.discoverTools()).filter((t) => t.ui?.resourceUri);
   * const app = await adapter.readUiResource(tool!.ui!.resourceUri!);
   * console.log(app.html.length, app.csp?.connectDomains ?? []);
   * ```
   *
   * @param uri A tool's `ui.resourceUri`.
   * @param options Size cap (default 8 MiB), deadline, cancellation.
   * @returns The HTML and its sandbox metadata.
   * @throws {MCPAdapterError} `invalid_argument` for a URI that is not
   * `ui://`; `invalid_response` for an answer that is not an app.
   * @throws {MCPNotConnectedError} Before `connect()`.
   * @throws {MCPProtocolError} When the server refuses the read.
   */
  async readUiResource(
    uri: string,
    options: ReadUiResourceOptions = {},
  ): Promise<MCPUiResource> {
    apps ??= await import("./apps/apps.ts");
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#requestTimeoutMs;
    return await apps.readUi(uri, {
      server: this.config.name,
      maxBytes: options.maxBytes ?? apps.DEFAULT_MAX_UI_BYTES,
      read: (uri) =>
        this.#connection.request("resources/read", { uri }, {
          timeoutMs,
          signal: options.signal,
        }),
      note: (message) => this.#note("invalid_ui_metadata", message),
    }).catch((error) => {
      throw redactError(error, this.#secrets());
    });
  }

  /**
   * Lists the server's resources (`resources/list`), following pagination
   * to the end, and caches them as the tool list is: until the server
   * announces a change (on a modern server, over a `subscriptions/listen`
   * opened now) or, on a modern server, its `ttlMs` runs out. Empty when
   * the server offers no resources. Each URI is checked; an entry that
   * fails is left out with a note to `onError`. See docs/resources.md.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * for (const resource of await adapter.listResources()) {
   *   console.log(resource.uri, resource.mimeType ?? "", resource.name);
   * }
   * ```
   *
   * @param options `refresh: true` lists again even when the cache is fresh.
   * @returns The resources.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPProtocolError} When the server refuses the request.
   * @throws {MCPAdapterError} `invalid_response` when its pagination is broken.
   */
  async listResources(
    options?: shapes.ListOptions,
  ): Promise<shapes.MCPResource[]> {
    return await (await this.#contentOf()).resources.list.listed(options);
  }

  /**
   * Lists the server's resource templates (`resources/templates/list`),
   * all pages, cached as `listResources()` is. Each template is parsed
   * (RFC 6570) and its `variables` named; one that does not parse, or
   * names no scheme, is left out with a note. Read one with
   * `readResource(uriTemplate, { variables })`.
   *
   * @param options `refresh: true` lists again even when the cache is fresh.
   * @returns The templates.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPProtocolError} When the server refuses the request.
   */
  async listResourceTemplates(
    options?: shapes.ListOptions,
  ): Promise<shapes.MCPResourceTemplate[]> {
    return await (await this.#contentOf()).resources.templates.listed(options);
  }

  /**
   * Reads a resource (`resources/read`): its text or base64 blob, the
   * text (UTF-8) and decoded blobs together at most `maxBytes` (default
   * 8 MiB), MIME types checked. With `options.variables`, `uri` is one of
   * the server's templates, expanded first: every variable given, none
   * unknown, and the expansion keeps the template's scheme and host.
   * Failures come back as `success: false` with an `errorKind`; only a
   * missing connection throws.
   *
   * @example Read a template's resource
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const read = await adapter.readResource("demo://resource/dynamic/text/{resourceId}", {
   *   variables: { resourceId: "3" },
   * });
   * if (read.success) console.log(read.data.contents[0]?.text);
   * else console.error(read.errorKind, read.error);
   * ```
   *
   * @param uri A resource's URI, or with `variables` a template's `uriTemplate`.
   * @param options Template variables, size cap, deadline, cancellation.
   * @returns The envelope, with the contents read.
   * @throws {MCPNotConnectedError} Before `connect()`, or when the connection dropped.
   * @throws {MCPConfigError} When `timeoutMs` or `maxBytes` is not a positive number.
   */
  async readResource(
    uri: string,
    options?: shapes.ReadResourceOptions,
  ): Promise<shapes.MCPOutcome<shapes.MCPResourceRead>> {
    return await (await this.#contentOf()).resources.read(uri, options);
  }

  /**
   * Follows a resource's changes, on either protocol era: a 2025-era
   * server is asked with `resources/subscribe`; a modern one with
   * `subscriptions/listen` (`resourceSubscriptions`). `listener` gets the
   * URI each time the server says it changed, and after a reconnect (a
   * change may have been missed): read it again then. Subscriptions last
   * across reconnects, until the returned function is called.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const stop = await adapter.subscribeResource("file:///notes.md", async (uri) => {
   *   const read = await adapter.readResource(uri);
   *   if (read.success) console.log(read.data.contents[0]?.text);
   * });
   * await stop();
   * ```
   *
   * @param uri The resource's URI.
   * @param listener Called with the URI; what it throws goes to `options.onError`.
   * @param options Deadline of the server's agreement, in ms.
   * @returns Stops following (the server is told when nothing else follows it).
   * @throws {MCPAdapterError} `not_supported` when the server offers no
   * resource subscriptions or will not follow this URI; `invalid_argument`
   * for a URI that is not one.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   */
  async subscribeResource(
    uri: string,
    listener: (uri: string) => void,
    options?: { timeoutMs?: number },
  ): Promise<() => Promise<void>> {
    return await (await this.#contentOf()).subscribe(uri, listener, options);
  }

  /**
   * Calls `listener` when the server's resources (and templates) or
   * prompts may have changed: it announced it, or it forgot our session.
   * The cached list is already forgotten. Changes are followed for the
   * lists listed so far (a modern server is asked to announce them when
   * they are first listed).
   *
   * @param listener Called with `"resources"` or `"prompts"`; what it throws goes to `options.onError`.
   * @returns A function that removes the listener.
   */
  onListChanged(listener: (list: shapes.MCPListKind) => void): () => void {
    this.#listListeners.add(listener);
    return () => this.#listListeners.delete(listener);
  }

  /**
   * Lists the server's prompts (`prompts/list`), all pages, cached as
   * `listResources()` is. Empty when the server offers no prompts.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * for (const prompt of await adapter.listPrompts()) {
   *   console.log(prompt.name, prompt.arguments.map((a) => a.required ? a.name : `[${a.name}]`));
   * }
   * ```
   *
   * @param options `refresh: true` lists again even when the cache is fresh.
   * @returns The prompts, each with its arguments.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   * @throws {MCPProtocolError} When the server refuses the request.
   */
  async listPrompts(options?: shapes.ListOptions): Promise<shapes.MCPPrompt[]> {
    return await (await this.#contentOf()).prompts.list.listed(options);
  }

  /**
   * Gets a prompt's messages (`prompts/get`). The arguments are checked
   * against the listed prompt first, as a tool's are against its schema:
   * strings only, none unknown, every required one given; a call that
   * fails the check never reaches the server. Each message is typed (a
   * role, and a text, image, audio, resource link or embedded resource).
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const prompt = await adapter.getPrompt("args-prompt", { city: "Paris" });
   * if (prompt.success) for (const { role, content } of prompt.data.messages) console.log(role, content.type);
   * ```
   *
   * @param name The prompt's name, as `listPrompts()` gives it.
   * @param args Its arguments, each a string.
   * @param options Deadline and cancellation.
   * @returns The envelope, with the messages.
   * @throws {MCPNotConnectedError} Before `connect()`, or when the connection dropped.
   */
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: shapes.PromptOptions,
  ): Promise<shapes.MCPOutcome<shapes.MCPPromptMessages>> {
    return await (await this.#contentOf()).prompts.get(name, args, options);
  }

  /**
   * Suggests values for a prompt's argument or a resource template's
   * variable (`completion/complete`), checked first against the listed
   * prompt or template. At most 100 values come back.
   *
   * @example
   * ```ts ignore
   * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
   *
   * declare const adapter: MCPToolAdapter;
   * const done = await adapter.complete(
   *   { type: "ref/prompt", name: "completable-prompt" },
   *   { name: "department", value: "En" },
   * );
   * if (done.success) console.log(done.data.values); // ["Engineering"]
   * ```
   *
   * @param ref The prompt (`ref/prompt`) or template (`ref/resource`, its `uriTemplate`).
   * @param argument The argument's name and the value typed so far.
   * @param options Other arguments' values (`context`), deadline, cancellation.
   * @returns The envelope, with the suggestions.
   * @throws {MCPNotConnectedError} Before `connect()`, or when the connection dropped.
   */
  async complete(
    ref: shapes.MCPCompletionRef,
    argument: { name: string; value: string },
    options?: shapes.CompleteOptions,
  ): Promise<shapes.MCPOutcome<shapes.MCPCompletion>> {
    return await (await this.#contentOf()).prompts.complete(
      ref,
      argument,
      options,
    );
  }

  #contentOf(): Promise<Content> {
    return this.#content ??= import("./adapter/content.ts").then(
      ({ Content }) =>
        new Content({
          connection: this.#connection,
          server: this.config.name,
          requestTimeoutMs: this.#requestTimeoutMs,
          secrets: () => this.#secrets(),
          onError: this.#onError,
          listChanged: (kind) => this.#tell(this.#listListeners, kind),
        }),
    );
  }

  async #lookUp(name: string): Promise<MCPToolDescriptor | undefined> {
    await this.#connection.whenReady("invoke");
    return await this.#findTool(name);
  }

  /** The envelope of a failed call, its message redacted. */
  #fail(
    started: number,
    errorKind: MCPErrorKind,
    error: string,
    data: Record<string, unknown> = {},
  ): MCPToolResult {
    return {
      success: false,
      data,
      error: redact(error, this.#secrets()),
      errorKind,
      durationMs: performance.now() - started,
    };
  }

  /** The result envelope for a failed call; only a missing connection throws. */
  #failed(
    name: string,
    error: unknown,
    signal: AbortSignal | undefined,
    started: number,
  ): MCPToolResult {
    const fail = (kind: MCPErrorKind, message: string) =>
      this.#fail(started, kind, message);
    if (
      error instanceof MCPNotConnectedError ||
      error instanceof MCPAuthorizationRequiredError
    ) {
      throw redactError(error, this.#secrets());
    }
    if (error instanceof MCPTimeoutError) {
      return fail(
        "timeout",
        `Tool "${name}" timeout: ${error.message}. Raise timeoutMs or totalTimeoutMs if the tool needs longer.`,
      );
    }
    if (error instanceof MCPProtocolError) {
      const { kind, hint } = protocolErrorKind(error);
      return fail(
        kind,
        `Tool "${name}" failed with a server error: ${error.message} (code ${error.rpcCode})${hint}`,
      );
    }
    if (error instanceof MCPAdapterError && error.code === "invalid_response") {
      return fail(
        "server_error",
        `Tool "${name}" failed with a server error: ${error.message}`,
      );
    }
    if (error instanceof MCPAdapterError && error.code === "input_required") {
      return fail("server_error", `Tool "${name}" failed: ${error.message}`);
    }
    if (signal?.aborted) {
      return fail(
        "cancelled",
        `Tool "${name}" was cancelled: ${describeReason(signal.reason)}`,
      );
    }
    if (error instanceof MCPAdapterError && error.code === "task_cancelled") {
      return fail("cancelled", `Tool "${name}": ${error.message}`);
    }
    return fail(
      "connection",
      `Tool "${name}" could not be called: ${errorMessage(error)}`,
    );
  }

  /** Tells the tools listeners, or with `drift` the drift listeners. */
  #notifyToolsChanged(): void {
    this.#tell(this.#toolsListeners, undefined);
  }

  /** Calls each listener with `value`; what one throws goes to `onError`. */
  #tell<T>(listeners: Iterable<(value: T) => void>, value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        this.#onError?.(asError(error));
      }
    }
  }

  /**
   * The tool watch, made by its first reader (its module loads lazily): the
   * one way to reach it where it must exist, so nothing reads it before.
   */
  async #toolWatch(): Promise<ToolWatch> {
    watching ??= await import("./tools/watch.ts");
    return this.#watch ??= new watching.ToolWatch(
      this.config.name,
      this.#pinning,
      (drift) => this.#tell(this.#driftListeners, drift),
    );
  }

  /** The tool list (cached or fetched), its errors redacted: for the methods that throw them. */
  #listedTools(): Promise<Map<string, MCPToolDescriptor>> {
    return this.#toolMap(false).catch((error) => {
      throw redactError(error, this.#secrets());
    });
  }

  /** Tells `onError` about something a server sent that was set aside; the text redacted. */
  #note(code: "invalid_tool" | "invalid_ui_metadata", message: string): void {
    this.#onError?.(
      new MCPAdapterError(
        code,
        redact(`MCP server "${this.config.name}": ${message}`, this.#secrets()),
      ),
    );
  }

  /**
   * Forgets the tool list (its validators go with its schema objects). A list
   * being fetched right now may predate the change, so it is not kept either
   * (the generation moves); it is not abandoned, so a flood of changes
   * cannot start a listing each.
   */
  #invalidateTools(): void {
    this.#tools = undefined;
    this.#toolsGeneration++;
  }

  /** The server's whole tool list, fetched when stale (or always, with `refresh`). */
  async #toolMap(refresh: boolean): Promise<Map<string, MCPToolDescriptor>> {
    await this.#connection.whenReady("list tools");
    if (
      !refresh && this.#tools && performance.now() < this.#toolsFreshUntil
    ) return this.#tools;
    return await this.#listing();
  }

  /**
   * A listing newer than the last change: the one in flight, or, when that
   * one predates a change, one more after it, shared by every caller until
   * it starts. At most one listing is in flight and one queued, however
   * often the server announces changes.
   */
  #listing(): Promise<Map<string, MCPToolDescriptor>> {
    const running = this.#refreshing;
    if (running?.generation === this.#toolsGeneration) return running.tools;
    if (running !== undefined) {
      return this.#queued ??= running.tools.then(noop, noop).then(() => {
        this.#queued = undefined;
        return this.#listing();
      });
    }
    const refreshing = {
      tools: this.#fetchTools().finally(() => {
        if (this.#refreshing === refreshing) this.#refreshing = undefined;
      }),
      generation: this.#toolsGeneration,
    };
    this.#refreshing = refreshing;
    return refreshing.tools;
  }

  /**
   * Lists every page. A list fetched across a change (reconnect, renewed
   * session, list_changed) is returned but not cached: the generation moved.
   * A modern server's pages say how long they stay fresh (the shortest
   * `ttlMs` counts, at most a day) and whether they are the user's own
   * (any page not `cacheScope: "public"`).
   */
  async #fetchTools(): Promise<Map<string, MCPToolDescriptor>> {
    const generation = this.#toolsGeneration;
    // Every page has the request deadline, and so has the whole listing: a
    // server paging slowly forever cannot keep discoverTools() waiting.
    // The pager and the tools' reader load with the first listing.
    const { listAllTools } = await import("./protocol/tool_list.ts");
    const startedAt = performance.now();
    const { tools, hints } = await listAllTools(
      (cursor) =>
        this.#connection.request(
          "tools/list",
          cursor === undefined ? undefined : { cursor },
          {
            timeoutMs: this.#requestTimeoutMs,
            totalTimeoutMs: this.#requestTimeoutMs,
            startedAt,
          },
        ),
      this.config.name,
      this.#connection.serverInfo?.era === "modern",
    );
    // MCP Apps metadata rides in `_meta`: its reader loads with the first tool that has one.
    for (const tool of tools.values()) {
      if (tool._meta === undefined) continue;
      apps ??= await import("./apps/apps.ts");
      apps.attachUi(
        tools.values(),
        (message) => this.#note("invalid_tool", message),
      );
      break;
    }
    if (this.#connection.mirrorsParams) {
      paramHeaders ??= await import("./protocol/param_headers.ts");
      this.#dropInvalidHeaders(tools, paramHeaders.headerProblem);
    }
    await (await this.#toolWatch()).update(tools);
    if (this.#toolsGeneration === generation) {
      this.#tools = tools;
      this.#toolsFreshUntil = startedAt + hints.ttlMs;
      this.#toolsPrivate = hints.personal;
    }
    return tools;
  }

  /**
   * Leaves out the tools whose `x-mcp-header` annotations break the rules
   * of MCP 2026-07-28 (a client on HTTP must not call them), each with a
   * note to `onError`.
   */
  #dropInvalidHeaders(
    tools: Map<string, MCPToolDescriptor>,
    headerProblem: (schema: JsonSchema) => string | undefined,
  ): void {
    for (const [name, tool] of tools) {
      const problem = headerProblem(tool.inputSchema);
      if (problem === undefined) continue;
      tools.delete(name);
      this.#note(
        "invalid_tool",
        `tool ${
          JSON.stringify(name.slice(0, 80))
        } is left out of the tool list: its input schema's ${problem}. Report this to the server's maintainers.`,
      );
    }
  }

  /** Finds an exposed tool, refreshing a stale or missing list once. */
  async #findTool(name: string): Promise<MCPToolDescriptor | undefined> {
    const cached = this.#tools && this.#exposed(this.#tools, name);
    // A tool held back in a fresh list stays held: no need to list again.
    if (cached || (this.#tools && this.#watch?.holds(name))) return cached;
    return this.#exposed(await this.#toolMap(true), name);
  }

  /** The tool of that name in `tools`, if the filter lets it through. */
  #exposed(
    tools: Map<string, MCPToolDescriptor>,
    name: string,
  ): MCPToolDescriptor | undefined {
    const tool = tools.get(name);
    return tool && (!this.#filter || this.#filter(name)) ? tool : undefined;
  }

  /** Says what the server has instead; the suggestions load on this failure path only. */
  async #notFoundMessage(name: string): Promise<string> {
    const { didYouMean } = await import("./util/closest.ts");
    const names = [...(this.#tools?.keys() ?? [])].filter((tool) =>
      !this.#filter || this.#filter(tool)
    );
    const listed = names.length === 0
      ? "it exposes no tools"
      : `available: ${names.slice(0, 20).join(", ")}${
        names.length > 20 ? ", …" : ""
      }`;
    return `Tool "${name}" not found on MCP server "${this.config.name}"${
      didYouMean(name, names)
    } (${listed}); check the name or the filter`;
  }
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

function describeReason(reason: unknown): string {
  return reason instanceof Error
    ? reason.message
    : reason === undefined
    ? "aborted"
    : String(reason);
}
