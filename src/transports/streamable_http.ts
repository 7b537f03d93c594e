/**
 * The streamable HTTP transport (MCP 2025-03-26 and later): every message is
 * a POST whose answer is JSON or an SSE stream; an optional GET stream
 * carries server-initiated messages. Web standards only (`fetch`, web
 * streams, `AbortSignal`), so it runs on Deno, Node, Bun and edge runtimes.
 *
 * @module
 */

import {
  MCPConfigError,
  MCPConnectionError,
  MCPRequestLostError,
  MCPSessionExpiredError,
} from "../errors.ts";
import type { JSONRPCMessage, MCPTransport, RequestId } from "../transport.ts";
import {
  discardBody,
  displayUrl,
  errorMessage,
  type EventSourceMessage,
  eventStream,
  excerpt,
  HttpClient,
  mediaType,
  readBodyStart,
  serverUrl,
} from "./_http.ts";

// Re-exported so this module's documentation is complete on its own; mod.ts
// exports the same types.
export type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
  MCPTransport,
  RequestId,
  TransportSendOptions,
} from "../transport.ts";

/** How broken SSE streams are reopened when the server sent no `retry:` delay. */
export interface StreamableHTTPReconnectionOptions {
  /** Delay before the first attempt, in milliseconds. Default 1000. */
  initialDelayMs?: number;
  /** Longest delay between attempts, in milliseconds. Default 30000. */
  maxDelayMs?: number;
  /** Each delay is the previous one times this. Default 1.5. */
  growFactor?: number;
  /**
   * Attempts per broken stream before giving up. The count starts again
   * whenever a reopened stream delivers an event. Default 2.
   */
  maxRetries?: number;
}

/** Options of {@linkcode StreamableHTTPTransport}. */
export interface StreamableHTTPTransportOptions {
  /** The server's MCP endpoint, e.g. `"https://example.com/mcp"`. */
  url: string | URL;
  /**
   * Headers sent with every request (POST, GET and DELETE), e.g.
   * `Authorization`. Their values never appear in error messages.
   */
  headers?: Record<string, string>;
  /** The fetch to use (proxies, tests, edge runtimes); `globalThis.fetch` by default. */
  fetch?: typeof fetch;
  /** Backoff for reopening broken SSE streams. */
  reconnection?: StreamableHTTPReconnectionOptions;
  /** How long `close()` waits for the session's DELETE, in milliseconds. Default 2000. */
  closeTimeoutMs?: number;
  /**
   * Called when the server answers 401, or 403 with `insufficient_scope`
   * (its body may already have been read). Resolve `true` once new
   * credentials are in place: `getHeaders` is called again and the request
   * is retried once. Resolve `false` to fail the request.
   */
  authorize?: (response: Response) => Promise<boolean>;
  /**
   * Supplies extra headers (e.g. `Authorization: Bearer …`): called by
   * `start()` and after each successful `authorize`. They join `headers`
   * on every request and are redacted from error messages too.
   */
  getHeaders?: () => Promise<Record<string, string>>;
  /** Not supported: use `headers`, `fetch` and `authorize` instead. */
  requestInit?: never;
}

const ACCEPT_BOTH = "application/json, text/event-stream";
const EVENT_STREAM = "text/event-stream";
const DEFAULT_CLOSE_TIMEOUT_MS = 2000;
const RESERVED_HEADERS = [
  "accept",
  "content-type",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
] as const;
/**
 * How servers built on the SDK's example code (server-everything among them)
 * word a 400 for a session they do not know. Deliberately narrow: a 400 is
 * taken for an expired session only when its body says so this way or names
 * the session id we sent, because the request is then sent again.
 */
const STALE_SESSION_400 =
  /no valid session|session not found|unknown session|invalid session|session (?:has )?expired|server not initialized/i;
/** A session id shorter than this is not looked for in a 400 body: it would match by chance. */
const MIN_SESSION_ID_CHARS = 8;

/** A request whose response is still expected on an SSE stream. */
interface RequestStream {
  id: RequestId;
  method: string;
  /** The session the request was sent in; a resume into another session is pointless. */
  session: string | undefined;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  attempts: number;
  answered: boolean;
  /** Set when the request was cancelled or the transport closed: stop quietly. */
  done: boolean;
  reader: ReadableStreamDefaultReader<EventSourceMessage> | undefined;
}

/**
 * An {@linkcode MCPTransport} for the streamable HTTP transport of MCP.
 *
 * - Each message is POSTed; a request's answer is a JSON body or an SSE
 *   stream (progress notifications and server requests arrive on it too).
 * - The `Mcp-Session-Id` of the `initialize` answer is sent on every later
 *   request, and `MCP-Protocol-Version` once the version is set.
 * - After `notifications/initialized`, a GET stream for server-initiated
 *   messages is opened if the server offers one (405 means it does not),
 *   and reopened with backoff when it drops.
 * - When a request's SSE stream breaks before the response, it is resumed
 *   with GET and `Last-Event-ID` after the server's `retry:` delay (or the
 *   backoff). If that fails, `onerror` receives an
 *   {@linkcode MCPRequestLostError} for the request.
 * - A 404 to a request that carried the session id (or a 400 whose body
 *   names that id or says "No valid session ID", "Session not found" and
 *   the like) clears `sessionId` and rejects `send()` with
 *   {@linkcode MCPSessionExpiredError}: the request was not processed. A
 *   new `initialize` over the same transport starts a new session.
 *
 * @example Initialize a session by hand
 * ```ts
 * import { StreamableHTTPTransport } from "@cleveragents/mcp-adapter";
 *
 * const transport = new StreamableHTTPTransport({
 *   url: "http://127.0.0.1:3001/mcp",
 *   headers: { Authorization: "Bearer <token>" },
 * });
 * transport.onmessage = (message) => console.log(message);
 *
 * async function hello(): Promise<void> {
 *   await transport.start();
 *   await transport.send({
 *     jsonrpc: "2.0",
 *     id: 1,
 *     method: "initialize",
 *     params: {
 *       protocolVersion: "2025-11-25",
 *       capabilities: {},
 *       clientInfo: { name: "demo", version: "1.0.0" },
 *     },
 *   });
 *   await transport.close();
 * }
 * console.log(typeof hello); // call hello() with a server listening
 * ```
 */
export class StreamableHTTPTransport implements MCPTransport {
  /** Receives each message from the server. */
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /**
   * Receives non-fatal errors: a malformed event, a GET stream that cannot
   * be reopened, and {@linkcode MCPRequestLostError} for lost responses.
   */
  onerror?: ((error: Error) => void) | undefined;
  /** Called once, by `close()`. */
  onclose?: (() => void) | undefined;

  readonly #url: URL;
  readonly #http: HttpClient;
  readonly #backoff: Required<StreamableHTTPReconnectionOptions>;
  readonly #closeTimeoutMs: number;
  #state: "new" | "starting" | "open" | "closed" = "new";
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** Header objects built once per change of session, version or credentials. */
  #initHeaders: Record<string, string> = {};
  #postHeaders: Record<string, string> = {};
  #streamHeaders: Record<string, string> = {};
  #deleteHeaders: Record<string, string> = {};
  readonly #streams = new Map<RequestId, RequestStream>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  /** Bumped to retire the current GET stream. */
  #listenGeneration = 0;
  #listenReader: ReadableStreamDefaultReader<EventSourceMessage> | undefined;
  readonly #initHeadersOf = () => this.#initHeaders;
  readonly #postHeadersOf = () => this.#postHeaders;
  readonly #streamHeadersOf = () => this.#streamHeaders;

  /**
   * Creates a transport; nothing is sent until the first `send()`.
   *
   * @param options The server URL, headers and tuning.
   * @throws {MCPConfigError} If `url` is not an absolute http(s) URL, a
   * header is malformed or managed by the transport, or a number is invalid.
   */
  constructor(options: StreamableHTTPTransportOptions) {
    const name = "StreamableHTTPTransport";
    this.#url = serverUrl(options.url, name);
    this.#http = new HttpClient(options, RESERVED_HEADERS, name);
    this.#http.onBaseChange = () => this.#rebuildHeaders();
    const r = options.reconnection ?? {};
    this.#backoff = {
      initialDelayMs: checkNumber(
        "reconnection.initialDelayMs",
        r.initialDelayMs,
        1000,
      ),
      maxDelayMs: checkNumber("reconnection.maxDelayMs", r.maxDelayMs, 30_000),
      growFactor: checkNumber("reconnection.growFactor", r.growFactor, 1.5),
      maxRetries: checkNumber("reconnection.maxRetries", r.maxRetries, 2),
    };
    this.#closeTimeoutMs = checkNumber(
      "closeTimeoutMs",
      options.closeTimeoutMs,
      DEFAULT_CLOSE_TIMEOUT_MS,
    );
    this.#rebuildHeaders();
  }

  /** The session id the server assigned in its `initialize` answer, if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The protocol version sent as `MCP-Protocol-Version`, once set. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /**
   * Prepares the transport: loads `getHeaders()` if given. Calling it again
   * while open does nothing.
   *
   * @returns Resolves once messages can be sent.
   * @throws {MCPConnectionError} If the transport was closed, or
   * `getHeaders()` failed.
   */
  start(): Promise<void> {
    if (this.#closed()) return Promise.reject(this.#closedError());
    this.#starting ??= (async () => {
      this.#state = "starting";
      await this.#http.loadHeaders();
      if (this.#state === "starting") this.#state = "open";
    })();
    return this.#starting;
  }

  /**
   * Records the negotiated protocol version; it is sent as
   * `MCP-Protocol-Version` on every later request.
   *
   * @param version The version from the `initialize` result.
   */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#rebuildHeaders();
  }

  /**
   * POSTs one message. For a request, resolves once the answer started: a
   * JSON answer has been delivered to `onmessage` by then; an SSE answer is
   * read on in the background.
   *
   * @param message The JSON-RPC message.
   * @returns Resolves when the server accepted the message.
   * @throws {MCPSessionExpiredError} If the server no longer knows the
   * session; the message was not processed and `sessionId` is cleared.
   * @throws {MCPConnectionError} If the server cannot be reached, answers
   * with a non-2xx status, or with a body that is neither JSON nor SSE.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#state !== "open") {
      return Promise.reject(
        this.#closed() ? this.#closedError() : new MCPConnectionError(
          "The streamable HTTP transport is not started; call start() first.",
        ),
      );
    }
    let body: string;
    try {
      body = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#post(message, body);
  }

  /**
   * Ends the session with a DELETE (a 405 or any failure is ignored; waits
   * at most `closeTimeoutMs`), aborts every open request and stream, and
   * calls `onclose` once. Safe to call more than once.
   *
   * @returns Resolves when everything is released.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const started = this.#state !== "new";
    this.#state = "closed";
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#listenGeneration++;
    for (const stream of this.#streams.values()) stream.done = true;
    this.#streams.clear();
    this.#http.controller.abort(this.#closedError());
    if (this.#sessionId !== undefined) await this.#terminateSession();
    if (!started) return;
    try {
      this.onclose?.();
    } catch (error) {
      this.#report(error);
    }
  }

  async #terminateSession(): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#closeTimeoutMs);
    try {
      const response = await this.#http.request(
        "DELETE",
        this.#url,
        () => this.#deleteHeaders,
        undefined,
        controller.signal,
      );
      discardBody(response);
    } catch {
      // Best effort: the server drops idle sessions anyway.
    } finally {
      clearTimeout(timer);
      this.#sessionId = undefined;
    }
  }

  async #post(message: JSONRPCMessage, body: string): Promise<void> {
    const method = "method" in message ? message.method : undefined;
    const initialize = method === "initialize";
    if (initialize) this.#resetSession();
    else if (method === "notifications/cancelled") {
      this.#cancelStream(
        (message as { params?: { requestId?: unknown } }).params?.requestId,
      );
    }
    const headers = initialize ? this.#initHeadersOf : this.#postHeadersOf;
    const sentSession = headers()["mcp-session-id"];
    // A request is registered before the POST, so a cancellation sent
    // meanwhile finds it.
    const id = method !== undefined && "id" in message ? message.id : undefined;
    const stream: RequestStream | undefined = id === undefined ? undefined : {
      id,
      method: method!,
      session: sentSession,
      lastEventId: undefined,
      retryMs: undefined,
      attempts: 0,
      answered: false,
      done: false,
      reader: undefined,
    };
    if (stream !== undefined) this.#streams.set(stream.id, stream);
    try {
      let response: Response;
      try {
        response = await this.#http.request("POST", this.#url, headers, body);
      } catch (error) {
        throw this.#fetchError(error, `POST ${describe(method)}`);
      }
      if (initialize && response.ok) {
        const session = response.headers.get("mcp-session-id");
        if (session) {
          this.#sessionId = session;
          this.#rebuildHeaders();
        }
      }
      if (!response.ok) {
        throw await this.#statusError(
          response,
          `POST ${describe(method)}`,
          sentSession,
        );
      }
      if (stream === undefined || response.status === 202 || stream.done) {
        discardBody(response);
        if (method === "notifications/initialized") this.#listen();
        return;
      }
      if (initialize) stream.session = this.#sessionId;
      const type = mediaType(response.headers.get("content-type"));
      if (type === EVENT_STREAM && response.body !== null) {
        void this.#readRequestStream(stream, response.body, false);
      } else if (type === "application/json") {
        await this.#readJson(response, stream);
      } else {
        const text = await readBodyStart(response);
        throw new MCPConnectionError(
          `MCP server at ${displayUrl(this.#url)} answered POST ${
            describe(method)
          } with HTTP ${response.status} and content type ${
            JSON.stringify(response.headers.get("content-type") ?? "(none)")
          }, neither JSON nor an SSE stream: ${
            excerpt(text, this.#http.secrets)
          }. Check that "url" points at an MCP streamable HTTP endpoint.`,
        );
      }
    } finally {
      // Only a stream being read stays registered.
      if (stream !== undefined && stream.reader === undefined) {
        this.#streams.delete(stream.id);
      }
    }
  }

  async #readJson(response: Response, stream: RequestStream): Promise<void> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.#fetchError(error, `POST ${describe(stream.method)}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new MCPConnectionError(
        `MCP server at ${displayUrl(this.#url)} answered POST ${
          describe(stream.method)
        } with invalid JSON: ${excerpt(text, this.#http.secrets)}`,
      );
    }
    if (!this.#dispatch(data, stream.id)) {
      this.#lose(stream, "the server's JSON answer held no response to it");
    }
  }

  /** Reads a request's SSE stream; resumes it if it ends before the response. */
  async #readRequestStream(
    stream: RequestStream,
    body: ReadableStream<Uint8Array>,
    resumed: boolean,
  ): Promise<void> {
    const reader = eventStream(body, (ms) => stream.retryMs = ms).getReader();
    stream.reader = reader;
    if (stream.done) reader.cancel().catch(() => {});
    let progressed = false;
    let failure: unknown;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.id) {
          stream.lastEventId = value.id;
          progressed = true;
        }
        if (value.data === "" || !isMessageEvent(value)) continue;
        if (this.#dispatchText(value.data, stream.id)) {
          stream.answered = true;
          this.#streams.delete(stream.id);
          // A resumed stream may be held open by the server: let it go. A
          // POST stream ends by itself; reading it to the end keeps the
          // connection reusable.
          if (resumed) break;
        }
      }
    } catch (error) {
      failure = error;
    }
    if (resumed || failure !== undefined) reader.cancel().catch(() => {});
    if (stream.answered || stream.done || this.#closed()) return;
    if (progressed) stream.attempts = 0;
    this.#resume(stream, failure);
  }

  /** Schedules the next resumption attempt, or gives the request up. */
  #resume(stream: RequestStream, cause: unknown): void {
    if (stream.lastEventId === undefined) {
      this.#lose(
        stream,
        "its SSE stream ended before the response and the server sent no event id to resume from",
        cause,
      );
      return;
    }
    if (stream.attempts >= this.#backoff.maxRetries) {
      this.#lose(
        stream,
        `its SSE stream broke and ${stream.attempts} attempt(s) to resume it failed`,
        cause,
      );
      return;
    }
    const delayMs = stream.retryMs ?? this.#delay(stream.attempts);
    stream.attempts++;
    this.#later(delayMs, () => void this.#reopen(stream));
  }

  async #reopen(stream: RequestStream): Promise<void> {
    if (stream.done || this.#closed()) return;
    if (stream.session !== this.#sessionId) {
      this.#lose(
        stream,
        "its session ended before the stream could be resumed",
      );
      return;
    }
    const lastEventId = stream.lastEventId!;
    let response: Response;
    try {
      response = await this.#http.request(
        "GET",
        this.#url,
        () => ({ ...this.#streamHeaders, "last-event-id": lastEventId }),
      );
    } catch (error) {
      if (!stream.done && !this.#closed()) this.#resume(stream, error);
      return;
    }
    if (stream.done || this.#closed()) {
      discardBody(response);
      return;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (!response.ok || type !== EVENT_STREAM || response.body === null) {
      const text = await readBodyStart(response);
      const reason = `resuming its SSE stream got HTTP ${response.status} (${
        type ?? "no content type"
      }): ${excerpt(text, this.#http.secrets)}`;
      if (response.status >= 500 || response.status === 429) {
        this.#resume(stream, new Error(reason));
      } else this.#lose(stream, reason);
      return;
    }
    await this.#readRequestStream(stream, response.body, true);
  }

  #lose(stream: RequestStream, reason: string, cause?: unknown): void {
    this.#streams.delete(stream.id);
    stream.done = true;
    this.#report(
      new MCPRequestLostError(
        stream.id,
        `The response to "${stream.method}" (request ${
          JSON.stringify(stream.id)
        }) from MCP server at ${
          displayUrl(this.#url)
        } was lost: ${reason}. The call may or may not have run.`,
        cause === undefined ? undefined : { cause },
      ),
    );
  }

  /** Stops following a cancelled request's stream. */
  #cancelStream(requestId: unknown): void {
    const stream = this.#streams.get(requestId as RequestId);
    if (stream === undefined) return;
    this.#streams.delete(stream.id);
    stream.done = true;
    stream.reader?.cancel().catch(() => {});
  }

  /** Opens the GET stream for server-initiated messages (a new generation). */
  #listen(): void {
    this.#stopListening();
    void this.#openListenStream(
      this.#listenGeneration,
      undefined,
      0,
      undefined,
    );
  }

  #stopListening(): void {
    this.#listenGeneration++;
    this.#listenReader?.cancel().catch(() => {});
    this.#listenReader = undefined;
  }

  async #openListenStream(
    generation: number,
    lastEventId: string | undefined,
    attempts: number,
    retryMs: number | undefined,
  ): Promise<void> {
    const current = () =>
      generation === this.#listenGeneration && this.#state === "open";
    if (!current()) return;
    const resumeFrom = lastEventId;
    const headers = resumeFrom === undefined
      ? this.#streamHeadersOf
      : () => ({ ...this.#streamHeaders, "last-event-id": resumeFrom });
    let response: Response;
    try {
      response = await this.#http.request("GET", this.#url, headers);
    } catch (error) {
      if (current()) {
        this.#relisten(generation, lastEventId, attempts, retryMs, error);
      }
      return;
    }
    if (!current() || response.status === 405) {
      discardBody(response); // 405: the server offers no GET stream
      return;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (!response.ok || type !== EVENT_STREAM || response.body === null) {
      const text = await readBodyStart(response);
      const error = new MCPConnectionError(
        `MCP server at ${
          displayUrl(this.#url)
        } refused the GET stream for server-initiated messages: HTTP ${response.status} (${
          type ?? "no content type"
        }): ${excerpt(text, this.#http.secrets)}`,
      );
      if (attempts > 0 && (response.status >= 500 || response.status === 429)) {
        this.#relisten(generation, lastEventId, attempts, retryMs, error);
      } else if (current()) this.#report(error);
      return;
    }
    // Any sign of life (an event or a keep-alive comment) restarts the count.
    const alive = () => attempts = 0;
    const reader = eventStream(response.body, (ms) => retryMs = ms, alive)
      .getReader();
    this.#listenReader = reader;
    let failure: unknown;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        attempts = 0;
        if (value.id) lastEventId = value.id;
        if (value.data !== "" && isMessageEvent(value)) {
          this.#dispatchText(value.data, undefined);
        }
      }
    } catch (error) {
      failure = error;
    }
    if (this.#listenReader === reader) this.#listenReader = undefined;
    reader.cancel().catch(() => {});
    if (current()) {
      this.#relisten(generation, lastEventId, attempts, retryMs, failure);
    }
  }

  #relisten(
    generation: number,
    lastEventId: string | undefined,
    attempts: number,
    retryMs: number | undefined,
    cause: unknown,
  ): void {
    if (attempts >= this.#backoff.maxRetries) {
      this.#report(
        new MCPConnectionError(
          `The GET stream for server-initiated messages from MCP server at ${
            displayUrl(this.#url)
          } broke and could not be reopened after ${attempts} attempt(s); requests still work, but server notifications outside them are missed until the next connect.`,
          cause === undefined ? undefined : { cause },
        ),
      );
      return;
    }
    this.#later(
      retryMs ?? this.#delay(attempts),
      () =>
        void this.#openListenStream(
          generation,
          lastEventId,
          attempts + 1,
          retryMs,
        ),
    );
  }

  /** Parses an event's data and delivers it; returns whether it held the response to `awaiting`. */
  #dispatchText(data: string, awaiting: RequestId | undefined): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.#report(
        new Error(
          `MCP server at ${
            displayUrl(this.#url)
          } sent an SSE event that is not JSON: ${
            excerpt(data, this.#http.secrets)
          }`,
        ),
      );
      return false;
    }
    return this.#dispatch(parsed, awaiting);
  }

  #dispatch(data: unknown, awaiting: RequestId | undefined): boolean {
    if (!Array.isArray(data)) return this.#deliver(data, awaiting);
    let answered = false;
    for (const item of data) {
      if (this.#deliver(item, awaiting)) answered = true;
    }
    return answered;
  }

  #deliver(message: unknown, awaiting: RequestId | undefined): boolean {
    if (
      message === null || typeof message !== "object" || Array.isArray(message)
    ) {
      this.#report(
        new Error(
          `MCP server at ${
            displayUrl(this.#url)
          } sent something that is not a JSON-RPC message object: ${
            excerpt(JSON.stringify(message) ?? "", this.#http.secrets)
          }`,
        ),
      );
      return false;
    }
    const answered = awaiting !== undefined &&
      (message as { id?: unknown }).id === awaiting &&
      ("result" in message || "error" in message);
    try {
      this.onmessage?.(message as JSONRPCMessage);
    } catch (error) {
      this.#report(error);
    }
    return answered;
  }

  /** A new `initialize` starts a new session: forget the old one. */
  #resetSession(): void {
    this.#stopListening();
    if (this.#sessionId === undefined && this.#protocolVersion === undefined) {
      return;
    }
    this.#sessionId = undefined;
    this.#protocolVersion = undefined;
    this.#rebuildHeaders();
  }

  #rebuildHeaders(): void {
    const base = this.#http.base;
    const session: Record<string, string> = {};
    if (this.#sessionId !== undefined) {
      session["mcp-session-id"] = this.#sessionId;
    }
    if (this.#protocolVersion !== undefined) {
      session["mcp-protocol-version"] = this.#protocolVersion;
    }
    this.#initHeaders = {
      ...base,
      accept: ACCEPT_BOTH,
      "content-type": "application/json",
    };
    this.#postHeaders = { ...this.#initHeaders, ...session };
    this.#streamHeaders = { ...base, accept: EVENT_STREAM, ...session };
    this.#deleteHeaders = { ...base, ...session };
  }

  /** The error for a non-2xx answer; detects an expired session. */
  async #statusError(
    response: Response,
    what: string,
    sentSession: string | undefined,
  ): Promise<Error> {
    const text = await readBodyStart(response);
    const status = response.status;
    if (
      sentSession !== undefined &&
      (status === 404 ||
        (status === 400 && namesStaleSession(text, sentSession)))
    ) {
      if (this.#sessionId === sentSession) {
        this.#sessionId = undefined;
        this.#stopListening();
        this.#rebuildHeaders();
      }
      return new MCPSessionExpiredError(
        `MCP server at ${
          displayUrl(this.#url)
        } no longer knows this session (HTTP ${status} to ${what}: ${
          excerpt(text, this.#http.secrets)
        }); the message was not processed. Send "initialize" to start a new session, then send it again.`,
      );
    }
    const hint = status === 401 || status === 403
      ? ' Check the credentials in "headers".'
      : status === 404
      ? ' Check that "url" is the server\'s MCP endpoint.'
      : "";
    return new MCPConnectionError(
      `MCP server at ${
        displayUrl(this.#url)
      } answered ${what} with HTTP ${status}${
        response.statusText ? ` ${response.statusText}` : ""
      }: ${excerpt(text, this.#http.secrets)}.${hint}`,
    );
  }

  #fetchError(error: unknown, what: string): MCPConnectionError {
    if (this.#closed()) return this.#closedError();
    if (error instanceof MCPConnectionError) return error;
    return new MCPConnectionError(
      `Cannot reach MCP server at ${displayUrl(this.#url)} (${what}): ${
        this.#http.redact(errorMessage(error))
      }. Check that the server runs and "url" is right.`,
      { cause: error },
    );
  }

  /** A method, not a comparison, so TypeScript does not narrow across awaits. */
  #closed(): boolean {
    return this.#state === "closed";
  }

  #closedError(): MCPConnectionError {
    return new MCPConnectionError(
      `The streamable HTTP transport to ${
        displayUrl(this.#url)
      } is closed; create a new one to connect again.`,
    );
  }

  /** Backoff delay for the given attempt. */
  #delay(attempt: number): number {
    const { initialDelayMs, growFactor, maxDelayMs } = this.#backoff;
    return Math.min(initialDelayMs * growFactor ** attempt, maxDelayMs);
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  #report(error: unknown): void {
    if (this.#closed()) return;
    try {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A throwing onerror must not break the stream readers.
    }
  }
}

/** Names a message in error text: its method, quoted. */
function describe(method: string | undefined): string {
  return method === undefined ? "a response" : JSON.stringify(method);
}

/** Whether a 400 body says the server does not know the session `sent`. */
function namesStaleSession(body: string, sent: string): boolean {
  return STALE_SESSION_400.test(body) ||
    (sent.length >= MIN_SESSION_ID_CHARS && body.includes(sent));
}

function isMessageEvent(event: EventSourceMessage): boolean {
  return event.event === undefined || event.event === "message";
}

function checkNumber(
  field: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new MCPConfigError(
      field,
      `StreamableHTTPTransport: "${field}" must be a non-negative number, got ${
        String(value)
      }.`,
    );
  }
  return value;
}
