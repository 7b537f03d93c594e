/**
 * What the core asks of telemetry: the hooks a connection and its sessions
 * call, and where the OpenTelemetry API keeps its providers. `hook.ts`
 * loads the implementation (`otel.ts`) and re-exports this contract to the
 * protocol; `otel.ts` implements it. Types and one key only. Internal.
 *
 * @module
 */

import type { MCPServerConfig } from "../server_config.ts";

/** Where `@opentelemetry/api` 1.x keeps its registered providers. */
export const OTEL_API_KEY: unique symbol = Symbol.for(
  "opentelemetry.js.api.1",
) as never;

/**
 * What a failure that is not an error is recorded as (`cancelled`: the
 * client asked for it; `era_probe`: the probe found out the era), or
 * `undefined` for an error.
 */
export type ExpectedFailure = (error: unknown) => string | undefined;

/** One traced request: the params to send, and a watcher of its outcome. */
export interface TracedRequest {
  /** The params with the trace context in `_meta`. */
  params: Record<string, unknown>;
  /**
   * Ends the request's span and records its duration; a failure
   * `expected` names is recorded as that outcome, not as an error.
   */
  watch<T>(sent: Promise<T>, expected?: ExpectedFailure): Promise<T>;
}

/** What a session asks of telemetry. */
export interface SessionTelemetry {
  /**
   * Starts a request's span; `parent` is the `trace` of its request
   * options (an `invoke()`'s call). `undefined`: nothing to trace.
   */
  start(
    method: string,
    id: string | number,
    params: Record<string, unknown> | undefined,
    parent: unknown,
  ): TracedRequest | undefined;
  /** The protocol version negotiated. */
  setProtocolVersion(version: string): void;
  /** The session ended (`error` when it was lost); records its duration. */
  end(error?: Error): void;
}

/** A tool call's result envelope, as far as telemetry reads it. */
export interface CallOutcome {
  success: boolean;
  data: unknown;
  error: string | null;
  errorKind?: string;
}

/** What a connection asks of telemetry. */
export interface ConnectionTelemetry {
  /** Telemetry for a new session; `sessionId` reads the transport's. */
  session(
    kind: string,
    sessionId: () => string | undefined,
  ): SessionTelemetry;
  /**
   * Runs an `invoke()` under a `tools/call {tool}` span (or the caller's
   * active `execute_tool` span); `run` gets the handle to pass down as the
   * requests' `trace`.
   */
  call<T extends CallOutcome>(
    tool: string,
    run: (trace: unknown) => Promise<T>,
    options: { args: unknown; signal: AbortSignal | undefined },
  ): Promise<T>;
}

/** The loaded module's entry. */
export interface Telemetry {
  /**
   * Telemetry for one server connection; `secrets` says what no span,
   * event or metric may hold.
   */
  connection(
    config: MCPServerConfig,
    secrets: () => readonly string[],
  ): ConnectionTelemetry;
}
