/**
 * Multi round-trip requests (MCP 2026-07-28): a modern server that needs
 * input answers `resultType: "input_required"` with `inputRequests`
 * (elicitation, sampling, roots) and an opaque `requestState`. The client's
 * own handlers answer them, the same ones that answer a 2025-era server's
 * requests, and the request is sent again, under a new id, with
 * `inputResponses` and the `requestState` as it came. Loaded with the first
 * such answer. Internal.
 *
 * @module
 */

import { MCPAdapterError, MCPTimeoutError } from "../errors.ts";
import { isRecord, kindOf } from "../util/values.ts";
import { race } from "../util/time.ts";
import { answers, type ClientHandlers } from "./handlers.ts";
import { answer } from "./_answer.ts";
import type { RequestOptions, Result, Session } from "./session.ts";
import type { ModernTaskContext, ModernTaskOptions } from "./_task_ext.ts";

/** Which handler answers each kind of input request, for messages. */
const HANDLER_NAMES: Readonly<Record<string, string>> = {
  "elicitation/create": "handlers.elicitation",
  "sampling/createMessage": "handlers.sampling",
  "roots/list": "handlers.roots",
};
/** The most input requests one answer may hold. */
const MAX_INPUT_REQUESTS = 64;

/** What the rounds need from the connection. */
export interface InputContext {
  /** The session the request went out on; every round uses it. */
  session: Session;
  /** The client's handlers. */
  handlers: ClientHandlers | undefined;
  /** Names the server in messages. */
  label: string;
  /** Rounds before giving up. */
  maxRounds: number;
  /** Sends a request over the connection (a task's polls). */
  request: ModernTaskContext["request"];
}

/**
 * What a modern result that is not `complete` becomes: `input_required`
 * runs the client's handlers for what the server asks (multi round-trip
 * requests) and sends the request again; a `tools/call` may become a task
 * (the tasks extension, `_task_ext.ts`), followed to its end; anything
 * else is an invalid answer.
 *
 * @throws {MCPAdapterError} `invalid_response` for a result type this client did not ask for.
 */
export async function settle(
  context: InputContext,
  method: string,
  params: Record<string, unknown>,
  options: ModernTaskOptions,
  result: Result,
): Promise<Result> {
  result = await inputRounds(context, method, params, options, result);
  const type = result.resultType;
  if (type === "task" && method === "tools/call") {
    const { followTask } = await import("./_task_ext.ts");
    return await followTask(context, String(params.name), result, options);
  }
  // A task's own requests may say "task" too (the extension's examples do).
  if (
    type === undefined || type === "complete" ||
    (type === "task" && method.startsWith("tasks/"))
  ) return result;
  throw new MCPAdapterError(
    "invalid_response",
    `MCP server "${context.label}" answered "${method}" with resultType ${
      JSON.stringify(String(type).slice(0, 40))
    }, which this client did not ask for; report this to the server's maintainers`,
  );
}

/**
 * Answers `result`'s input requests and sends the request again until the
 * server's answer is no longer `input_required`.
 *
 * @param params The request's original params; each round sends a copy
 * with that round's `inputResponses` and `requestState`.
 * @throws {MCPAdapterError} `invalid_response` for a malformed input
 * request; `input_required` when no handler answers what the server asks,
 * or the rounds run out.
 */
export async function inputRounds(
  context: InputContext,
  method: string,
  params: Record<string, unknown>,
  options: RequestOptions,
  result: Result,
): Promise<Result> {
  const { label } = context;
  for (let round = 1;; round++) {
    // Anything else is for the caller to judge (a task, say).
    if (result.resultType !== "input_required") return result;
    if (round > context.maxRounds) {
      throw new MCPAdapterError(
        "input_required",
        `MCP server "${label}" still asked for input after ${context.maxRounds} rounds of "${method}"; giving up`,
      );
    }
    // The user may take a while to answer; the call's total deadline holds.
    const total = options.totalTimeoutMs;
    const inputResponses = await race(
      answerAll(context, method, result.inputRequests),
      {
        signal: options.signal,
        timeoutMs: total === undefined ? undefined : Math.max(
          0,
          (options.startedAt ?? performance.now()) + total -
            performance.now(),
        ),
        onTimeout: () =>
          new MCPTimeoutError(
            `"${method}" on MCP server "${label}" ran past its total deadline of ${total} ms while its input was being answered`,
            total!,
          ),
      },
    );
    const retry: Record<string, unknown> = { ...params, inputResponses };
    // Echoed exactly as it came, and only when it came.
    if (typeof result.requestState === "string") {
      retry.requestState = result.requestState;
    } else delete retry.requestState;
    result = await context.session.request(method, retry, options);
  }
}

/**
 * The answers to input requests (one round's, or a task's), by the
 * server's keys.
 *
 * @throws {MCPAdapterError} `input_required` when no handler answers a
 * request; `invalid_response` for malformed requests, or too many.
 */
export async function answerAll(
  context: Pick<InputContext, "handlers" | "label">,
  method: string,
  requests: unknown,
): Promise<Record<string, unknown>> {
  const responses: Record<string, unknown> = {};
  if (requests === undefined) return responses;
  const { handlers, label } = context;
  if (!isRecord(requests)) {
    throw malformed(label, method, `inputRequests is ${kindOf(requests)}`);
  }
  const entries = Object.entries(requests);
  if (entries.length > MAX_INPUT_REQUESTS) {
    throw malformed(
      label,
      method,
      `${entries.length} input requests (at most ${MAX_INPUT_REQUESTS} are answered)`,
    );
  }
  const answered = await Promise.all(entries.map(async ([key, request]) => {
    if (!isRecord(request) || typeof request.method !== "string") {
      throw malformed(
        label,
        method,
        `input request ${JSON.stringify(key)} has no method`,
      );
    }
    const kind = request.method;
    if (!answers(handlers, kind)) {
      // Own keys only: a kind named `constructor` is a kind we do not know.
      const handler = Object.hasOwn(HANDLER_NAMES, kind)
        ? HANDLER_NAMES[kind]
        : undefined;
      throw new MCPAdapterError(
        "input_required",
        handler === undefined
          ? `MCP server "${label}" needs input of a kind this client does not know (${
            JSON.stringify(kind.slice(0, 60))
          }) to complete "${method}"`
          : `MCP server "${label}" needs input (${kind}) to complete "${method}": give the adapter ${handler} to answer it`,
      );
    }
    const params = isRecord(request.params) ? request.params : {};
    return [
      key,
      await answer(handlers!, { jsonrpc: "2.0", id: 0, method: kind, params }),
    ] as const;
  }));
  for (const [key, response] of answered) {
    Object.defineProperty(responses, key, {
      value: response,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return responses;
}

function malformed(
  label: string,
  method: string,
  what: string,
): MCPAdapterError {
  return new MCPAdapterError(
    "invalid_response",
    `MCP server "${label}" asked for input to "${method}" with ${what}; report this to the server's maintainers`,
  );
}
