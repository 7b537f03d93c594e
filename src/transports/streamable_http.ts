/**
 * The streamable HTTP transport (MCP 2025-03-26 and later): every message is
 * a POST whose answer is JSON or an SSE stream; an optional GET stream
 * carries server-initiated messages. Web standards only (`fetch`, web
 * streams, `AbortSignal`), so it runs on Deno, Node, Bun and edge runtimes.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPConfigError,
  MCPConnectionError,
  MCPUnusableAnswerError,
} from "../errors.ts";
import type { RemoteTransportOptions } from "./remote.ts";
import type {
  JSONRPCMessage,
  MCPAuthorizationCallback,
  MCPTransport,
  TransportSendOptions,
} from "./transport.ts";
import { headerValue } from "../util/header_value.ts";
import { asError } from "../util/caught.ts";
import { fetchFailure, HttpClient } from "./_client.ts";
import { mediaType, serverUrl } from "./_headers.ts";
import { discardBody, readBodyStart } from "./_body.ts";
import { displayUrl, excerpt } from "../util/redact.ts";
import { RequestStreams } from "./_streamable/requests.ts";
import {
  EVENT_STREAM,
  RESERVED_HEADERS,
  StreamableSession,
} from "./_streamable/session.ts";

/**
 * How broken SSE streams are reopened. A server's `retry:` takes the place
 * of `initialDelayMs`, but never below 1 s (or `initialDelayMs`, if you set
 * it shorter) and never above `maxDelayMs`.
 */
export interface StreamableHTTPReconnectionOptions {
  /** Delay before the first attempt, in milliseconds. Default 1000. */
  initialDelayMs?: number;
  /**
   * Longest delay between attempts, in milliseconds; it caps a server's
   * `retry:` too. Default 30000.
   */
  maxDelayMs?: number;
  /** Each delay is the previous one times this. Default 1.5. */
  growFactor?: number;
  /**
   * Attempts per broken stream before giving up. The count starts again
   * only when a stream made progress: it delivered a message, or stayed
   * open at least `maxDelayMs` (and 1 s). An event without a message (a
   * bare id or `retry:`) or a keep-alive does not count. Default 2.
   */
  maxRetries?: number;
}

/**
 * Options of {@linkcode StreamableHTTPTransport}: the remote transports'
 * shared ones ({@linkcode RemoteTransportOptions}) and its own.
 */
export interface StreamableHTTPTransportOptions extends RemoteTransportOptions {
  /** Backoff for reopening broken SSE streams. */
  reconnection?: StreamableHTTPReconnectionOptions;
  /** How long `close()` waits for the session's DELETE, in milliseconds. Default 2000. */
  closeTimeoutMs?: number;
  /**
   * Open the GET stream for server-initiated messages of a 2025-era session
   * (tool-list changes, logs, requests outside a call). Default `true`;
   * `false` for an adapter that lives for one request (a Worker's), which
   * would only open and tear it down.
   */
  serverStream?: boolean;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 2000;

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
 *   with GET and `Last-Event-ID` after the server's `retry:` delay (at
 *   least 1 s, at most `maxDelayMs`) or the backoff. If that fails,
 *   `onerror` receives an {@linkcode MCPRequestLostError} for the request.
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
  readonly #session: StreamableSession;
  readonly #requests: RequestStreams;
  readonly #closeTimeoutMs: number;
  /** Whether a 2025-era session opens its GET stream (`serverStream`). */
  readonly #serverStream: boolean;
  #state: "new" | "starting" | "open" | "closed" = "new";
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /**
   * The last `initialize` answer was cross-origin (a browser's CORS rules
   * applied) and showed no `Mcp-Session-Id`: the server may have assigned
   * one that the browser hid.
   */
  #sessionMaybeHidden = false;

  /**
   * Creates a transport; nothing is sent until the first `send()`.
   *
   * @param options The server URL, headers and tuning.
   * @throws {MCPConfigError} If `url` is not an absolute http(s) URL, a
   * header is malformed or managed by the transport, or a number is invalid.
   */
  constructor(options: StreamableHTTPTransportOptions) {
    const name = "StreamableHTTPTransport";
    const url = serverUrl(options.url, name);
    const http = new HttpClient(options, RESERVED_HEADERS, name);
    const r = options.reconnection ?? {};
    const backoff: Required<StreamableHTTPReconnectionOptions> = {
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
    this.#serverStream = options.serverStream !== false;
    const report = (error: unknown) => this.#report(error);
    http.onNote = report;
    const session = new StreamableSession({
      url,
      http,
      backoff,
      onEvent: (data) => this.#requests.deliverEvent(data),
      report,
    });
    http.onBaseChange = () => session.rebuild();
    this.#url = url;
    this.#http = http;
    this.#session = session;
    this.#requests = new RequestStreams({
      url,
      http,
      session,
      backoff,
      onMessage: (message) => this.onmessage?.(message),
      report,
    });
  }

  /** The session id the server assigned in its `initialize` answer, if any. */
  get sessionId(): string | undefined {
    return this.#session.id;
  }

  /** The protocol version sent as `MCP-Protocol-Version`, once set. */
  get protocolVersion(): string | undefined {
    return this.#session.protocolVersion;
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
   * Completes an OAuth authorization-code login: exchanges `code` (from the
   * redirect after the user approved at the URL of an
   * {@linkcode MCPAuthorizationRequiredError}) for tokens, with the
   * resource metadata and scope the server's challenge named. The next
   * request carries the new token; works on a closed transport too.
   *
   * @param authorizationCode The `code` parameter of the redirect.
   * @returns Resolves once the tokens are saved in the provider.
   * @throws {MCPConfigError} Without an `authProvider`.
   * @throws {MCPConnectionError} When the exchange fails.
   */
  /** OAuth tokens, codes and secrets this transport has seen, longest first. */
  get secrets(): readonly string[] {
    return this.#http.secrets;
  }

  finishAuth(callback: MCPAuthorizationCallback): Promise<void> {
    return this.#http.finishAuth(callback);
  }

  /**
   * Records the negotiated protocol version; it is sent as
   * `MCP-Protocol-Version` on every later request.
   *
   * @param version The version from the `initialize` result.
   */
  setProtocolVersion(version: string): void {
    this.#session.setProtocolVersion(version);
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
   * @throws {MCPInitializeStatusError} If the server answers `initialize`
   * with 400, 404 or 405: the URL may speak the legacy SSE transport.
   * @throws {MCPConnectionError} If the server cannot be reached, answers
   * with a non-2xx status, or with a body that is neither JSON nor SSE.
   */
  send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
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
    return this.#post(message, body, options?.headers);
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
    this.#requests.close();
    this.#session.close();
    this.#http.abort(this.#closedError());
    await this.#session.end(this.#closeTimeoutMs);
    if (!started) return;
    try {
      this.onclose?.();
    } catch (error) {
      this.#report(error);
    }
  }

  async #post(
    message: JSONRPCMessage,
    body: string,
    extra: Record<string, string> | undefined,
  ): Promise<void> {
    const method = "method" in message ? message.method : undefined;
    const initialize = method === "initialize";
    const modern = !initialize && this.#session.modern;
    if (initialize) this.#session.reset();
    else if (method === "notifications/cancelled") {
      this.#requests.cancel(
        (message as { params?: { requestId?: unknown } }).params?.requestId,
      );
      // The modern era cancels by closing the response: nothing to POST.
      if (modern) return;
    }
    const headers = initialize
      ? this.#session.initHeaders
      : modern && method !== undefined
      ? this.#modernHeaders(message, method, extra)
      : this.#session.postHeaders;
    // A modern request has no session.
    const sentSession = modern ? undefined : headers()["mcp-session-id"];
    // A request is registered before the POST, so a cancellation sent
    // meanwhile finds it.
    const id = method !== undefined && "id" in message ? message.id : undefined;
    const stream = id === undefined
      ? undefined
      : this.#requests.track(id, { method: method!, session: sentSession });
    const flight = this.#http.flight();
    // Cancelling a modern request closes its response, JSON or stream.
    if (modern && stream !== undefined) stream.abort = () => flight.abort();
    let following = false;
    try {
      let response: Response;
      try {
        response = await this.#http.request(
          "POST",
          this.#url,
          headers,
          body,
          flight.signal,
        );
      } catch (error) {
        throw await this.#fetchError(error, `POST ${messageLabel(method)}`);
      }
      if (initialize && response.ok) {
        const session = response.headers.get("mcp-session-id");
        if (session) this.#session.adopt(checkSessionId(session, this.#url));
        this.#sessionMaybeHidden = !session && response.type === "cors";
      }
      if (!response.ok) {
        const probing = method === "server/discover";
        const text = await readBodyStart(response);
        // A modern server answers errors such as -32022 (unsupported
        // version) with a 4xx and a JSON-RPC error: that is the answer.
        if (
          stream !== undefined && (modern || probing || initialize) &&
          (response.status === 400 || response.status === 404) &&
          this.#requests.deliverError(stream, text, modern || probing)
        ) return;
        const error = this.#session.statusError(response, text, {
          what: `POST ${messageLabel(method)}`,
          session: sentSession,
          initialize: initialize || probing,
        });
        // A session-less legacy request refused after a cross-origin
        // initialize: most likely the browser hid the session id.
        if (
          this.#sessionMaybeHidden && !initialize && !probing && !modern &&
          sentSession === undefined &&
          (response.status === 400 || response.status === 404)
        ) {
          const { HIDDEN_SESSION_HINT } = await import("./_cors.ts");
          throw new MCPConnectionError(
            `${error.message} ${HIDDEN_SESSION_HINT}`,
            { cause: error },
          );
        }
        throw error;
      }
      if (stream === undefined || response.status === 202 || stream.done) {
        discardBody(response);
        if (
          method === "notifications/initialized" && this.#serverStream
        ) this.#session.listen();
        return;
      }
      if (initialize) stream.session = this.#session.id;
      const type = mediaType(response.headers.get("content-type"));
      if (type === EVENT_STREAM && response.body !== null) {
        following = true;
        const land = () => this.#http.land(flight);
        this.#requests.follow(stream, response).then(land, land);
      } else if (type === "application/json") {
        let text: string;
        try {
          text = await this.#http.readText(
            response,
            () =>
              `MCP server at ${displayUrl(this.#url)} (answering POST ${
                messageLabel(method)
              })`,
          );
        } catch (error) {
          throw await this.#fetchError(error, `POST ${messageLabel(method)}`);
        }
        this.#requests.deliverJson(stream, text);
      } else {
        const text = await readBodyStart(response);
        throw new MCPUnusableAnswerError(
          `MCP server at ${displayUrl(this.#url)} answered POST ${
            messageLabel(method)
          } with HTTP ${response.status} and content type ${
            JSON.stringify(response.headers.get("content-type") ?? "(none)")
          }, neither JSON nor an SSE stream: ${
            excerpt(text, this.#http.secrets)
          }. Check that "url" points at an MCP streamable HTTP endpoint.`,
        );
      }
    } finally {
      // Only a stream being read stays registered.
      if (stream !== undefined) this.#requests.settle(stream);
      if (!following) this.#http.land(flight);
    }
  }

  /**
   * The headers of a modern POST: `Mcp-Method`, `Mcp-Name` where the method
   * names something, and the request's own (`Mcp-Param-*`).
   */
  #modernHeaders(
    message: JSONRPCMessage,
    method: string,
    extra: Record<string, string> | undefined,
  ): () => Record<string, string> {
    const params = (message as { params?: Record<string, unknown> }).params;
    const named = method === "resources/read"
      ? params?.uri
      : method === "tools/call" || method === "prompts/get"
      ? params?.name
      : method.startsWith("tasks/")
      ? params?.taskId
      : undefined;
    const own: Record<string, string> = { ...extra, "mcp-method": method };
    if (typeof named === "string") own["mcp-name"] = headerValue(named);
    return () => ({ ...this.#session.postHeaders(), ...own });
  }

  async #fetchError(
    error: unknown,
    what: string,
  ): Promise<MCPAdapterError> {
    if (this.#closed()) return this.#closedError();
    // Ours already says what is wrong (e.g. the OAuth flow's missing SDK):
    // "cannot reach" would send the user to check the URL instead.
    if (error instanceof MCPAdapterError) return error;
    // In a browser a request blocked by CORS fails like this too.
    const { corsBlockedHint } = await import("./_cors.ts");
    return new MCPConnectionError(
      `Cannot reach MCP server at ${displayUrl(this.#url)} (${what}): ${
        this.#http.redact(fetchFailure(error))
      }. Check that the server runs and "url" is right.${
        corsBlockedHint(this.#url)
      }`,
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

  #report(error: unknown): void {
    if (this.#closed()) return;
    try {
      this.onerror?.(asError(error));
    } catch {
      // A throwing onerror must not break the stream readers.
    }
  }
}

/** The longest `Mcp-Session-Id` accepted; ids are re-sent with every request. */
const MAX_SESSION_ID_CHARS = 1024;
/** What the specification allows in a session id: visible ASCII, 0x21 to 0x7E. */
const SESSION_ID = /^[\x21-\x7E]+$/;

/**
 * Checks the session id a server assigned: visible ASCII only (the
 * specification's rule), and not so long that re-sending it with every
 * request would be a burden.
 *
 * @throws {MCPConnectionError} Naming what is wrong, not the id itself.
 */
function checkSessionId(id: string, url: URL): string {
  if (id.length <= MAX_SESSION_ID_CHARS && SESSION_ID.test(id)) return id;
  const what = id.length > MAX_SESSION_ID_CHARS
    ? `${id.length} characters long (at most ${MAX_SESSION_ID_CHARS} are accepted)`
    : "with characters other than visible ASCII (0x21 to 0x7E), which the MCP specification forbids";
  throw new MCPConnectionError(
    `MCP server at ${
      displayUrl(url)
    } assigned an Mcp-Session-Id ${what}; refusing it. This is a bug in the server; report it to its maintainers.`,
  );
}

/** Names a message in error text: its method, quoted. */
function messageLabel(method: string | undefined): string {
  return method === undefined ? "a response" : JSON.stringify(method);
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
