/**
 * The transport contract and the JSON-RPC message shapes it carries.
 * Structurally compatible with the MCP SDK's `Transport`, so SDK transports
 * (e.g. `InMemoryTransport`) plug straight in.
 *
 * @module
 */

import type { MCPAuthorizationCallback } from "../auth/provider.ts";

export type { MCPAuthorizationCallback };

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** A JSON-RPC request: expects a response with the same `id`. */
export interface JSONRPCRequest {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** Matches the response to the request. */
  id: RequestId;
  /** The method to call, e.g. `"tools/call"`. */
  method: string;
  /** The method's parameters. */
  // deno-lint-ignore no-explicit-any
  params?: { [key: string]: any };
}

/** A JSON-RPC notification: no `id`, no response. */
export interface JSONRPCNotification {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The notification, e.g. `"notifications/progress"`. */
  method: string;
  /** Its parameters. */
  // deno-lint-ignore no-explicit-any
  params?: { [key: string]: any };
}

/** A successful JSON-RPC response. */
export interface JSONRPCResultResponse {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The id of the request this answers. */
  id: RequestId;
  /** The method's result. */
  // deno-lint-ignore no-explicit-any
  result: { [key: string]: any };
}

/** A JSON-RPC error response. `id` may be absent when the request could not be read. */
export interface JSONRPCErrorResponse {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The id of the request this answers, when known. */
  id?: RequestId;
  /** The JSON-RPC error: code, message and optional data. */
  error: { code: number; message: string; data?: unknown };
}

/** Any JSON-RPC message. */
export type JSONRPCMessage =
  | JSONRPCRequest
  | JSONRPCNotification
  | JSONRPCResultResponse
  | JSONRPCErrorResponse;

/** Per-message hints a transport may use (the SDK's `TransportSendOptions`). */
export interface TransportSendOptions {
  /** The request this message relates to (e.g. a progress notification's request). */
  relatedRequestId?: RequestId;
  /** A resumption token, for transports that support resuming. */
  resumptionToken?: string;
  /** Called when the transport issues a new resumption token. */
  onresumptiontoken?: (token: string) => void;
  /**
   * Extra HTTP headers for this message (the modern era's `Mcp-Param-*`
   * headers); transports without headers ignore them.
   */
  headers?: Record<string, string>;
}

/**
 * A bidirectional channel for JSON-RPC messages. Same shape as the MCP SDK's
 * `Transport`: `start()`, `send()`, `close()` plus `onmessage`, `onerror`,
 * `onclose` callbacks set by the session before `start()`.
 */
export interface MCPTransport {
  /** Opens the channel. Called once, after the callbacks are set. */
  start(): Promise<void>;
  /** Sends one message. Rejects if the channel is closed. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  /** Closes the channel and releases its resources; calls `onclose`. */
  close(): Promise<void>;
  /** Receives each incoming message. */
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Receives non-fatal errors (a malformed line, a failed write). */
  onerror?: ((error: Error) => void) | undefined;
  /**
   * Called once when the channel is closed, by either side. A transport
   * that failed (the server closed its output, sent a message past the size
   * limit, stopped reading) passes the reason; SDK transports pass none.
   */
  onclose?: ((reason?: Error) => void) | undefined;
  /** The session id, for transports that have one. */
  sessionId?: string | undefined;
  /**
   * Told the protocol version: the one negotiated in `initialize`, or the
   * modern revision the client asks with (then before its first request).
   */
  setProtocolVersion?: ((version: string) => void) | undefined;
  /**
   * The last lines the server wrote to its diagnostics channel (a stdio
   * server's stderr), secrets masked, oldest first; quoted when connecting
   * fails.
   */
  readonly stderrTail?: readonly string[] | undefined;
  /**
   * What a local server did so far (a stdio server: whether its process
   * still runs, how much it wrote to stdout); read when connecting times
   * out, to say what was seen.
   */
  readonly activity?: TransportActivity | undefined;
  /**
   * Values the transport learned that must stay out of every message
   * (OAuth tokens, codes, client secrets), longest first.
   */
  readonly secrets?: readonly string[] | undefined;
  /**
   * Completes an OAuth authorization-code login: exchanges the code the
   * authorization server redirected to, with what the transport kept from
   * the server's 401 or 403. Remote transports with an OAuth provider have
   * it; `MCPToolAdapter.finishAuth()` calls it.
   */
  finishAuth?:
    | ((callback: MCPAuthorizationCallback) => Promise<void>)
    | undefined;
}

/** What a local server did so far: see {@linkcode MCPTransport.activity}. */
export interface TransportActivity {
  /** Whether its process still runs. */
  running: boolean;
  /** How many bytes it wrote to stdout. */
  stdoutBytes: number;
}
