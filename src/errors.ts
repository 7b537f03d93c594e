/**
 * Error classes. One base class with a stable string `code`; subclasses only
 * for conditions a caller catches.
 *
 * @module
 */

/**
 * The `code` of every error this library throws or reports to `onError`:
 * one literal each, stable across releases. `MCPAdapterError.code` is typed
 * with it (and still takes any string, for errors of your own).
 *
 * - Connecting: `connection_failed`, `authorization_required`,
 *   `not_connected`, `session_expired`, `request_lost`,
 *   `oauth_issuer_missing`.
 * - Requests: `protocol_error` (a JSON-RPC error answer), `timeout`,
 *   `invalid_response` (an answer not as the specification says),
 *   `input_required` (input no handler answers), `not_supported`,
 *   `too_many_subscriptions`.
 * - Your input: `invalid_config`, `invalid_argument`.
 * - Tools: `tool_held` (pinned, changed), `not_pinned`, `no_web_crypto`.
 * - Tasks: `task_cancelled`, `task_not_found`, `task_elsewhere`,
 *   `task_leased`, `task_lost`, `task_store`.
 * - What a server sent that was set aside (to `onError`): `invalid_tool`,
 *   `invalid_ui_metadata`, `invalid_resource`, `invalid_prompt`.
 * - A hub's: `unknown_server`, `server_disabled`; search: `search_failed`.
 *
 * @example
 * ```ts
 * import { MCPAdapterError, type MCPErrorCode } from "@cleveragents/mcp-adapter";
 *
 * const retryable: MCPErrorCode[] = ["timeout", "request_lost"];
 * const error: unknown = new MCPAdapterError("timeout", "tools/call timed out");
 * if (error instanceof MCPAdapterError) console.log(retryable.includes(error.code as MCPErrorCode));
 * ```
 */
export type MCPErrorCode =
  | "connection_failed"
  | "authorization_required"
  | "not_connected"
  | "session_expired"
  | "request_lost"
  | "oauth_issuer_missing"
  | "protocol_error"
  | "timeout"
  | "invalid_response"
  | "input_required"
  | "not_supported"
  | "too_many_subscriptions"
  | "invalid_config"
  | "invalid_argument"
  | "tool_held"
  | "not_pinned"
  | "no_web_crypto"
  | "task_cancelled"
  | "task_not_found"
  | "task_elsewhere"
  | "task_leased"
  | "task_lost"
  | "task_store"
  | "invalid_tool"
  | "invalid_ui_metadata"
  | "invalid_resource"
  | "invalid_prompt"
  | "unknown_server"
  | "server_disabled"
  | "search_failed";

/** Options accepted by every adapter error. */
export interface MCPAdapterErrorOptions {
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Base class of every error thrown by this library.
 *
 * @example Telling adapter errors apart
 * ```ts
 * import { MCPAdapterError } from "@cleveragents/mcp-adapter";
 *
 * const error: unknown = new MCPAdapterError("config", "Bad config");
 * if (error instanceof MCPAdapterError) console.log(error.code);
 * ```
 */
export class MCPAdapterError extends Error {
  /** Stable, machine-readable error code: one of {@linkcode MCPErrorCode} for this library's errors. */
  readonly code: MCPErrorCode | (string & Record<never, never>);

  /**
   * Creates an error.
   *
   * @param code Stable machine-readable code.
   * @param message Human-readable message: names the value and says what to do.
   * @param options The cause, if any.
   */
  constructor(
    code: MCPErrorCode | (string & Record<never, never>),
    message: string,
    options?: MCPAdapterErrorOptions,
  ) {
    super(message, options);
    this.name = "MCPAdapterError";
    this.code = code;
  }
}

/**
 * The server could not be reached, started or initialized (the spec's
 * `ConnectionError`).
 *
 * @example
 * ```ts
 * import { MCPConnectionError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPConnectionError("Cannot start 'srv'");
 * console.log(error.code); // "connection_failed"
 * ```
 */
export class MCPConnectionError extends MCPAdapterError {
  /**
   * Creates a connection error.
   *
   * @param message What failed and what to do.
   * @param options The cause, if any.
   */
  constructor(message: string, options?: MCPAdapterErrorOptions) {
    super("connection_failed", message, options);
    this.name = "MCPConnectionError";
  }
}

/**
 * A server's HTTP answer that carries no usable JSON-RPC response: a status
 * the transport has no rule for (a 5xx, a 403), a body that is neither JSON
 * nor an event stream, JSON that does not parse. The request reached the
 * server, so the era probe tries `initialize` after it (a failed login or an
 * unreachable server are other errors). Internal: not exported by the root
 * entry; callers see an {@linkcode MCPConnectionError}.
 */
export class MCPUnusableAnswerError extends MCPConnectionError {}

/**
 * The server needs the user to authorize this client in a browser: an OAuth
 * authorization-code login, or a wider scope for what was asked (step-up).
 * Show the user {@linkcode MCPAuthorizationRequiredError.authorizationUrl};
 * the authorization server then redirects to the provider's `redirectUrl`
 * with a `code`, which `finishAuth(code)` exchanges for tokens. Afterwards
 * `connect()` (or the call that failed) goes through; a live connection,
 * its session and its tool list are kept. Thrown by `connect()`,
 * `discoverTools()` and `invoke()` of an adapter with an `authProvider`.
 *
 * @example Log in, then connect
 * ```ts ignore
 * import { MCPAuthorizationRequiredError, MCPToolAdapter } from "@cleveragents/mcp-adapter";
 *
 * declare const adapter: MCPToolAdapter;
 * declare function askUserToOpen(url: URL): Promise<string>; // resolves with the code
 *
 * try {
 *   await adapter.connect();
 * } catch (error) {
 *   if (!(error instanceof MCPAuthorizationRequiredError)) throw error;
 *   await adapter.finishAuth(await askUserToOpen(error.authorizationUrl));
 *   await adapter.connect();
 * }
 * ```
 *
 * @example
 * ```ts
 * import { MCPAuthorizationRequiredError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPAuthorizationRequiredError(
 *   "Log in first",
 *   new URL("https://auth.example.com/authorize?client_id=agent"),
 * );
 * console.log(error.code, error.authorizationUrl.host); // "authorization_required" "auth.example.com"
 * ```
 */
export class MCPAuthorizationRequiredError extends MCPConnectionError {
  /** Always `"authorization_required"`. */
  override readonly code: string = "authorization_required";
  /** The authorization server's page where the user approves this client. */
  readonly authorizationUrl: URL;

  /**
   * Creates an authorization-required error.
   *
   * @param message What needs authorizing and what to do.
   * @param authorizationUrl Where to send the user.
   * @param options The cause, if any.
   */
  constructor(
    message: string,
    authorizationUrl: URL,
    options?: MCPAdapterErrorOptions,
  ) {
    super(message, options);
    this.name = "MCPAuthorizationRequiredError";
    this.authorizationUrl = authorizationUrl;
  }
}

/**
 * A streamable HTTP server answered the `initialize` POST with 400, 404 or
 * 405: by the specification's backwards-compatibility procedure, the URL may
 * speak the legacy HTTP+SSE transport instead. The adapter then tries that
 * transport at the same URL (unless the config says `fallback: false`).
 *
 * @example
 * ```ts
 * import { MCPInitializeStatusError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPInitializeStatusError("HTTP 405 to initialize", 405);
 * console.log(error.status); // 405
 * ```
 */
export class MCPInitializeStatusError extends MCPConnectionError {
  /** The HTTP status of the answer: 400, 404 or 405. */
  readonly status: number;

  /**
   * Creates the error.
   *
   * @param message What the server answered.
   * @param status The HTTP status.
   */
  constructor(message: string, status: number) {
    super(message);
    this.name = "MCPInitializeStatusError";
    this.status = status;
  }
}

/**
 * An operation needs a connection and there is none: before `connect()`,
 * after `disconnect()`, or after the connection dropped (the spec's
 * `RuntimeError`).
 *
 * @example
 * ```ts
 * import { MCPNotConnectedError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPNotConnectedError("Call connect() first");
 * console.log(error.code); // "not_connected"
 * ```
 */
export class MCPNotConnectedError extends MCPAdapterError {
  /**
   * Creates a not-connected error.
   *
   * @param message What was attempted and what to do.
   * @param options The cause, if any.
   */
  constructor(message: string, options?: MCPAdapterErrorOptions) {
    super("not_connected", message, options);
    this.name = "MCPNotConnectedError";
  }
}

/**
 * An `MCPServerConfig` is invalid. The message names the field and the fix.
 *
 * @example
 * ```ts
 * import { MCPConfigError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPConfigError("command", "stdio needs a command");
 * console.log(error.field); // "command"
 * ```
 */
export class MCPConfigError extends MCPAdapterError {
  /** The offending field, e.g. `"url"`. */
  readonly field: string;

  /**
   * Creates a config error.
   *
   * @param field The offending field.
   * @param message What is wrong and what to write instead.
   * @param options The cause, if any.
   */
  constructor(
    field: string,
    message: string,
    options?: MCPAdapterErrorOptions,
  ) {
    super("invalid_config", message, options);
    this.name = "MCPConfigError";
    this.field = field;
  }
}

/**
 * The server answered a request with a JSON-RPC error. Distinct from
 * transport failures: the server was reached and said no.
 *
 * @example
 * ```ts
 * import { MCPProtocolError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPProtocolError(-32601, "Method not found");
 * console.log(error.rpcCode); // -32601
 * ```
 */
export class MCPProtocolError extends MCPAdapterError {
  /** The JSON-RPC error code. */
  readonly rpcCode: number;
  /** The error's `data` member, if any. */
  readonly data: unknown;

  /**
   * Creates a protocol error.
   *
   * @param rpcCode The JSON-RPC error code.
   * @param message The server's message.
   * @param data The error's `data` member.
   */
  constructor(rpcCode: number, message: string, data?: unknown) {
    super("protocol_error", message);
    this.name = "MCPProtocolError";
    this.rpcCode = rpcCode;
    this.data = data;
  }
}

/**
 * A request passed its deadline.
 *
 * @example
 * ```ts
 * import { MCPTimeoutError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPTimeoutError("tools/call timed out after 100 ms", 100);
 * console.log(error.timeoutMs); // 100
 * ```
 */
export class MCPTimeoutError extends MCPAdapterError {
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;

  /**
   * Creates a timeout error.
   *
   * @param message What timed out.
   * @param timeoutMs The deadline in milliseconds.
   */
  constructor(message: string, timeoutMs: number) {
    super("timeout", message);
    this.name = "MCPTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A remote server no longer knows our session (HTTP 404, or the 400 "No
 * valid session ID" of SDK-based servers). The request was not processed;
 * the adapter re-initializes and sends it again.
 *
 * @example
 * ```ts
 * import { MCPSessionExpiredError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPSessionExpiredError("Session expired (HTTP 404)");
 * console.log(error.code); // "session_expired"
 * ```
 */
export class MCPSessionExpiredError extends MCPAdapterError {
  /**
   * Creates a session-expired error.
   *
   * @param message What the server answered.
   * @param options The cause, if any.
   */
  constructor(message: string, options?: MCPAdapterErrorOptions) {
    super("session_expired", message, options);
    this.name = "MCPSessionExpiredError";
  }
}

/**
 * A transport lost one request's response (e.g. an HTTP response stream
 * broke and could not be resumed). The call may or may not have run.
 * Transports report it through `onerror`; the session fails that request.
 *
 * @example
 * ```ts
 * import { MCPRequestLostError } from "@cleveragents/mcp-adapter";
 *
 * const error = new MCPRequestLostError(7, "The response stream broke");
 * console.log(error.requestId); // 7
 * ```
 */
export class MCPRequestLostError extends MCPAdapterError {
  /** The JSON-RPC id of the request whose response was lost. */
  readonly requestId: string | number;

  /**
   * Creates a request-lost error.
   *
   * @param requestId The JSON-RPC id of the lost request.
   * @param message What happened; should say the call may or may not have run.
   * @param options The cause, if any.
   */
  constructor(
    requestId: string | number,
    message: string,
    options?: MCPAdapterErrorOptions,
  ) {
    super("request_lost", message, options);
    this.name = "MCPRequestLostError";
    this.requestId = requestId;
  }
}
