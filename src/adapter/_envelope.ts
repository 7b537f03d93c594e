/**
 * Every envelope the adapter answers with, built here and nowhere else: a
 * tool call's `MCPToolResult` (`invoke()`) and a read's, a prompt's or a
 * completion's `MCPOutcome`. A success carries the answer and the time
 * taken; a failure an `errorKind`, classified once from what was thrown
 * (a {@linkcode CallFailure} a stage of the call raised, a JSON-RPC error
 * by its code, this library's errors by their typed `code`), and a
 * message, cleared of secrets, that names what failed and says what to
 * do. Only a missing connection, a login the user must approve and a
 * tool held back by its pin are thrown. Internal.
 *
 * @module
 */

import {
  MCPAuthorizationRequiredError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPTimeoutError,
} from "../errors.ts";
import {
  HEADER_MISMATCH,
  MISSING_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../protocol/era.ts";
import type { MCPFailure, MCPSuccess } from "../protocol/content_types.ts";
import type { MCPCallResult, MCPErrorKind, MCPToolFailure } from "../types.ts";
import { errorMessage, hasCode } from "../util/caught.ts";
import { didYouMean } from "../util/closest.ts";
import { redact, redactError } from "../util/redact.ts";
import { tickNow } from "../util/time.ts";

/**
 * A failure a stage of a call found itself (the tool not found, arguments
 * that fail their schema, an `isError` result, output that fails its
 * schema): already classified and worded, with the server's payload when
 * it sent one.
 */
export class CallFailure extends Error {
  /** The envelope's `errorKind`. */
  readonly kind: MCPErrorKind;
  /** The server's result, for an `isError` one or output that fails its schema. */
  readonly data: MCPCallResult | undefined;

  constructor(kind: MCPErrorKind, message: string, data?: MCPCallResult) {
    super(message);
    this.kind = kind;
    this.data = data;
  }
}

/**
 * What a stage of a call found wrong with it: the tool is not there (what
 * the server exposes instead, for the suggestion),
 * the arguments are not an object or fail the tool's schema, the tool
 * reported its own error, or its output fails its schema.
 */
export type Refusal =
  | { kind: "not_found"; server: string; names: readonly string[] }
  | { kind: "not_an_object"; given: unknown }
  | { kind: "invalid"; problems: readonly string[] }
  | { kind: "tool_error"; result: MCPCallResult }
  | { kind: "output"; problem: string; result: MCPCallResult };

/** The failure of tool `tool` for `refusal`, worded. */
export function refused(tool: string, refusal: Refusal): CallFailure {
  const name = `Tool "${tool}"`;
  switch (refusal.kind) {
    case "not_found": {
      const { names, server } = refusal;
      const listed = names.length === 0
        ? "it exposes no tools"
        : `available: ${names.slice(0, 20).join(", ")}${
          names.length > 20 ? ", …" : ""
        }`;
      return new CallFailure(
        "not_found",
        `${name} not found on MCP server "${server}"${
          didYouMean(tool, names)
        } (${listed}); check the name or the filter`,
      );
    }
    case "not_an_object": {
      const given = refusal.given;
      return new CallFailure(
        "validation",
        `Input validation failed for tool "${tool}": arguments must be an object of named arguments, got ${
          Array.isArray(given) ? "an array" : String(given)
        }`,
      );
    }
    case "invalid":
      return new CallFailure(
        "validation",
        `Input validation failed for tool "${tool}": ${
          refusal.problems.join("; ")
        }`,
      );
    case "tool_error":
      return new CallFailure(
        "server_error",
        `${name} reported a server error: ${
          textOf(refusal.result) || "no details given"
        }`,
        refusal.result,
      );
    case "output":
      return new CallFailure(
        "server_error",
        `${name} ${refusal.problem}`,
        refusal.result,
      );
  }
}

/** The text blocks of a result, one per line. */
function textOf(result: MCPCallResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .filter((item): item is { type: "text"; text: string } =>
      item?.type === "text" && typeof item.text === "string"
    )
    .map((item) => item.text)
    .join("\n");
}

/** When a failed operation started, what could cancel it, and what no message may contain. */
export interface FailureContext {
  /** Its start, a `performance.now()`. */
  started: number;
  /** Its signal: a failure after it aborted is a cancellation. */
  signal: AbortSignal | undefined;
  /** What no message may contain. */
  secrets: readonly string[];
}

/** `-32002`: "resource not found" in the 2025 era (modern servers use -32602). */
const RESOURCE_NOT_FOUND = -32002;
/** `-32602`: invalid params; modern servers also use it for a resource or tool not found. */
const INVALID_PARAMS = -32602;
/** The client capabilities a handler gives (`handlers.<name>`). */
const HANDLED = ["elicitation", "sampling", "roots"];

/** A success, timed from `started`. */
export function succeeded<T>(data: T, started: number): MCPSuccess<T> {
  return {
    success: true,
    data,
    error: null,
    durationMs: tickNow() - started,
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
 * The envelope of a tool call that failed with `error`.
 *
 * @param error What a stage of the call threw.
 * @param tool The tool's name.
 * @param context When the call started, its signal, the secrets to keep out.
 * @throws {MCPNotConnectedError} When the connection is missing or lost.
 * @throws {MCPAuthorizationRequiredError} When the user must approve a login.
 * @throws {MCPToolHeldError} When the tool is held back by its pin.
 */
export function callFailed(
  error: unknown,
  tool: string,
  context: FailureContext,
): MCPToolFailure {
  const { kind, message } = error instanceof CallFailure
    ? error
    : classify(error, `Tool ${JSON.stringify(tool)}`, TOOL, context);
  return {
    ...failed(kind, message, context.started, context.secrets),
    data: error instanceof CallFailure && error.data ? error.data : {},
  };
}

/**
 * The failure for what a read, a prompt or a completion threw.
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
  context: FailureContext,
): MCPFailure {
  const { kind, message } = classify(error, what, CONTENT, context);
  return failed(kind, message, context.started, context.secrets);
}

/** How each cause of a failure is told, after what failed. */
interface Wording {
  timeout: string;
  rpc: string;
  invalid: string;
  input: string;
  cancelled: string;
  taskCancelled: string;
  other: string;
  /** Whether -32002 ("resource not found") is a `not_found`. */
  resources: boolean;
}

/** A tool call's: `Tool "name" …`. */
const TOOL: Wording = {
  timeout:
    " timeout: {}. Raise timeoutMs or totalTimeoutMs if the tool needs longer.",
  rpc: " failed with a server error: {}",
  invalid: " failed with a server error: {}",
  input: " failed: {}",
  cancelled: " was cancelled: {}",
  taskCancelled: ": {}",
  other: " could not be called: {}",
  resources: false,
};

/** A read's, a prompt's, a completion's: `Reading "uri" …`. */
const CONTENT: Wording = {
  timeout: " timed out: {}. Raise timeoutMs if the server needs longer.",
  rpc: " failed with a server error: {}",
  invalid: " failed: {}",
  input: " failed: {}",
  cancelled: " was cancelled: {}",
  taskCancelled: " failed: {}",
  other: " failed: {}",
  resources: true,
};

/**
 * The kind of a failure and its message, from what was thrown: the one
 * classifier of every envelope.
 *
 * @throws {MCPNotConnectedError} When the connection is missing or lost.
 * @throws {MCPAuthorizationRequiredError} When the user must approve a login.
 */
function classify(
  error: unknown,
  what: string,
  wording: Wording,
  context: FailureContext,
): { kind: MCPErrorKind; message: string } {
  const told = (kind: MCPErrorKind, form: string, detail: string) => ({
    kind,
    message: what + form.replace("{}", () => detail),
  });
  if (
    error instanceof MCPNotConnectedError ||
    error instanceof MCPAuthorizationRequiredError ||
    hasCode(error, "tool_held")
  ) throw redactError(error, context.secrets);
  if (error instanceof MCPTimeoutError) {
    return told("timeout", wording.timeout, error.message);
  }
  if (error instanceof MCPProtocolError) {
    const { kind, hint } =
      wording.resources && error.rpcCode === RESOURCE_NOT_FOUND
        ? { kind: "not_found" as const, hint: "" }
        : rpcKind(error);
    return told(
      kind,
      wording.rpc,
      `${error.message} (code ${error.rpcCode})${hint}`,
    );
  }
  if (hasCode(error, "invalid_response")) {
    return told("server_error", wording.invalid, error.message);
  }
  if (hasCode(error, "input_required")) {
    return told("server_error", wording.input, error.message);
  }
  const signal = context.signal;
  if (signal?.aborted) {
    const reason = signal.reason;
    return told(
      "cancelled",
      wording.cancelled,
      reason instanceof Error ? reason.message : String(reason ?? "aborted"),
    );
  }
  if (hasCode(error, "task_cancelled")) {
    return told("cancelled", wording.taskCancelled, error.message);
  }
  return told("connection", wording.other, errorMessage(error));
}

/**
 * The `errorKind` of a JSON-RPC error a server answered with, and a hint
 * (empty, or a sentence that starts with "; ") saying what to do.
 */
function rpcKind(
  error: MCPProtocolError,
): { kind: MCPErrorKind; hint: string } {
  switch (error.rpcCode) {
    case UNSUPPORTED_PROTOCOL_VERSION:
      return {
        kind: "connection",
        hint:
          "; the server no longer speaks the protocol revision this connection uses: call reconnect() to negotiate again",
      };
    case MISSING_CLIENT_CAPABILITY: {
      const data = error.data as { requiredCapabilities?: unknown } | undefined;
      const needed = data?.requiredCapabilities;
      const names = needed !== null && typeof needed === "object"
        ? Object.keys(needed).slice(0, 8)
        : [];
      const handlers = names.filter((name) => HANDLED.includes(name));
      return {
        kind: "server_error",
        hint: handlers.length > 0
          ? `; the server needs the client to answer ${
            handlers.join(" and ")
          }: give the adapter ${
            handlers.map((name) => `handlers.${name}`).join(" and ")
          }`
          : `; the server needs client capabilities this client does not have (${
            names.map((name) => JSON.stringify(name.slice(0, 40))).join(", ")
          })`,
      };
    }
    case HEADER_MISMATCH:
      return {
        kind: "server_error",
        hint:
          "; the server found the request's HTTP headers and body disagreeing, a bug in a proxy, the server or this library: report it",
      };
    case INVALID_PARAMS:
      return /\bnot found\b/i.test(error.message)
        ? { kind: "not_found", hint: "" }
        : { kind: "server_error", hint: "" };
    default:
      return { kind: "server_error", hint: "" };
  }
}
