/**
 * Tool calls that a modern server (MCP 2026-07-28) runs as tasks, through
 * the `io.modelcontextprotocol/tasks` extension: the client accepts tasks
 * in its capabilities, and a `tools/call` may be answered with
 * `resultType: "task"` instead of its result. The task is polled with
 * `tasks/get` at the server's `pollIntervalMs` until it ends; while it is
 * `input_required`, its `inputRequests` reach the client's handlers (each
 * key once) and the answers go back with `tasks/update`. Deadlines and
 * cancellation end it with `tasks/cancel`. A modern task is not tied to a
 * connection: polling goes through the connection's requests, so it
 * survives a reconnect. Loaded with the first task a modern server creates.
 * Internal.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPProtocolError,
  MCPTimeoutError,
} from "../../errors.ts";
import { isRecord } from "../../util/values.ts";
import { redact, redactData } from "../../util/redact.ts";
import { race, timerMs } from "../../util/time.ts";
import type { ClientHandlers } from "../handlers.ts";
import { answerAll } from "../_answer.ts";
import type { RequestOptions, Result } from "../session.ts";
import {
  CANCEL_TIMEOUT_MS,
  checkTaskId,
  isTerminal,
  malformedTask,
  type TaskCallOptions,
  TaskWatch,
} from "./watch.ts";

/** What a modern task needs from its connection. */
export interface ModernTaskContext {
  /** Sends a request over the connection (waits for a reconnect in progress). */
  request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Result>;
  /** The client's handlers, for the task's input requests. */
  handlers: ClientHandlers | undefined;
  /** Names the server in messages. */
  label: string;
  /** Masked in the server's status and error messages before they are cut. */
  secrets: readonly string[];
  /** Rounds of input before giving up: the bound of every modern request. */
  maxRounds: number;
}

/** `invoke()`'s options, as a modern task sees them. */
export type ModernTaskOptions = TaskCallOptions;

/**
 * Follows the task a `tools/call` was answered with (`created`) to its
 * end and returns the call's result: the `CallToolResult` of a completed
 * task (an `isError` one included).
 *
 * Deadlines: `timeoutMs` is idle time, pushed back by every change of the
 * task's status, status message or `lastUpdatedAt`; `totalTimeoutMs`
 * bounds the whole call. When one passes, or `signal` aborts, or the task
 * asks for input more than `maxRounds` times (the bound of a plain
 * request's rounds), the task is sent `tasks/cancel` (bounded, not
 * awaited). Every poll, after an answer too, waits the poll interval
 * (at least 10 ms).
 *
 * @throws {MCPProtocolError} The task failed (its JSON-RPC `error`), or a task request was refused.
 * @throws {MCPTimeoutError} A deadline passed.
 * @throws {MCPAdapterError} `"task_cancelled"`: the server cancelled it;
 * `"invalid_response"`: a malformed task; `"input_required"`: no handler
 * answers what the task asks.
 * @throws The signal's reason, when aborted.
 */
export async function followTask(
  context: ModernTaskContext,
  tool: string,
  created: Result,
  options: ModernTaskOptions,
): Promise<Result> {
  const { label } = context;
  const { signal } = options;
  const taskId = checkTaskId(created.taskId, label);
  const watch = new TaskWatch({
    timeoutMs: options.timeoutMs,
    totalTimeoutMs: options.totalTimeoutMs,
    startedAt: options.startedAt,
    onTaskStatus: options.onTaskStatus,
    tool,
    label,
    signs: "change",
    pollKey: "pollIntervalMs",
    messageChars: 1000,
    secrets: context.secrets,
  });
  watch.taskId = taskId;
  /** Input request keys already answered: a key is unique for the task's life. */
  const answered = new Set<string>();
  let rounds = 0;
  const ask = (method: string, params: Record<string, unknown>) =>
    context.request(method, { taskId, ...params }, {
      timeoutMs: watch.idleLeft(),
      totalTimeoutMs: options.totalTimeoutMs,
      startedAt: options.startedAt,
      signal,
    });
  const cancel = () => {
    if (isTerminal(watch.state)) return;
    context.request("tasks/cancel", { taskId }, {
      timeoutMs: CANCEL_TIMEOUT_MS,
    }).catch(() => {});
  };
  /** Takes a task report in; returns its detail (result, error, input requests). */
  const observe = (report: Result): Result => {
    watch.observe(report, true);
    return report;
  };

  try {
    await options.onTaskCreated?.({ taskId, era: "modern", report: created });
    let report = observe(created);
    for (;;) {
      if (watch.state === "completed") {
        if (!isRecord(report.result)) {
          throw malformedTask(label, "a completed task without a result");
        }
        return report.result;
      }
      if (watch.state === "failed") {
        throw failure(report.error, label, watch.message, context.secrets);
      }
      if (watch.state === "cancelled") throw watch.cancelled();
      if (watch.passed(performance.now())) throw watch.timeout();
      if (watch.state === "input_required") {
        const fresh = newRequests(report.inputRequests, answered);
        if (fresh !== undefined) {
          if (++rounds > context.maxRounds) {
            cancel();
            throw new MCPAdapterError(
              "input_required",
              `MCP server "${label}" still asked for input after ${context.maxRounds} rounds of its task for "${tool}"; giving up (the task was sent tasks/cancel)`,
            );
          }
          const inputResponses = await race(
            answerAll(context, "tools/call", fresh),
            {
              signal,
              timeoutMs: watch.totalLeft(),
              onTimeout: () => watch.timeout(),
            },
          );
          for (const key of Object.keys(inputResponses)) answered.add(key);
          await ask("tasks/update", { inputResponses });
        }
      }
      const now = performance.now();
      if (watch.passed(now)) throw watch.timeout();
      await pause(watch.pauseMs(now), signal);
      const polled = await ask("tasks/get", {});
      // `tasks/get` answers "complete"; some servers say "task" again.
      if (polled.resultType !== "complete" && polled.resultType !== "task") {
        throw malformedTask(
          label,
          `resultType ${JSON.stringify(polled.resultType)} to tasks/get`,
        );
      }
      report = observe(polled);
    }
  } catch (error) {
    if (signal?.aborted) {
      cancel();
      throw signal.reason;
    }
    if (!(error instanceof MCPTimeoutError)) throw error;
    cancel();
    throw watch.timeout();
  }
}

/** The input requests of a report not answered yet, or `undefined` for none. */
function newRequests(
  requests: unknown,
  answered: Set<string>,
): Record<string, unknown> | undefined {
  if (!isRecord(requests)) return undefined;
  let fresh: Record<string, unknown> | undefined;
  for (const [key, request] of Object.entries(requests)) {
    if (answered.has(key)) continue;
    fresh ??= {};
    Object.defineProperty(fresh, key, { value: request, enumerable: true });
  }
  return fresh;
}

/**
 * The error of a failed task: its JSON-RPC error, its message masked of
 * `secrets` before it is cut, or what the task said.
 */
function failure(
  error: unknown,
  label: string,
  message: string | undefined,
  secrets: readonly string[],
): Error {
  if (
    isRecord(error) && Number.isInteger(error.code) &&
    typeof error.message === "string"
  ) {
    return new MCPProtocolError(
      error.code as number,
      redact(error.message, secrets).slice(0, 1000),
      redactData(error.data, secrets),
    );
  }
  return new MCPAdapterError(
    "invalid_response",
    `MCP server "${label}" said the task failed${
      message ? ` (${message})` : ""
    } without a JSON-RPC error; report this to the server's maintainers`,
  );
}

/** Waits `ms`, or until `signal` aborts (its reason is thrown); no timer is left behind. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, timerMs(ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
