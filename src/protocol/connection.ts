/**
 * One connection to an MCP server: starting the transport, the `initialize`
 * handshake and version negotiation, one transition (connect, reconnect,
 * disconnect) at a time, a dropped connection, and re-initializing when a
 * remote server forgot our session. The adapter builds on it; it knows
 * nothing about tools.
 *
 * @module
 */

import type { MCPServerConfig, MCPTransportKind } from "../server_config.ts";
import {
  MCPConfigError,
  MCPConnectionError,
  MCPInitializeStatusError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPRequestLostError,
  MCPSessionExpiredError,
  MCPTimeoutError,
} from "../errors.ts";
import {
  answers,
  clientCapabilities,
  type ClientHandlers,
} from "./handlers.ts";
import {
  type PendingRequest,
  type RequestOptions,
  type Result,
  Session,
} from "./session.ts";
import type { TaskCallOptions } from "./tasks/watch.ts";
import type { ToolList } from "./tool_list.ts";

export type { MCPServerInfo, ToolList };
import type { ListenOptions, Subscription } from "./_listen.ts";

export type {
  ListenOptions,
  Subscription,
  SubscriptionFilter,
} from "./_listen.ts";
import type {
  JSONRPCNotification,
  JSONRPCRequest,
  MCPAuthorizationCallback,
  MCPTransport,
} from "../transports/transport.ts";
import {
  createTransport,
  type TransportOptions,
} from "../transports/create.ts";
import {
  mergeSecrets,
  quotedValue,
  redact,
  redactError,
} from "../util/redact.ts";
import { asError, errorMessage } from "../util/caught.ts";
import { checkTimeoutMs, race, timerMs } from "../util/time.ts";
import { isRecord } from "../util/values.ts";
import { SerialQueue } from "../util/serial_queue.ts";
import type {
  MCPLogHandler,
  MCPLogLevel,
  MCPToolDescriptor,
} from "../types.ts";
import { lazy } from "../util/lazy.ts";
import { type ConnectionTelemetry, loadTelemetry } from "../telemetry/hook.ts";
import type { MCPTelemetryOptions } from "../telemetry/types.ts";
import {
  envelope,
  type MCPServerInfo,
  META_SUBSCRIPTION_ID,
  modernCapabilities,
  type ProtocolPlan,
  protocolPlan,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./era.ts";

/**
 * How long a stdio server may stay silent on `server/discover` before it is
 * taken for a 2025-era server (which may ignore a request before
 * `initialize`). A modern-only server slower than this to start needs
 * `protocol: "modern"`.
 */
const STDIO_PROBE_MS = 3000;
/**
 * How long an HTTP server may take to answer `server/discover` before a
 * server that fumbles the probe (a stalled stream) is tried with
 * `initialize`: at most half the connect deadline.
 */
const HTTP_PROBE_MS = 10_000;
/**
 * How long `connect()` waits for a modern server to acknowledge the
 * tool-list subscription: long enough for any server that answers, short
 * enough that a proxy buffering the listen stream costs one second, once.
 */
const LISTEN_ACK_MS = 1000;
/** The most input rounds one modern request may take (the SDK's default). */
const MAX_INPUT_ROUNDS = 10;

/**
 * Endpoints found to speak only the 2025 era, by URL: the next connection
 * runs `initialize` at once. Forgotten when that fails.
 */
const legacyEndpoints = new Set<string>();

/** The pager and the tools' reader, loaded by the first listing. */
const toolList = lazy(() => import("./tool_list.ts"));
/** The `x-mcp-header` rules, loaded by the first tool listing over modern HTTP. */
const paramHeaders = lazy(() => import("./param_headers.ts"));

/** Log messages and levels, loaded by a connection with `onLog` or the first `setLogLevel()`. */
const logging = lazy(() => import("./_logging.ts"));

/** Thrown inside a handshake: the stdio server exited on the probe. */
class RestartForHandshake extends Error {}

/** Makes a fresh transport for each connection attempt. */
export type TransportFactory = () => MCPTransport | Promise<MCPTransport>;

/** Options of `connect()` and `reconnect()`. */
export interface ConnectOptions {
  /** Deadline for starting the server and the handshake, in ms. */
  timeoutMs?: number;
  /** Aborts the attempt. */
  signal?: AbortSignal;
}

/** How a tool is called: `invoke()`'s request options, and the task it may be or resume. */
export interface ToolCallOptions extends TaskCallOptions {
  /** Ask for a task when the tool allows one (`taskSupport: "optional"`). */
  task?: boolean | undefined;
  /** The answer that created a task earlier: follow that task instead of calling. */
  resume?: Result | undefined;
}

/** Why a tool list may have changed: our own connect/close, or the server's doing. */
export type ToolsChangeReason =
  | "connected"
  | "closed"
  | "renewed"
  | "list_changed";

/** What a {@linkcode Connection} is built from. */
export interface ConnectionOptions {
  config: MCPServerConfig;
  transport: MCPTransport | TransportFactory | undefined;
  clientInfo: { name: string; version: string };
  connectTimeoutMs: number;
  remote: TransportOptions;
  handlers: ClientHandlers | undefined;
  /** Extensions the client declares besides tasks (`capabilities.extensions`). */
  extensions?: Record<string, unknown> | undefined;
  onError: ((error: Error) => void) | undefined;
  /** Values kept out of every message. */
  secrets: readonly string[];
  /** The server's tool list may have changed, and why. */
  onToolsChanged: (reason: ToolsChangeReason) => void;
  /** Receives the server's log messages; without it they are dropped. */
  onLog?: MCPLogHandler | undefined;
  /** OpenTelemetry settings; `false` turns telemetry off. */
  telemetry?: MCPTelemetryOptions | false | undefined;
  /** Notifications the connection does not handle itself (resources, prompts). */
  onNotice?: ((notification: JSONRPCNotification) => void) | undefined;
}

/** The lifecycle of one server connection. */
export class Connection {
  readonly #options: ConnectionOptions;
  #session: Session | undefined;
  #server: MCPServerInfo | undefined;
  #kind: MCPTransportKind | "custom" | undefined;
  #lostError: MCPNotConnectedError | undefined;
  /**
   * connect, reconnect and disconnect run one after another, in call order;
   * requests wait while any is queued or running.
   */
  readonly #transitions = new SerialQueue();
  /** A connect queued or running, shared by concurrent `connect()` calls. */
  #pendingConnect: Promise<void> | undefined;
  /** Moved by `disconnect()`: a connect or reconnect queued before it does not open. */
  #generation = 0;
  #connectAbort: AbortController | undefined;
  /** A re-initialization after the remote session expired. */
  #renewing: Promise<void> | undefined;
  /** The level last asked for with `setLogLevel()`; every new session is told. */
  #logLevel: MCPLogLevel | undefined;
  /** Counts re-initializations: a task id is not carried into a renewed session. */
  #renewals = 0;
  /** Which revisions the `protocol` choice allows. */
  readonly #plan: ProtocolPlan;
  /** A stdio server of this connection was found to speak the 2025 era. */
  #legacyProcess = false;
  /** The modern session's `subscriptions/listen`s: tool-list changes, and those of `listen()`. */
  readonly #listens = new Set<Subscription>();
  /**
   * Task calls in progress: told each `notifications/tasks/status`, and
   * `undefined` when their session ends or is renewed.
   */
  /** Spans and metrics, once loaded (`undefined` while telemetry is off). */
  #telemetry: ConnectionTelemetry | undefined;
  #merged: { learned: readonly string[]; all: readonly string[] } | undefined;
  readonly #taskListeners = new Set<
    (status: Record<string, unknown> | undefined) => void
  >();

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#plan = protocolPlan(
      options.config.protocol,
      options.config.transport,
    );
  }

  /**
   * What no message, log or trace may contain: the config's secrets and
   * what the live transport learned (OAuth tokens a server might echo
   * back), longest first; merged again only when the transport learns.
   */
  get secrets(): readonly string[] {
    const learned = this.#session?.secrets;
    if (learned === undefined || learned.length === 0) {
      return this.#options.secrets;
    }
    if (this.#merged?.learned !== learned) {
      this.#merged = {
        learned,
        all: mergeSecrets(this.#options.secrets, learned),
      };
    }
    return this.#merged.all;
  }

  /** The connection's telemetry, when it is on. */
  get telemetry(): ConnectionTelemetry | undefined {
    return this.#telemetry;
  }

  /** Whether a connection is established and alive. */
  get connected(): boolean {
    return this.#session !== undefined && !this.#session.closed;
  }

  /** What the server said in `initialize`. */
  get serverInfo(): Readonly<MCPServerInfo> | undefined {
    return this.#server;
  }

  /**
   * Whether requests go over modern streamable HTTP, where tools' `x-mcp-header`
   * parameters are mirrored into `Mcp-Param-*` headers.
   */
  get #mirrorsParams(): boolean {
    return this.#server?.era === "modern" && this.#kind === "streamable-http";
  }

  /** The transport of the last connection: the configured one, `"sse"` after a fallback, or `"custom"`. */
  get transportKind(): MCPTransportKind | "custom" | undefined {
    return this.#kind;
  }

  /** Connects unless connected; concurrent calls share one attempt. */
  connect(options: ConnectOptions): Promise<void> {
    if (this.#transitions.pending === 0 && this.connected) {
      return Promise.resolve();
    }
    if (this.#pendingConnect) return this.#pendingConnect;
    const generation = this.#generation;
    const connecting = this.#transitions.run(async () => {
      if (this.connected) return;
      this.#checkNotCancelled(generation);
      // A lost session's transport may still be stopping its server.
      if (this.#session) await this.#close();
      await this.#open(options);
    });
    this.#pendingConnect = connecting;
    const clear = () => {
      if (this.#pendingConnect === connecting) this.#pendingConnect = undefined;
    };
    connecting.then(clear, clear);
    return connecting;
  }

  /**
   * Cancels a connect in progress (and any queued after it), then closes.
   * From the moment it is called, `connect()` starts anew. Idempotent.
   */
  disconnect(): Promise<void> {
    this.#generation++;
    this.#pendingConnect = undefined;
    this.#connectAbort?.abort(this.#cancelledError());
    return this.#transitions.run(() => this.#close());
  }

  /** Closes and connects again, as one transition. */
  reconnect(options: ConnectOptions): Promise<void> {
    const generation = this.#generation;
    return this.#transitions.run(async () => {
      await this.#close();
      this.#checkNotCancelled(generation);
      await this.#open(options);
    });
  }

  /**
   * Completes an OAuth authorization-code login on the live session's
   * transport, else on a new transport (closed again afterwards; transports
   * of one provider and URL share what the server's challenge said). The
   * session and the tool list are untouched: requests carry the new token.
   *
   * @throws {MCPConfigError} When the transport has no OAuth login.
   */
  async finishAuth(callback: MCPAuthorizationCallback): Promise<void> {
    const live = this.connected ? this.#session : undefined;
    const fresh = live ? undefined : await this.#createTransport();
    try {
      const finishing = live
        ? live.finishAuth(callback)
        : fresh!.finishAuth?.(callback);
      if (finishing === undefined) {
        throw new MCPConfigError(
          "authProvider",
          `MCP server "${this.#name}" has no OAuth login to finish: give it an authProvider`,
        );
      }
      await finishing;
    } finally {
      await fresh?.close().catch(() => {});
    }
  }

  /** Whether requests can go out right now: connected, and no transition under way. */
  get ready(): boolean {
    return this.#transitions.pending === 0 && this.connected;
  }

  /**
   * Resolves once any transition in progress has settled and the
   * connection is live.
   *
   * @param operation Names what waits, for the error message.
   * @throws {MCPNotConnectedError} Before `connect()` or after the connection dropped.
   */
  async whenReady(operation: string): Promise<void> {
    while (this.#transitions.pending > 0) await this.#transitions.idle;
    this.#live(operation);
  }

  /**
   * Sends a request over the live session (after any transition in
   * progress); when the remote session expired, re-initializes once and
   * sends it again.
   *
   * @throws {MCPNotConnectedError} When not connected, or the connection is lost meanwhile.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: TaskCallOptions,
    now?: number,
  ): Promise<Result> {
    const plain = this.#plain;
    if (plain !== undefined) return plain.request(method, params, options, now);
    if (this.#transitions.pending > 0) {
      // Sent after the wait: the caller's clock reading is old by then.
      return this.whenReady(method).then(() =>
        this.request(method, params, options)
      );
    }
    let session: Session;
    try {
      session = this.#live(method);
    } catch (error) {
      return Promise.reject(error);
    }
    const sent = session.request(method, params, options, now);
    if (session.envelope !== undefined) {
      const final = (result: Result) =>
        result.resultType === undefined || result.resultType === "complete"
          ? result
          : this.#notComplete(session, method, params, options, result);
      return sent.then(final, (error) => {
        // A modern request whose response was lost in transit is sent again
        // under a new id, once: modern servers keep no stream to resume.
        if (!(error instanceof MCPRequestLostError) || session.closed) {
          throw error;
        }
        return session.request(method, params, options).then(final);
      });
    }
    // A live 2025-era session here has a session id (else it is plain):
    // the server may find it expired.
    return sent.catch((error) =>
      this.#retryExpired(session, error, method, params, options)
    );
  }

  /**
   * The live session, when nothing can follow a response to a request sent
   * now: no transition under way, the 2025 era (no modern results to
   * settle, no lost response to send again), no session id to expire. Its
   * answers go to the caller as they are.
   */
  get #plain(): Session | undefined {
    const session = this.#session;
    return this.#transitions.pending === 0 && session !== undefined &&
        !session.closed && session.envelope === undefined &&
        session.sessionId === undefined
      ? session
      : undefined;
  }

  /**
   * Sends a request as {@linkcode Connection.prototype.request} does, its
   * outcome to `pending`. Over a plain session (see `#plain`) `pending`
   * goes straight to the session's {@linkcode Session.prototype.dispatch}:
   * no promise per request.
   */
  dispatch(
    method: string,
    params: Record<string, unknown> | undefined,
    options: TaskCallOptions,
    pending: PendingRequest,
    now?: number,
  ): void {
    const plain = this.#plain;
    if (plain !== undefined) {
      plain.dispatch(method, params, options, pending, now);
    } else settle(this.request(method, params, options, now), pending);
  }

  /**
   * A modern result that is not final (`_input.ts` says what it becomes):
   * input the server asks for, or a task.
   */
  async #notComplete(
    session: Session,
    method: string,
    params: Record<string, unknown> | undefined,
    options: TaskCallOptions,
    result: Result,
  ): Promise<Result> {
    const { settle } = await import("./_input.ts");
    return await settle(
      {
        session,
        handlers: this.#options.handlers,
        label: this.#name,
        secrets: this.secrets,
        maxRounds: MAX_INPUT_ROUNDS,
        request: (method, params, options) =>
          this.request(method, params, options),
      },
      method,
      params ?? {},
      options,
      result,
    );
  }

  /** The live session, or the error that says why there is none. */
  #live(operation: string): Session {
    const session = this.#session;
    if (session && !session.closed) return session;
    throw this.#lostError ??
      new MCPNotConnectedError(
        `Cannot ${operation}: MCP server "${this.#name}" is not connected; call connect() first`,
      );
  }

  /**
   * Rethrows `error`, unless it says the server forgot the session: then
   * re-initializes and sends the request once more.
   */
  async #retryExpired(
    session: Session,
    error: unknown,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Result> {
    if (!(error instanceof MCPSessionExpiredError) || session.closed) {
      throw error;
    }
    await this.#renew(session);
    return await session.request(method, params, options);
  }

  get #name(): string {
    return this.#options.config.name;
  }

  #checkNotCancelled(generation: number): void {
    if (generation !== this.#generation) throw this.#cancelledError();
  }

  #cancelledError(): MCPConnectionError {
    return new MCPConnectionError(
      `Connecting to MCP server "${this.#name}" was cancelled by disconnect()`,
    );
  }

  async #open(options: ConnectOptions): Promise<void> {
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#options.connectTimeoutMs;
    const abort = new AbortController();
    this.#connectAbort = abort;
    const name = this.#name;
    const onAbort = () => abort.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      // Worded by _connect_error.ts, with what was seen of the server.
      () => abort.abort(new MCPTimeoutError("connect", timeoutMs)),
      timerMs(timeoutMs),
    );
    let session: Session | undefined;
    try {
      if (options.signal?.aborted) throw options.signal.reason;
      if (this.#options.onLog) await logging.load();
      this.#telemetry ??= await loadTelemetry(this.#options.telemetry)
        ?.then((telemetry) =>
          telemetry.connection(this.#options.config, () => this.secrets)
        );
      const creating = this.#createTransport();
      const transport = await race(creating, { signal: abort.signal }).catch(
        (error) => {
          // A factory that answers after the deadline: close what it made.
          creating.then((late) => late.close().catch(() => {}), () => {});
          throw error;
        },
      );
      const config = this.#options.config;
      session = this.#newSession(transport);
      let kind: MCPTransportKind | "custom" = this.#options.transport
        ? "custom"
        : config.transport;
      let server: MCPServerInfo;
      try {
        try {
          server = await this.#handshake(session, timeoutMs, abort.signal);
        } catch (error) {
          if (!(error instanceof RestartForHandshake)) throw error;
          // The server exited on the probe: a new one gets `initialize` at once.
          await session.close().catch(() => {});
          session = this.#newSession(await this.#createTransport());
          server = await this.#handshake(session, timeoutMs, abort.signal);
        }
      } catch (error) {
        if (
          !(error instanceof MCPInitializeStatusError) || kind === "custom" ||
          config.transport !== "streamable-http" || config.fallback === false
        ) throw error;
        // The specification's backwards-compatibility procedure: a 400, 404
        // or 405 to the initialize POST, so try the legacy SSE transport at
        // the same URL, within the same deadline.
        await session.close().catch(() => {});
        kind = "sse";
        try {
          session = this.#newSession(
            createTransport(
              { ...config, transport: "sse" },
              this.#options.remote,
            ),
          );
          server = await this.#handshake(session, timeoutMs, abort.signal);
        } catch (sseError) {
          throw new MCPConnectionError(
            `${error.message} The legacy SSE transport at the same URL failed too: ${
              errorMessage(sseError)
            }`,
            { cause: sseError },
          );
        }
      }
      if (session.closed) {
        throw new MCPNotConnectedError(
          `MCP server "${name}" closed the connection right after the handshake`,
        );
      }
      this.#session = session;
      this.#server = server;
      this.#kind = kind;
      this.#lostError = undefined;
      this.#options.onToolsChanged("connected");
      this.#applyLogLevel(session);
      if (
        server.era === "modern" &&
        (server.capabilities.tools as { listChanged?: unknown })?.listChanged
      ) await this.#subscribe(session, abort.signal);
    } catch (error) {
      // Read before the server is stopped: was it alive, did it say anything?
      const activity = session?.activity;
      await session?.close().catch(() => {});
      // The failure path: its wording loads now.
      const { connectionError } = await import("./_connect_error.ts");
      throw connectionError(error, {
        stderrTail: session?.stderrTail,
        activity,
        config: this.#options.config,
      }, this.#options.secrets);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (this.#connectAbort === abort) this.#connectAbort = undefined;
    }
  }

  /** A session whose callbacks lead here, each bound to that session. */
  #newSession(transport: MCPTransport): Session {
    const session: Session = new Session(transport, this.#name, {
      onNotification: (notification) => this.#onNotification(notification),
      onRequest: (request) => this.#answer(request),
      onClose: (error) => {
        session.telemetry?.end(error);
        this.#onClose(session, error);
      },
      onError: this.#options.onError,
      secrets: () => this.secrets,
    });
    session.telemetry = this.#telemetry?.session(
      this.#options.transport ? "custom" : this.#options.config.transport,
      () => session.sessionId,
    );
    return session;
  }

  /**
   * Answers a server request with the client's handler; `undefined` means
   * "method not found". The answering code loads with the first request
   * that has a handler.
   */
  #answer(request: JSONRPCRequest): Promise<Result> | undefined {
    const handlers = this.#options.handlers;
    if (handlers === undefined || !answers(handlers, request.method)) {
      return undefined;
    }
    return import("./_answer.ts").then(({ answer }) =>
      answer(handlers, request)
    );
  }

  /** Starts the transport and finds the server's era, until `signal` aborts. */
  #handshake(
    session: Session,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<MCPServerInfo> {
    const handshake = (async () => {
      await session.start();
      return await this.#negotiate(session, timeoutMs);
    })();
    return race(handshake, { signal });
  }

  /**
   * The modern probe (`server/discover`) unless the plan or an earlier
   * verdict rules it out, then `initialize` when the server speaks the 2025
   * era.
   *
   * @throws {RestartForHandshake} When a stdio server exited on the probe.
   */
  async #negotiate(
    session: Session,
    timeoutMs: number,
  ): Promise<MCPServerInfo> {
    const plan = this.#plan;
    if (plan.modern.length === 0) {
      return await this.#initialize(session, timeoutMs);
    }
    const stdio = this.#options.config.transport === "stdio";
    const endpoint = stdio ? undefined : this.#options.config.url;
    if (
      plan.legacy.length > 0 &&
      (stdio ? this.#legacyProcess : legacyEndpoints.has(endpoint!))
    ) {
      try {
        return await this.#initialize(session, timeoutMs);
      } catch (error) {
        // An upgraded server may have left the 2025 era: probe now if it
        // says so (-32022), else next time.
        this.#forgetLegacy(endpoint);
        if (
          !(error instanceof MCPProtocolError) ||
          error.rpcCode !== UNSUPPORTED_PROTOCOL_VERSION || session.closed
        ) throw error;
      }
    }
    const { probe, discoveredInfo, bothFailed, notModern } = await import(
      "./_discover.ts"
    );
    const verdict = await probe(session, {
      versions: plan.modern,
      envelope: (version) => this.#envelope(version),
      // With a fallback, a silent server is tried with `initialize`; over
      // HTTP that gets half the deadline at least.
      timeoutMs: plan.legacy.length === 0
        ? timeoutMs
        : stdio
        ? Math.min(STDIO_PROBE_MS, timeoutMs)
        : Math.min(HTTP_PROBE_MS, timeoutMs / 2),
      stdio,
      label: this.#name,
    });
    if (verdict.era === "modern") {
      session.setEnvelope(this.#envelope(verdict.version));
      return discoveredInfo(verdict.version, verdict.result);
    }
    if (plan.legacy.length === 0) {
      throw notModern(this.#options.config, plan.modern, verdict.why);
    }
    if (stdio) this.#legacyProcess = true;
    else legacyEndpoints.add(endpoint!);
    if (verdict.era === "restart") throw new RestartForHandshake(verdict.why);
    return await this.#initialize(session, timeoutMs).catch((error) => {
      throw verdict.failed ? bothFailed(this.#name, verdict.why, error) : error;
    });
  }

  #forgetLegacy(endpoint: string | undefined): void {
    if (endpoint === undefined) this.#legacyProcess = false;
    else legacyEndpoints.delete(endpoint);
  }

  /** The `_meta` of every modern request. */
  #envelope(version: string): Readonly<Record<string, unknown>> {
    return envelope(
      version,
      modernCapabilities(this.#options.handlers, this.#options.extensions),
      this.#options.clientInfo,
      this.#modernLogLevel(),
    );
  }

  /**
   * The log level modern requests ask for: the one set with
   * `setLogLevel()`; with an `onLog` handler and none set, every message
   * (as a 2025-era server sends them before `logging/setLevel`); without
   * `onLog`, none.
   */
  #modernLogLevel(): MCPLogLevel | undefined {
    return this.#logLevel ?? (this.#options.onLog ? "debug" : undefined);
  }

  /** The `initialize` exchange; also re-run over a live transport when a remote session expired. */
  async #initialize(
    session: Session,
    timeoutMs: number,
  ): Promise<MCPServerInfo> {
    const versions = this.#plan.legacy;
    session.setEnvelope(undefined);
    const result = await session.request("initialize", {
      protocolVersion: versions[0],
      capabilities: clientCapabilities(
        this.#options.handlers,
        this.#options.extensions,
      ),
      clientInfo: this.#options.clientInfo,
    }, { timeoutMs });
    const version = result.protocolVersion;
    if (typeof version !== "string" || !versions.includes(version)) {
      throw new MCPConnectionError(
        `MCP server "${this.#name}" answered with protocol version ${
          quotedValue(version, this.secrets)
        }, which this client does not speak (supported: ${
          versions.join(", ")
        }); upgrade the server or this library`,
      );
    }
    session.setProtocolVersion(version);
    await session.notify("notifications/initialized");
    const info: MCPServerInfo = {
      protocolVersion: version,
      era: "legacy",
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
    const option = this.#options.transport;
    if (typeof option === "function") return await option();
    if (option) return option;
    return createTransport(this.#options.config, this.#options.remote);
  }

  /**
   * Re-runs `initialize` over the live transport after the server dropped our
   * session (it processed nothing). Concurrent callers share one attempt. The
   * tool list is invalidated: a restarted server may offer other tools.
   */
  #renew(session: Session): Promise<void> {
    this.#renewing ??= (async () => {
      this.#renewals++;
      this.#wakeTasks(undefined);
      this.#options.onToolsChanged("renewed");
      const info = await this.#initialize(
        session,
        this.#options.connectTimeoutMs,
      );
      if (this.#session === session) {
        this.#server = info;
        this.#applyLogLevel(session);
      }
    })().finally(() => this.#renewing = undefined);
    return this.#renewing;
  }

  /**
   * Follows tool-list changes of a modern session (`_listen.ts`, loaded
   * now). Connecting waits for the server's acknowledgement, so a change
   * made after `connect()` is never missed; a server slow to acknowledge
   * holds it up for at most {@linkcode LISTEN_ACK_MS}, and one that refuses
   * fails nothing.
   */
  async #subscribe(session: Session, signal: AbortSignal): Promise<void> {
    const { toolsListen } = await import("./_listen.ts");
    const subscription = await this.#listen(
      session,
      toolsListen(() => this.#options.onToolsChanged("list_changed")),
    );
    await race(subscription.ready, { signal, timeoutMs: LISTEN_ACK_MS })
      .catch(() => {});
  }

  /**
   * Opens a `subscriptions/listen` on the live modern session
   * (`_listen.ts`); it lives until closed or the session ends. A 2025-era
   * session pushes changes unasked: `undefined`.
   *
   * @throws {MCPNotConnectedError} When not connected.
   */
  async listen(options: ListenOptions): Promise<Subscription | undefined> {
    await this.whenReady("subscriptions/listen");
    const session = this.#live("subscriptions/listen");
    if (this.#server?.era !== "modern") return undefined;
    return await this.#listen(session, options);
  }

  async #listen(
    session: Session,
    options: ListenOptions,
  ): Promise<Subscription> {
    const { openListen } = await import("./_listen.ts");
    return openListen(this.#listens, {
      ...options,
      session,
      label: this.#name,
      onError: this.#options.onError,
    }, session === this.#session);
  }

  #closeListens(): void {
    for (const listen of this.#listens) listen.close();
    this.#listens.clear();
  }

  async #close(): Promise<void> {
    this.#closeListens();
    const session = this.#session;
    this.#session = undefined;
    this.#lostError = undefined;
    this.#options.onToolsChanged("closed");
    await session?.close();
  }

  /**
   * The session ended without us. It stays in `#session` (closed), so the
   * next disconnect or reconnect still awaits its transport: a stdio server
   * that failed may still be being stopped.
   */
  #onClose(session: Session, error: Error | undefined): void {
    this.#wakeTasks(undefined);
    if (this.#session !== session) return;
    this.#closeListens();
    if (!error) return;
    this.#lostError = new MCPNotConnectedError(
      redact(`${error.message}; call reconnect()`, this.#options.secrets),
      { cause: redactError(error, this.#options.secrets) },
    );
  }

  #onNotification(notification: JSONRPCNotification): void {
    for (const listen of this.#listens) {
      if (listen.handle(notification)) return;
    }
    const method = notification.method;
    const meta = notification.params?._meta;
    // Of a listen that ended: what it says is followed by its successor.
    if (isRecord(meta) && meta[META_SUBSCRIPTION_ID] !== undefined) return;
    if (method === "notifications/tools/list_changed") {
      this.#options.onToolsChanged("list_changed");
    } else if (method === "notifications/message") {
      // Loaded before the first session of a connection with `onLog`.
      logging.value?.deliverLog(notification.params, {
        onLog: this.#options.onLog,
        onError: this.#options.onError,
        label: this.#name,
        secrets: this.secrets,
      });
    } else if (method === "notifications/tasks/status") {
      this.#wakeTasks(notification.params ?? {});
    } else this.#options.onNotice?.(notification);
  }

  #wakeTasks(status: Record<string, unknown> | undefined): void {
    for (const listener of this.#taskListeners) listener(status);
  }

  /**
   * Lists the server's tools (`tools/list`), every page within one
   * deadline; the reader (`tool_list.ts`) loads with the first listing.
   * Each entry is read and checked; on modern HTTP a tool whose
   * `x-mcp-header` annotations break the rules is left out, with a `note`
   * (a client must not call it). The list says until when it is fresh and
   * whether it is the user's own (MCP 2026-07-28 `ttlMs`, `cacheScope`).
   *
   * @param timeoutMs The deadline of each page and of the whole listing.
   * @param note Told what was left out, and why.
   * @throws {MCPNotConnectedError} When not connected.
   * @throws {MCPAdapterError} `invalid_response` when the pagination is broken.
   */
  async listTools(
    timeoutMs: number,
    note: (message: string) => void,
  ): Promise<ToolList> {
    const startedAt = performance.now();
    const [{ listAllTools }, headers] = await Promise.all([
      toolList.load(),
      this.#mirrorsParams ? paramHeaders.load() : undefined,
    ]);
    return await listAllTools(
      (cursor) =>
        this.request(
          "tools/list",
          cursor === undefined ? undefined : { cursor },
          { timeoutMs, totalTimeoutMs: timeoutMs, startedAt },
        ),
      {
        server: this.#name,
        modern: this.#server?.era === "modern",
        startedAt,
        headerProblem: headers?.headerProblem,
        note,
      },
    );
  }

  /**
   * Calls a tool (`tools/call`): as a task when the tool requires one, or
   * allows one and `options.task` asks, and the server takes tasks
   * (2025-11-25; a modern server may answer any call with a task of the
   * extension); with `options.resume`, follows the task an earlier call
   * created (durable tasks). On modern HTTP the tool's `x-mcp-header`
   * parameters go as `Mcp-Param-*` headers too.
   *
   * @param tool The tool, as listed.
   * @param args Its arguments, checked.
   * @param options Deadlines, cancellation, progress, task status and the telemetry parent.
   * @param pending Gets the result, or the error: an
   * {@linkcode MCPNotConnectedError} when not connected or the session ends.
   * @param now `performance.now()` read by the caller, when it did not wait since.
   */
  callTool(
    tool: MCPToolDescriptor,
    args: Record<string, unknown>,
    options: ToolCallOptions,
    pending: PendingRequest,
    now?: number,
  ): void {
    // `_meta` has its place from the start: the session puts the progress
    // token there, without growing the object (JSON leaves out undefined).
    const params = { name: tool.name, arguments: args, _meta: undefined };
    // Loaded by the tool listing of a modern HTTP connection.
    const headers = this.#mirrorsParams
      ? paramHeaders.value?.paramHeaderValues(tool.inputSchema, args)
      : undefined;
    const sent = headers === undefined ? options : { ...options, headers };
    if (options.resume) {
      settle(
        this.#callTask({ name: tool.name }, sent, options.resume),
        pending,
      );
      return;
    }
    const taskSupport = tool.execution?.taskSupport;
    if (
      (taskSupport === "required" ||
        (taskSupport === "optional" && options.task === true)) &&
      this.#acceptsToolTasks
    ) {
      settle(this.#callTask(params, sent), pending);
      return;
    }
    this.dispatch("tools/call", params, sent, pending, now);
  }

  /**
   * Whether a `tools/call` sent now may become a task: unless connected
   * (no connect under way) to a 2025-era server that takes no tool tasks,
   * it may (a modern server may answer any call with a task).
   */
  get mayMakeTask(): boolean {
    return !this.ready || this.#server?.era !== "legacy" ||
      this.#acceptsToolTasks;
  }

  /**
   * Whether the server takes task-augmented `tools/call` (2025-11-25's
   * `tasks.requests.tools.call`). The era decides: a modern server's tasks
   * are the extension's, which any request may answer with, whatever its
   * capabilities repeat of the 2025 era.
   */
  get #acceptsToolTasks(): boolean {
    if (this.#server?.era !== "legacy") return false;
    const tasks = this.#server?.capabilities.tasks as
      | { requests?: { tools?: { call?: unknown } } }
      | undefined;
    return tasks?.requests?.tools?.call !== undefined;
  }

  /**
   * Calls a tool as a task (MCP 2025-11-25): creates it, polls it to its
   * end and returns its result, as `request("tools/call", …)` would. The
   * task machinery (`tasks/legacy.ts`) is loaded on the first task call. With
   * `resumed`, the answer that created a task earlier (maybe in another
   * process: durable tasks), follows that task instead, of either era.
   *
   * @throws {MCPNotConnectedError} When not connected, or the session ends.
   */
  async #callTask(
    params: Record<string, unknown>,
    options: TaskCallOptions,
    resumed?: Result,
  ): Promise<Result> {
    await this.whenReady("tools/call");
    if (resumed?.resultType) {
      return await this.#notComplete(
        this.#live("tools/call"),
        "tools/call",
        params,
        options,
        resumed,
      );
    }
    const { runToolTask } = await import("./tasks/legacy.ts");
    const tasks = this.#server?.capabilities.tasks as { cancel?: unknown };
    return await runToolTask(
      {
        pin: () => {
          const session = this.#live("tools/call");
          const renewals = this.#renewals;
          return { session, renewed: () => this.#renewals !== renewals };
        },
        renew: (session) => this.#renew(session),
        listen: (listener) => {
          this.#taskListeners.add(listener);
          return () => this.#taskListeners.delete(listener);
        },
        label: this.#name,
        secrets: this.secrets,
        cancellable: tasks?.cancel !== undefined,
      },
      params,
      options,
      resumed,
    );
  }

  /**
   * Asks the server for log messages of `level` and above, when it declares
   * the `logging` capability. The level is kept: every later session
   * (reconnect, renewal) is told too.
   *
   * @returns Whether the request was sent.
   * @throws {MCPConfigError} When `level` is not a log level.
   */
  async setLogLevel(level: MCPLogLevel, timeoutMs: number): Promise<boolean> {
    (await logging.load()).checkLogLevel(level);
    await this.whenReady("set the log level");
    this.#logLevel = level;
    if (!this.#server?.capabilities.logging) return false;
    if (this.#server.era === "modern") {
      // No setLevel request: every later request asks for this level.
      this.#session?.setEnvelope(this.#envelope(this.#server.protocolVersion));
      return true;
    }
    await this.request("logging/setLevel", { level }, { timeoutMs });
    return true;
  }

  /** Tells a new session the log level asked for earlier; a failure goes to `onError`. */
  #applyLogLevel(session: Session): void {
    const level = this.#logLevel;
    if (
      level === undefined || !this.#server?.capabilities.logging ||
      this.#server.era === "modern"
    ) return;
    session.request("logging/setLevel", { level }, {
      timeoutMs: this.#options.connectTimeoutMs,
    }).catch((error) => this.#options.onError?.(asError(error)));
  }
}

/** Hands the outcome of `sent` to `pending`. */
function settle(sent: Promise<Result>, pending: PendingRequest): void {
  sent.then(
    (result) => pending.resolve(result),
    (error) => pending.reject(error),
  );
}
