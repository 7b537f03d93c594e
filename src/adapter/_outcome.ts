/**
 * The envelope of a read, a prompt or a completion, as `invoke()`'s: a
 * success with the checked answer, or a failure with an `errorKind` and a
 * message that names what failed and says what to do; only a missing
 * connection (or a login the user must approve) throws. Internal.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPAuthorizationRequiredError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPTimeoutError,
} from "../errors.ts";
import { protocolErrorKind } from "../protocol/era.ts";
import type { MCPFailure, MCPSuccess } from "../protocol/content_types.ts";
import type { MCPErrorKind } from "../types.ts";
import { errorMessage } from "../util/errors.ts";
import { redact, redactError } from "../util/redact.ts";

/** `-32002`: "resource not found" in the 2025 era (modern servers use -32602). */
const RESOURCE_NOT_FOUND = -32002;

/** A success, timed from `started`. */
export function succeeded<T>(data: T, started: number): MCPSuccess<T> {
  return {
    success: true,
    data,
    error: null,
    durationMs: performance.now() - started,
  };
}

/** A failure, timed from `started`, its message cleared of `secrets`. */
export function failed(
  errorKind: MCPErrorKind,
  message: string,
  started: number,
  secrets: readonly string[],
): MCPFailure {
  return {
    success: false,
    error: redact(message, secrets),
    errorKind,
    durationMs: performance.now() - started,
  };
}

/**
 * The failure for what a request threw; rethrows (redacted) what callers
 * must see thrown: a lost connection, a login to approve.
 *
 * @param error What was thrown.
 * @param what What failed, e.g. `Reading "demo://a"` or `Prompt "greet"`.
 * @param context When it started, its signal, the secrets to keep out.
 * @throws {MCPNotConnectedError} When the connection is missing or lost.
 * @throws {MCPAuthorizationRequiredError} When the user must approve a login.
 */
export function failure(
  error: unknown,
  what: string,
  context: {
    started: number;
    signal: AbortSignal | undefined;
    secrets: readonly string[];
  },
): MCPFailure {
  const { started, signal, secrets } = context;
  const fail = (kind: MCPErrorKind, message: string) =>
    failed(kind, message, started, secrets);
  if (
    error instanceof MCPNotConnectedError ||
    error instanceof MCPAuthorizationRequiredError
  ) throw redactError(error, secrets);
  if (error instanceof MCPTimeoutError) {
    return fail(
      "timeout",
      `${what} timed out: ${error.message}. Raise timeoutMs if the server needs longer.`,
    );
  }
  if (error instanceof MCPProtocolError) {
    const { kind, hint } = error.rpcCode === RESOURCE_NOT_FOUND
      ? { kind: "not_found" as const, hint: "" }
      : protocolErrorKind(error);
    return fail(
      kind,
      `${what} failed with a server error: ${error.message} (code ${error.rpcCode})${hint}`,
    );
  }
  if (signal?.aborted) {
    const reason = signal.reason;
    return fail(
      "cancelled",
      `${what} was cancelled: ${
        reason instanceof Error ? reason.message : String(reason ?? "aborted")
      }`,
    );
  }
  if (error instanceof MCPAdapterError && error.code === "invalid_response") {
    return fail("server_error", `${what} failed: ${error.message}`);
  }
  if (error instanceof MCPAdapterError && error.code === "input_required") {
    return fail("server_error", `${what} failed: ${error.message}`);
  }
  return fail("connection", `${what} failed: ${errorMessage(error)}`);
}
