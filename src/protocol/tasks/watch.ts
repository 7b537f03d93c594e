/**
 * What both kinds of task call keep while they follow a task: its last
 * status and message, the poll interval the server suggests, and the two
 * deadlines (idle time, pushed back by every change the task shows, and
 * the whole call's). Used by the 2025-11-25 tasks (`legacy.ts`) and the
 * 2026 tasks extension (`modern.ts`); the two differ in how a task is
 * created, asked for input and finished, not in how it is watched.
 * Internal.
 *
 * @module
 */

import { MCPAdapterError, MCPTimeoutError } from "../../errors.ts";
import type { MCPTaskState, MCPTaskStatus } from "../../types.ts";
import { quotedValue, redact } from "../../util/redact.ts";
import type { RequestOptions, Result } from "../session.ts";

/** Every task status. */
const STATES: readonly MCPTaskState[] = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
];
/** Task ids longer than this are refused: they are sent back on every poll. */
const MAX_TASK_ID_CHARS = 256;
/** The poll interval when the server suggests none (the SDK's default). */
const DEFAULT_POLL_MS = 1000;
/**
 * Bounds on the server's poll interval: 0 would spin, 1e9 would stall.
 * Polls are never closer than `MIN_POLL_MS`, whatever wakes them.
 */
export const MIN_POLL_MS = 10;
const MAX_POLL_MS = 5000;
/** How long a `tasks/cancel` sent on a timeout or abort may take. */
export const CANCEL_TIMEOUT_MS = 5000;

/** Whether a task in `state` has ended. */
export const isTerminal = (state: MCPTaskState): boolean =>
  state === "completed" || state === "failed" || state === "cancelled";

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

/** The error of a task request answered with `what`. */
export function malformedTask(label: string, what: string): MCPAdapterError {
  return new MCPAdapterError(
    "invalid_response",
    `MCP server "${label}" answered a task request with ${what}. This is a bug in the server; report it to its maintainers.`,
  );
}

/** `invoke()`'s request options, and where task status reports go. */
export interface TaskCallOptions extends RequestOptions {
  /** Receives the task's status when it changes. */
  onTaskStatus?: ((status: MCPTaskStatus) => void) | undefined;
  /**
   * Told once the server has named a task it created for the call, before
   * the task is polled (durable tasks record it in their store); awaited.
   */
  onTaskCreated?: ((task: TaskCreated) => Promise<unknown> | void) | undefined;
}

/** A task a tool call became, as {@linkcode TaskCallOptions.onTaskCreated} hears of it. */
export interface TaskCreated {
  /** Its id, checked. */
  taskId: string;
  /** `legacy`: MCP 2025-11-25 tasks; `modern`: the tasks extension. */
  era: "legacy" | "modern";
  /** The server's answer that created it. */
  report: Record<string, unknown>;
}

/** How a task call is watched. */
export interface TaskWatchOptions extends
  Pick<
    TaskCallOptions,
    "timeoutMs" | "totalTimeoutMs" | "startedAt" | "onTaskStatus"
  > {
  /** The tool called, for messages. */
  tool: unknown;
  /** The server's name, for messages. */
  label: string;
  /** What pushes the idle deadline back, as the timeout message says it. */
  signs: string;
  /** The report's field with the suggested poll interval. */
  pollKey: "pollInterval" | "pollIntervalMs";
  /** Status messages are cut to this many characters, after `secrets` are masked. */
  messageChars?: number;
  /** Masked in status messages before they are cut, reported or quoted. */
  secrets: readonly string[];
}

/**
 * A task's last known status and its deadlines. The deadlines run from
 * construction; `taskId` is set once the server has named the task.
 */
export class TaskWatch {
  /** The task's id, checked (`checkTaskId`). */
  taskId = "";
  /** The last status `tasks/get` (or creation) reported. */
  state: MCPTaskState = "working";
  /** The status message that came with `state`. */
  message: string | undefined;
  /** How long to wait between polls. */
  pollMs: number = DEFAULT_POLL_MS;
  readonly #options: TaskWatchOptions;
  readonly #hardDeadline: number;
  #idleDeadline: number;
  /** The last change reported, so that a repeat is not one. */
  #seen = "";

  constructor(options: TaskWatchOptions) {
    this.#options = options;
    const { totalTimeoutMs } = options;
    this.#hardDeadline = totalTimeoutMs === undefined
      ? Infinity
      : (options.startedAt ?? performance.now()) + totalTimeoutMs;
    this.#idleDeadline = performance.now() + options.timeoutMs;
  }

  /** A sign of life: the idle deadline starts again. */
  pushBack(): void {
    this.#idleDeadline = performance.now() + this.#options.timeoutMs;
  }

  /**
   * Takes a status report in: `truth` for `tasks/get` (and creation), not
   * for a notification, which changes nothing but the idle deadline and
   * the status reported. Returns whether anything changed.
   *
   * @throws {MCPAdapterError} `invalid_response` for an unknown status in the truth.
   */
  observe(report: Result, truth: boolean): boolean {
    const options = this.#options;
    const status = report.status as MCPTaskState;
    if (!STATES.includes(status)) {
      if (truth) {
        throw malformedTask(
          options.label,
          `task status ${quotedValue(status, options.secrets)}`,
        );
      }
      return false;
    }
    const text = typeof report.statusMessage === "string"
      ? redact(report.statusMessage, options.secrets).slice(
        0,
        options.messageChars,
      )
      : undefined;
    if (truth) {
      this.state = status;
      this.message = text;
      this.pollMs = pollMsOf(report[options.pollKey], this.pollMs);
    }
    // Not the value's own toString: it is the server's (`{"toString": 1}`).
    const updated = typeof report.lastUpdatedAt === "string"
      ? report.lastUpdatedAt.slice(0, 64)
      : "";
    const key = `${status}\n${text}\n${updated}`;
    if (key === this.#seen) return false;
    // A change is a sign of life: it pushes the idle deadline back.
    this.#seen = key;
    this.pushBack();
    const reported: MCPTaskStatus = { taskId: this.taskId, status };
    if (text !== undefined) reported.statusMessage = text;
    try {
      options.onTaskStatus?.(reported);
    } catch {
      // A broken listener must not end the task.
    }
    return true;
  }

  /** Whether a deadline has passed at `now`. */
  passed(now: number): boolean {
    return now >= this.#hardDeadline || now >= this.#idleDeadline;
  }

  /** The pause before the next poll, from `now`: the poll interval, cut by the deadlines. */
  pauseMs(now: number): number {
    return Math.min(
      this.pollMs,
      this.#idleDeadline - now,
      this.#hardDeadline - now,
    );
  }

  /** The idle time left (at least 1 ms): a request's own timeout. */
  idleLeft(): number {
    return Math.max(1, this.#idleDeadline - performance.now());
  }

  /** The total time left, or `undefined` without a total deadline. */
  totalLeft(): number | undefined {
    return this.#hardDeadline === Infinity
      ? undefined
      : Math.max(0, this.#hardDeadline - performance.now());
  }

  /** The error of a passed deadline, whichever comes first. */
  timeout(): MCPTimeoutError {
    const { tool, label, signs, timeoutMs, totalTimeoutMs } = this.#options;
    const name = `"${tool}" on MCP server "${label}"`;
    const total = this.#hardDeadline <= this.#idleDeadline;
    return new MCPTimeoutError(
      total
        ? `${name} timed out: its task ran past its total deadline of ${totalTimeoutMs} ms; the server was sent tasks/cancel`
        : `${name} timed out: its task showed no ${signs} for ${timeoutMs} ms (last status: ${this.state}${
          this.message ? ` "${this.message}"` : ""
        }); the server was sent tasks/cancel`,
      total ? totalTimeoutMs! : timeoutMs,
    );
  }

  /** The error of a task the server cancelled. */
  cancelled(): MCPAdapterError {
    return new MCPAdapterError(
      "task_cancelled",
      `its task was cancelled by the server${
        this.message ? `: ${this.message}` : ""
      }`,
    );
  }
}

/** The server's suggested poll interval, bounded; `current` when it suggests none. */
function pollMsOf(interval: unknown, current: number): number {
  return typeof interval === "number" && interval === interval
    ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval))
    : current;
}
