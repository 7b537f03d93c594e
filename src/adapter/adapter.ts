/**
 * `MCPToolAdapter`: one MCP server's tools — discovery and its cache,
 * validated invocation with deadlines, and registry integration — on top of
 * a {@linkcode Connection}.
 *
 * @module
 */

import { inferCapabilities } from "../tools/capabilities.ts";
import {
  type MCPServerConfig,
  type MCPTransportKind,
  validateServerConfig,
} from "../server_config.ts";
import type {
  Connection,
  ConnectOptions,
  MCPServerInfo,
  TransportFactory,
} from "../protocol/connection.ts";
import type { MCPProtocolEra } from "../protocol/era.ts";
import type * as shapes from "../protocol/content_types.ts";
import { MCPAdapterError } from "../errors.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import type { PinnedTools } from "../tools/fingerprint.ts";
import type { ToolDrift } from "../tools/drift.ts";
import type { TaskHandle, TaskStore } from "../tasks/store.ts";
import type { MCPAuthorizationCallback } from "../transports/transport.ts";
import type {
  InvokeOptions,
  MCPLogLevel,
  MCPToolDescriptor,
  MCPToolFilter,
  MCPToolResult,
  MCPUiResource,
  ReadUiResourceOptions,
  ToolCapability,
} from "../types.ts";
import { asError } from "../util/caught.ts";
import { lazy } from "../util/lazy.ts";
import { configSecrets, redact, redactError } from "../util/redact.ts";
import { checkTimeoutMs } from "../util/time.ts";
import { type Caller, invoke, runCall } from "./_invoke.ts";
import { ServerTools } from "./_tools.ts";
import type { Content } from "./content.ts";
import {
  connectionOf,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type MCPToolAdapterOptions,
  type RegisterToolsOptions,
  type ResumeTaskOptions,
} from "./options.ts";

export type {
  ConnectOptions,
  InvokeOptions,
  MCPProtocolEra,
  MCPServerInfo,
  MCPToolAdapterOptions,
  RegisterToolsOptions,
  ResumeTaskOptions,
  TransportFactory,
};
export { DEFAULT_REQUEST_TIMEOUT_MS };
// The option types of the adapter, for the layers above it (the hub, the CLI),
// which never reach the protocol or the transports themselves.
export type {
  ClientHandlers,
  ElicitationRequest,
  ElicitationResult,
} from "../protocol/handlers.ts";
export type { OAuthClientProviderLike } from "../auth/provider.ts";

/** The options of a call given none: one object, read and never written. */
const NO_OPTIONS: InvokeOptions = Object.freeze({});
/** Durable tasks, loaded by the first task (or task store method). */
const durable = lazy(() => import("../tasks/durable.ts"));
/** Resources, prompts and completion, loaded by the first use of one. */
const content = lazy(() => import("./content.ts"));
/** MCP Apps, loaded by the first `readUiResource()`. */
const apps = lazy(() => import("../apps/apps.ts"));

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
  /** The server's tools: the list, its freshness, the filter, the pins. */
  readonly #tools: ServerTools;
  /** What the stages of a call read (`_invoke.ts`). */
  readonly #caller: Caller;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #requestTimeoutMs: number;
  readonly #taskStore: TaskStore | undefined;
  /** Values of `config.env` and `config.headers`, kept out of every message. */
  readonly #configSecrets: string[];

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
    this.#taskStore = options.taskStore;
    this.#configSecrets = configSecrets(this.config);
    const onError = options.onError;
    this.#onError = onError &&
      ((error) => onError(redactError(error, this.#secrets())));
    this.#connection = connectionOf(this.config, options, {
      onError: this.#onError,
      secrets: this.#configSecrets,
      onToolsChanged: (reason) => {
        this.#tools.sessionChanged(reason);
        void this.#content?.then((content) => content.sessionChanged(reason));
      },
      onNotice: (notice) =>
        void this.#content?.then((content) => content.notice(notice)),
    });
    this.#tools = new ServerTools({
      connection: this.#connection,
      server: this.config.name,
      requestTimeoutMs: this.#requestTimeoutMs,
      pinning: { pins: options.pins, holdNewTools: options.holdNewTools },
      secrets: () => this.#secrets(),
      note: (message) => this.#note("invalid_tool", message),
      onError: this.#onError,
    });
    this.#caller = {
      connection: this.#connection,
      tools: this.#tools,
      server: this.config.name,
      requestTimeoutMs: this.#requestTimeoutMs,
      validateArguments: options.validateArguments !== false,
      validateOutput: options.validateOutput !== false,
      secrets: () => this.#secrets(),
      durable: () => this.#durable(),
    };
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
    this.#tools.loggedIn();
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
    return this.#tools.onChanged(listener);
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
    return this.#tools.onDrift(listener);
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
  compareTools(pins?: PinnedTools): Promise<ToolDrift> {
    return this.#tools.compare(pins);
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
  acceptToolChanges(
    accepted?: readonly string[] | ToolDrift,
  ): Promise<PinnedTools> {
    return this.#tools.accept(accepted);
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
  discoverTools(filter?: MCPToolFilter): Promise<MCPToolDescriptor[]> {
    return this.#tools.discover(filter);
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
    options: InvokeOptions = NO_OPTIONS,
  ): Promise<MCPToolResult> {
    return invoke(this.#caller, { name, args, options });
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
          runCall(this.#caller, {
            name: tool,
            args: {},
            options: { ...options, totalTimeoutMs },
            trace: 0,
            resume: created,
          }),
      )
    );
  }

  #durable() {
    return durable.load().then((module) =>
      module.durableOf(this, this.#taskStore, this.#onError)
    );
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
    const registered = await this.#tools.entries(
      namespace,
      options.overrides,
      (name, args, invokeOptions) => this.invoke(name, args, invokeOptions),
    );
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
    const { readUi, DEFAULT_MAX_UI_BYTES } = await apps.load();
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#requestTimeoutMs;
    return await readUi(uri, {
      server: this.config.name,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_UI_BYTES,
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
    return this.#content ??= content.load().then(
      ({ Content }) =>
        new Content({
          connection: this.#connection,
          server: this.config.name,
          requestTimeoutMs: this.#requestTimeoutMs,
          secrets: () => this.#secrets(),
          onError: this.#onError,
          listChanged: (kind) => this.#tellListChanged(kind),
        }),
    );
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

  /** Tells the `onListChanged` listeners; what one throws goes to `onError`. */
  #tellListChanged(kind: shapes.MCPListKind): void {
    for (const listener of this.#listListeners) {
      try {
        listener(kind);
      } catch (error) {
        this.#onError?.(asError(error));
      }
    }
  }
}
