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
} from "../../errors.ts";
import type { RequestId } from "../../transports/transport.ts";
import type { Result, Session } from "../session.ts";
import { isRecord } from "../../util/values.ts";
import { quotedValue } from "../../util/redact.ts";
import {
  CANCEL_TIMEOUT_MS,
  checkTaskId,
  isTerminal,
  malformedTask,
  MIN_POLL_MS,
  type TaskCallOptions,
  TaskWatch,
} from "./watch.ts";
import { delay } from "../../util/time.ts";

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
  /** Masked in the server's status messages before they are reported or quoted. */
  secrets: readonly string[];
  /** Whether the server declared `tasks.cancel`. */
  cancellable: boolean;
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
  resumed?: Result,
): Promise<Result> {
  const call = new ToolTask(connection, params, options);
  // A task created earlier (by a worker that is gone) is followed as it is.
  return await call.follow(resumed ?? await call.create());
}

/**
 * One task call, in its steps: `create()` sends the task-augmented
 * `tools/call`; `follow()` polls the task (`#poll`), pausing between polls
 * (`#pause`, woken early by status notifications), waits on `tasks/result`
 * for the server's requests while the task wants input (`#awaitInput`),
 * fetches the outcome (`#result`), sends `tasks/cancel` on a deadline or an
 * abort (`#cancel`) and lets everything go when the call ends (`#finish`).
 */
class ToolTask {
  readonly #connection: TaskConnection;
  readonly #params: Record<string, unknown>;
  readonly #options: TaskCallOptions;
  readonly #watch: TaskWatch;
  /** The session the task was created in; it is asked about in that one only. */
  #pinned: { session: Session; renewed(): boolean };
  /** Ends the requests under way when the call ends or `signal` aborts. */
  readonly #stop = new AbortController();
  /**
   * A wake that comes while no pause is under way (a poll is in flight)
   * skips the next pause, so no notification is lost.
   */
  #woken = false;
  #resume = () => {};
  /** The blocking `tasks/result` started on `input_required`; settles when the task ends. */
  #outcome: Promise<Result> | undefined;
  #settled = false;

  constructor(
    connection: TaskConnection,
    params: Record<string, unknown>,
    options: TaskCallOptions,
  ) {
    this.#connection = connection;
    this.#params = params;
    this.#options = options;
    this.#watch = new TaskWatch({
      timeoutMs: options.timeoutMs,
      totalTimeoutMs: options.totalTimeoutMs,
      startedAt: options.startedAt,
      onTaskStatus: options.onTaskStatus,
      tool: params.name,
      label: connection.label,
      signs: "progress or change",
      pollKey: "pollInterval",
      secrets: connection.secrets,
    });
    this.#pinned = connection.pin();
  }

  /**
   * Sends `tools/call` with `params.task`, in the session live now; one
   * expiry (nothing was processed) is renewed and retried, as for any
   * request. Returns the server's answer.
   */
  async create(): Promise<Result> {
    this.#params.task = {};
    try {
      return await this.#send();
    } catch (error) {
      if (!(error instanceof MCPSessionExpiredError)) throw error;
      await this.#connection.renew(this.#pinned.session);
      this.#pinned = this.#connection.pin();
      return await this.#send();
    }
  }

  /** The creating request: its progress is a sign of life for as long as the task runs. */
  #send(): Promise<Result> {
    const options = this.#options;
    return this.#pinned.session.request("tools/call", this.#params, {
      ...options,
      onProgress: (progress) => {
        this.#watch.pushBack();
        options.onProgress?.(progress);
      },
      keepProgress: true,
    });
  }

  /** Follows the task `created` names to its end; returns `created` for an inline answer. */
  async follow(created: Result): Promise<Result> {
    const task = created.task;
    if (!isRecord(task)) {
      this.#releaseProgress();
      const type = created.resultType;
      // A 2026 task or request for input is not a result: the tool did not run.
      if (type !== undefined && type !== "complete") {
        throw malformedTask(
          this.#connection.label,
          `resultType ${
            quotedValue(type, this.#connection.secrets)
          }, which is neither a 2025-11-25 task nor a tool result`,
        );
      }
      return created; // the server ran it inline
    }
    try {
      this.#watch.taskId = checkTaskId(task.taskId, this.#connection.label);
      // Recorded (durable tasks) before any status of it is reported.
      await this.#options.onTaskCreated?.({
        taskId: this.#watch.taskId,
        era: "legacy",
        report: task,
      });
    } catch (error) {
      this.#releaseProgress();
      throw error;
    }
    const { signal } = this.#options;
    const onAbort = () => {
      this.#stop.abort(signal!.reason);
      this.#wake();
    };
    signal?.addEventListener("abort", onAbort);
    const unlisten = this.#connection.listen((status) => {
      // A notification only wakes the poll, and only when it says something new.
      if (
        status === undefined ||
        (status.taskId === this.#watch.taskId &&
          this.#watch.observe(status, false))
      ) this.#wake();
    });
    try {
      this.#watch.observe(task, true);
      return await this.#run();
    } catch (error) {
      if (signal?.aborted) this.#cancel();
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      unlisten();
      this.#finish();
    }
  }

  /** The poll loop: deadlines, the end, input, a pause, a poll. */
  async #run(): Promise<Result> {
    const watch = this.#watch;
    const { signal } = this.#options;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const now = performance.now();
      if (watch.passed(now)) {
        this.#cancel();
        throw watch.timeout();
      }
      if (this.#settled || isTerminal(watch.state)) {
        if (watch.state === "cancelled") throw watch.cancelled();
        return await this.#result();
      }
      if (watch.state === "input_required") this.#awaitInput();
      // A wake skips the poll interval, not its floor: status notifications
      // that each say something new cannot make the client spin.
      if (this.#woken) await delay(Math.min(MIN_POLL_MS, watch.pauseMs(now)));
      else await this.#pause(watch.pauseMs(now));
      this.#woken = false;
      if (!this.#settled && !signal?.aborted) await this.#poll();
    }
  }

  /**
   * The server delivers its requests on `tasks/result`, which answers once
   * the task ends; polling goes on meanwhile, for the deadlines.
   */
  #awaitInput(): void {
    if (this.#outcome !== undefined) return;
    const outcome = this.#ask("tasks/result", Infinity);
    this.#outcome = outcome;
    outcome.then(() => this.#settled = true, () => this.#settled = true)
      .finally(() => this.#wake());
  }

  /** Waits `ms`, or until woken. */
  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#resume = () => {};
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#resume = done;
    });
  }

  #wake(): void {
    this.#woken = true;
    this.#resume();
  }

  /** `tasks/get`: the truth about the task's status. */
  async #poll(): Promise<void> {
    this.#watch.observe(
      await this.#ask("tasks/get", this.#watch.idleLeft()),
      true,
    );
  }

  /** The task's outcome, from `tasks/result` (or the one awaited since `input_required`). */
  async #result(): Promise<Result> {
    const watch = this.#watch;
    try {
      const value = await (this.#outcome ??
        this.#ask("tasks/result", watch.idleLeft()));
      return watch.state !== "failed" || value.isError === true ? value : {
        ...value,
        isError: true,
        content: [{ type: "text", text: watch.message ?? "the task failed" }],
      };
    } catch (error) {
      // A task cancelled while tasks/result waited has no result.
      if (!(error instanceof MCPProtocolError) || watch.state === "failed") {
        throw error;
      }
      await this.#poll();
      if (watch.state === "cancelled") throw watch.cancelled();
      throw error;
    }
  }

  /** A request about this task, in its own session only. */
  async #ask(method: string, wait: number): Promise<Result> {
    const { session, renewed } = this.#pinned;
    const options = this.#options;
    if (renewed()) throw this.#lost();
    try {
      return await session.request(method, { taskId: this.#watch.taskId }, {
        timeoutMs: wait,
        totalTimeoutMs: options.totalTimeoutMs,
        startedAt: options.startedAt,
        signal: this.#stop.signal,
        trace: options.trace,
      });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (error instanceof MCPSessionExpiredError) {
        await this.#connection.renew(session).catch(() => {});
        throw this.#lost();
      }
      if (error instanceof MCPTimeoutError) this.#cancel();
      throw error;
    }
  }

  /** Sends `tasks/cancel` (bounded, not awaited) to a task that may still run. */
  #cancel(): void {
    const { session, renewed } = this.#pinned;
    if (
      !this.#connection.cancellable || isTerminal(this.#watch.state) ||
      renewed()
    ) return;
    session.request("tasks/cancel", { taskId: this.#watch.taskId }, {
      timeoutMs: CANCEL_TIMEOUT_MS,
    }).catch(() => {});
  }

  #lost(): MCPAdapterError {
    return new MCPAdapterError(
      "task_lost",
      `its task ${
        JSON.stringify(this.#watch.taskId)
      } belonged to a session of MCP server "${this.#connection.label}" that was renewed (the server forgot it); a task id is never carried into another session, so the task's outcome is unknown`,
    );
  }

  #releaseProgress(): void {
    const token = (this.#params._meta as { progressToken: RequestId })
      ?.progressToken;
    this.#pinned.session.releaseProgress(token);
  }

  /** The call has ended: its progress token is let go, its requests end. */
  #finish(): void {
    this.#releaseProgress();
    this.#stop.abort();
  }
}
