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
import { race } from "../util/time.ts";
import { quotedValue } from "../util/redact.ts";
import type { ClientHandlers } from "./handlers.ts";
import { answerAll } from "./_answer.ts";
import type { RequestOptions, Result, Session } from "./session.ts";
import type { ModernTaskContext, ModernTaskOptions } from "./tasks/modern.ts";

/** What the rounds need from the connection. */
export interface InputContext {
  /** The session the request went out on; every round uses it. */
  session: Session;
  /** The client's handlers. */
  handlers: ClientHandlers | undefined;
  /** Names the server in messages. */
  label: string;
  /** Masked in messages before a server's text is cut. */
  secrets: readonly string[];
  /** Rounds before giving up. */
  maxRounds: number;
  /** Sends a request over the connection (a task's polls). */
  request: ModernTaskContext["request"];
}

/**
 * What a modern result that is not `complete` becomes: `input_required`
 * runs the client's handlers for what the server asks (multi round-trip
 * requests) and sends the request again; a `tools/call` may become a task
 * (the tasks extension, `tasks/modern.ts`), followed to its end; anything
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
    const { followTask } = await import("./tasks/modern.ts");
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
      quotedValue(type, context.secrets)
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
