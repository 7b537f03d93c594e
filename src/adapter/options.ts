/**
 * The options of `MCPToolAdapter`: their types, their defaults,
 * and the connection they configure (`connectionOf`). The layers above the
 * adapter (the hub, the command line) take their option types from here
 * and never reach the protocol or the transports themselves.
 *
 * @module
 */

import type { CapabilityOverrides } from "../tools/capabilities.ts";
import type { PinnedTools } from "../tools/fingerprint.ts";
import type { MCPServerConfig } from "../server_config.ts";
import {
  Connection,
  type ConnectionOptions,
  type TransportFactory,
} from "../protocol/connection.ts";
import type { ClientHandlers } from "../protocol/handlers.ts";
import type { MCPTelemetryOptions } from "../telemetry/types.ts";
import type { TaskStore } from "../tasks/store.ts";
import type { OAuthClientProviderLike } from "../auth/provider.ts";
import { checkMaxMessageBytes } from "../transports/limits.ts";
import type { MCPTransport } from "../transports/transport.ts";
import type { InvokeOptions, MCPLogHandler } from "../types.ts";
import { checkTimeoutMs } from "../util/time.ts";
import { VERSION } from "../version.ts";

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

/** A call's deadline without a `requestTimeoutMs` option; the CLI names it in hints. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** `connect()`'s deadline without a `connectTimeoutMs` option. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Sent in `initialize` without a `clientInfo` option. */
const CLIENT_INFO = { name: "@cleveragents/mcp-adapter", version: VERSION };

/** What the adapter wires into its connection besides its options. */
export type ConnectionWiring = Pick<
  ConnectionOptions,
  "onError" | "secrets" | "onToolsChanged" | "onNotice"
>;

/**
 * The connection `options` configure for `config` (already validated).
 *
 * @throws {MCPConfigError} When `connectTimeoutMs` or `maxMessageBytes` is invalid.
 */
export function connectionOf(
  config: MCPServerConfig,
  options: MCPToolAdapterOptions,
  wiring: ConnectionWiring,
): Connection {
  return new Connection({
    config,
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
    onLog: options.onLog,
    telemetry: options.telemetry,
    ...wiring,
  });
}
