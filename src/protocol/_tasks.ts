/**
 * A tool call run as a task (MCP 2025-11-25, experimental): `tools/call`
 * with `params.task` creates it; `tasks/get` is polled at the server's
 * `pollInterval` (woken early by `notifications/tasks/status`, which is a
 * hint, never the truth); `tasks/result` fetches the outcome — and, while
 * the task is `input_required`, carries the server's elicitation or
 * sampling requests, which reach the handlers as usual. Deadlines and
 * cancellation end the task with `tasks/cancel`.
 *
 * A task id is used only as `params.taskId` in the session that created it:
 * the transport decides where requests go, and a renewed or closed session
 * ends the call. Loaded by `Connection.callTask()` on the first task call.
 * Internal.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPProtocolError,
  MCPSessionExpiredError,
  MCPTimeoutError,
} from "../errors.ts";
import type { MCPTaskState, MCPTaskStatus } from "../types.ts";
import type { RequestId } from "../transports/transport.ts";
import type { RequestOptions, Result, Session } from "./session.ts";
import { isRecord } from "../_util/values.ts";

/** `invoke()`'s request options, and where task status reports go. */
export interface TaskCallOptions extends RequestOptions {
  /** Receives the task's status when it changes. */
  onTaskStatus?: ((status: MCPTaskStatus) => void) | undefined;
}

/** What a task call needs from its connection. */
export interface TaskConnection {
  /** The live session, and whether it has been renewed since. */
  pin(): { session: Session; renewed(): boolean };
  /** Re-initializes after the server forgot `session`. */
  renew(session: Session): Promise<void>;
  /**
   * Subscribes to `notifications/tasks/status` params; `undefined` says the
   * session ended or was renewed. Returns the unsubscribe function.
   */
  listen(
    listener: (status: Record<string, unknown> | undefined) => void,
  ): () => void;
  /** The server's name, for messages. */
  label: string;
  /** Whether the server declared `tasks.cancel`. */
  cancellable: boolean;
}

/** Every task status. */
export const STATES: readonly MCPTaskState[] = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
];
/** Task ids longer than this are refused: they are sent back on every poll. */
const MAX_TASK_ID_CHARS = 256;
/** The poll interval when the server suggests none (the SDK's default). */
export const DEFAULT_POLL_MS = 1000;
/** Bounds on the server's `pollInterval`: 0 would spin, 1e9 would stall. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 5000;
/** How long a `tasks/cancel` sent on a timeout or abort may take. */
export const CANCEL_TIMEOUT_MS = 5000;

/** Whether a task in `state` has ended. */
export const isTerminal = (state: MCPTaskState): boolean =>
  state === "completed" || state === "failed" || state === "cancelled";

/** The server's suggested poll interval, bounded; `current` when it suggests none. */
export function pollMsOf(interval: unknown, current: number): number {
  return typeof interval === "number" && interval === interval
    ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval))
    : current;
}

/**
 * A task id, checked: it is sent back on every poll.
 *
 * @throws {MCPAdapterError} `invalid_response` when it is not a string of 1 to 256 characters.
 */
export function checkTaskId(taskId: unknown, label: string): string {
  if (
    typeof taskId === "string" && taskId !== "" &&
    taskId.length <= MAX_TASK_ID_CHARS
  ) return taskId;
  throw malformedTask(
    label,
    `a task id that is not a string of 1 to ${MAX_TASK_ID_CHARS} characters`,
  );
}

/**
 * Runs `tools/call` as a task and returns the call's result, as a plain
 * `tools/call` would: the `CallToolResult` of a completed task, an
 * `isError` result of a failed one. A server that runs the call inline
 * (no `task` in its answer) is taken at its word.
 *
 * Deadlines: `timeoutMs` is idle time, pushed back by progress on the
 * call's token (valid until the task ends) and by every change of the
 * task's status, status message or `lastUpdatedAt`; `totalTimeoutMs` bounds
 * the whole task. When one passes, or `signal` aborts, the task is sent
 * `tasks/cancel` (bounded, not awaited).
 *
 * @throws {MCPTimeoutError} A deadline passed.
 * @throws {MCPProtocolError} The task failed with a JSON-RPC error, or a task request was refused.
 * @throws {MCPAdapterError} `"task_cancelled"`: the server cancelled it;
 * `"task_lost"`: its session was renewed; `"invalid_response"`: a malformed task.
 * @throws {MCPNotConnectedError} The connection closed.
 * @throws The signal's reason, when aborted.
 */
export async function runToolTask(
  connection: TaskConnection,
  params: Record<string, unknown>,
  options: TaskCallOptions,
): Promise<Result> {
  const { timeoutMs, totalTimeoutMs, signal } = options;
  const name = `"${params.name}" on MCP server "${connection.label}"`;
  const hardDeadline = totalTimeoutMs === undefined
    ? Infinity
    : (options.startedAt ?? performance.now()) + totalTimeoutMs;
  let idleDeadline = performance.now() + timeoutMs;
  const pushBack = () => idleDeadline = performance.now() + timeoutMs;
  const onProgress = options.onProgress;

  // Created in the session live now; one expiry (nothing was processed) is
  // renewed and retried, as for any request.
  let pinned = connection.pin();
  params.task = {};
  const create = (session: Session) =>
    session.request("tools/call", params, {
      ...options,
      // Reached after awaits, and create() may run twice: read the clock afresh.
      now: undefined,
      onProgress: (progress) => {
        pushBack();
        onProgress?.(progress);
      },
      keepProgress: true,
    });
  let created: Result;
  try {
    created = await create(pinned.session);
  } catch (error) {
    if (!(error instanceof MCPSessionExpiredError)) throw error;
    await connection.renew(pinned.session);
    pinned = connection.pin();
    created = await create(pinned.session);
  }
  const { session, renewed } = pinned;
  const token = (params._meta as { progressToken: RequestId }).progressToken;
  const task = created.task;
  if (!isRecord(task)) {
    session.releaseProgress(token);
    return created; // the server ran it inline
  }
  let taskId: string;
  try {
    taskId = checkTaskId(task.taskId, connection.label);
  } catch (error) {
    session.releaseProgress(token);
    throw error;
  }

  let state = "working" as MCPTaskState;
  let message: string | undefined;
  let seen = "";
  let pollMs = DEFAULT_POLL_MS;
  /**
   * Takes a status report in: `truth` for `tasks/get` (and creation), not
   * for a notification. Returns whether anything changed.
   */
  const observe = (report: Result, truth: boolean): boolean => {
    const status = report.status as MCPTaskState;
    if (!STATES.includes(status)) {
      if (truth) {
        throw malformedTask(
          connection.label,
          `task status ${JSON.stringify(status)}`,
        );
      }
      return false;
    }
    const text = typeof report.statusMessage === "string"
      ? report.statusMessage
      : undefined;
    if (truth) {
      state = status;
      message = text;
      pollMs = pollMsOf(report.pollInterval, pollMs);
    }
    const key = `${status}\n${text}\n${report.lastUpdatedAt}`;
    if (key === seen) return false;
    // A change is a sign of life: it pushes the idle deadline back.
    seen = key;
    pushBack();
    const reported: MCPTaskStatus = { taskId, status };
    if (text !== undefined) reported.statusMessage = text;
    try {
      options.onTaskStatus?.(reported);
    } catch {
      // A broken listener must not end the task.
    }
    return true;
  };

  const stop = new AbortController();
  // A wake that comes while no pause is under way (a poll is in flight)
  // skips the next pause, so no notification is lost.
  let woken = false;
  let resume = () => {};
  const wake = () => {
    woken = true;
    resume();
  };
  const onAbort = () => {
    stop.abort(signal!.reason);
    wake();
  };
  signal?.addEventListener("abort", onAbort);
  const unlisten = connection.listen((status) => {
    // A notification only wakes the poll, and only when it says something new.
    if (
      status === undefined ||
      (status.taskId === taskId && observe(status, false))
    ) wake();
  });
  /** The blocking `tasks/result` started on `input_required`; settles when the task ends. */
  let outcome: Promise<Result> | undefined;
  let settled = false;

  const lost = () =>
    new MCPAdapterError(
      "task_lost",
      `its task ${
        JSON.stringify(taskId)
      } belonged to a session of MCP server "${connection.label}" that was renewed (the server forgot it); a task id is never carried into another session, so the task's outcome is unknown`,
    );
  /** A request about this task, in its own session only. */
  const ask = async (
    method: string,
    wait: number,
  ): Promise<Result> => {
    if (renewed()) throw lost();
    try {
      return await session.request(method, { taskId }, {
        timeoutMs: wait,
        totalTimeoutMs,
        startedAt: options.startedAt,
        signal: stop.signal,
        trace: options.trace,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof MCPSessionExpiredError) {
        await connection.renew(session).catch(() => {});
        throw lost();
      }
      if (error instanceof MCPTimeoutError) cancel();
      throw error;
    }
  };
  const cancel = () => {
    if (!connection.cancellable || isTerminal(state) || renewed()) return;
    session.request("tasks/cancel", { taskId }, {
      timeoutMs: CANCEL_TIMEOUT_MS,
    }).catch(() => {});
  };
  const result = async (): Promise<Result> => {
    try {
      const value = await (outcome ?? ask("tasks/result", idleLeft()));
      return state !== "failed" || value.isError === true ? value : {
        ...value,
        isError: true,
        content: [{ type: "text", text: message ?? "the task failed" }],
      };
    } catch (error) {
      // A task cancelled while tasks/result waited has no result.
      if (!(error instanceof MCPProtocolError) || state === "failed") {
        throw error;
      }
      observe(await ask("tasks/get", idleLeft()), true);
      if (state === "cancelled") throw cancelled();
      throw error;
    }
  };
  const cancelled = () =>
    new MCPAdapterError(
      "task_cancelled",
      `its task was cancelled by the server${message ? `: ${message}` : ""}`,
    );
  const idleLeft = () => Math.max(1, idleDeadline - performance.now());

  try {
    observe(task, true);
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const now = performance.now();
      if (now >= hardDeadline || now >= idleDeadline) {
        cancel();
        const total = hardDeadline <= idleDeadline;
        throw new MCPTimeoutError(
          total
            ? `${name} timed out: its task ran past its total deadline of ${totalTimeoutMs} ms; the server was sent tasks/cancel`
            : `${name} timed out: its task showed no progress or change for ${timeoutMs} ms (last status: ${state}${
              message ? ` "${message}"` : ""
            }); the server was sent tasks/cancel`,
          total ? totalTimeoutMs! : timeoutMs,
        );
      }
      if (settled || isTerminal(state)) {
        if (state === "cancelled") throw cancelled();
        return await result();
      }
      if (state === "input_required" && outcome === undefined) {
        // The server delivers its requests on tasks/result, which answers
        // once the task ends; polling goes on meanwhile, for the deadlines.
        outcome = ask("tasks/result", Infinity);
        outcome.then(() => settled = true, () => settled = true).finally(
          () => wake(),
        );
      }
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(
            done,
            Math.min(pollMs, idleDeadline - now, hardDeadline - now),
          );
          function done() {
            clearTimeout(timer);
            resume = () => {};
            resolve();
          }
          resume = done;
        });
      }
      woken = false;
      if (!settled && !signal?.aborted) {
        observe(await ask("tasks/get", idleLeft()), true);
      }
    }
  } catch (error) {
    if (signal?.aborted) cancel();
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    unlisten();
    session.releaseProgress(token);
    stop.abort();
  }
}

/** The error of a task request answered with `what`. */
export function malformedTask(label: string, what: string): MCPAdapterError {
  return new MCPAdapterError(
    "invalid_response",
    `MCP server "${label}" answered a task request with ${what}. This is a bug in the server; report it to its maintainers.`,
  );
}
