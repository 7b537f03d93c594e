/**
 * The task fixture's task store: tasks bound to sessions, with every task
 * visible and steerable by a test. Used by `_task_server.ts` and
 * `_task_http.ts`.
 *
 * @module
 */

import type {
  CreateTaskOptions,
  TaskStore,
} from "@modelcontextprotocol/sdk/experimental/tasks";
import type {
  Request,
  RequestId,
  Result,
  Task,
} from "@modelcontextprotocol/sdk/types.js";

interface Entry {
  task: Task;
  tool: string;
  augmented: boolean;
  sessionId: string | undefined;
  result?: Result;
  /** `tasks/result` answers with this JSON-RPC error instead of a result. */
  error?: { code: number; message: string };
  polls: number;
}

/**
 * A task store bound to sessions: a task created in one session is "not
 * found" from another (the spec's isolation rule), unless `sessionBound`
 * is false (a server that binds tasks to the authorization context, or to
 * nothing, so a task outlives the session and the client that made it).
 * Holds no timers, so it never keeps a process alive; `ttl` is reported,
 * not enforced.
 */
export class FixtureTaskStore implements TaskStore {
  readonly #entries = new Map<string, Entry>();
  readonly #pollIntervalMs: number;
  readonly #sessionBound: boolean;

  constructor(pollIntervalMs = 20, options: { sessionBound?: boolean } = {}) {
    this.#pollIntervalMs = pollIntervalMs;
    this.#sessionBound = options.sessionBound ?? true;
  }

  createTask(
    taskParams: CreateTaskOptions,
    _requestId: RequestId,
    request: Request,
    sessionId?: string,
  ): Promise<Task> {
    const now = new Date().toISOString();
    const params = (request.params ?? {}) as Record<string, unknown>;
    const task: Task = {
      taskId: crypto.randomUUID(),
      status: "working",
      ttl: taskParams.ttl ?? null,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: taskParams.pollInterval ?? this.#pollIntervalMs,
    };
    this.#entries.set(task.taskId, {
      task,
      tool: String(params.name ?? request.method),
      augmented: params.task !== undefined,
      sessionId,
      polls: 0,
    });
    return Promise.resolve({ ...task });
  }

  getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const entry = this.#lookup(taskId, sessionId);
    return Promise.resolve(entry ? { ...entry.task } : null);
  }

  storeTaskResult(
    taskId: string,
    status: "completed" | "failed",
    result: Result,
    sessionId?: string,
  ): Promise<void> {
    return settle(() => {
      const entry = this.#live(taskId, sessionId);
      entry.result = result;
      this.#set(entry, status);
    });
  }

  getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const entry = this.#lookup(taskId, sessionId);
    if (!entry) return Promise.reject(new Error(`Task ${taskId} not found`));
    if (entry.error) {
      return Promise.reject(rpcError(entry.error.code, entry.error.message));
    }
    if (!entry.result) {
      return Promise.reject(
        new Error(`Task ${taskId} is ${entry.task.status} and has no result`),
      );
    }
    return Promise.resolve(entry.result);
  }

  updateTaskStatus(
    taskId: string,
    status: Task["status"],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    return settle(() =>
      this.#set(this.#live(taskId, sessionId), status, statusMessage)
    );
  }

  listTasks(
    _cursor?: string,
    sessionId?: string,
  ): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const tasks = [...this.#entries.keys()]
      .map((id) => this.#lookup(id, sessionId))
      .filter((entry) => entry !== undefined)
      .map((entry) => ({ ...entry.task }));
    return Promise.resolve({ tasks });
  }

  /** The task as stored, whatever its session (for the fixture's own work and for tests). */
  peek(taskId: string): Task | undefined {
    const entry = this.#entries.get(taskId);
    return entry ? { ...entry.task } : undefined;
  }

  /** Sets the message that the next status change carries. */
  setStatusMessage(taskId: string, statusMessage: string): void {
    const entry = this.#entries.get(taskId);
    if (entry) entry.task.statusMessage = statusMessage;
  }

  /** Makes `tasks/result` answer with a JSON-RPC error (the underlying request failed). */
  setResultError(taskId: string, code: number, message: string): void {
    const entry = this.#entries.get(taskId);
    if (entry) entry.error = { code, message };
  }

  /** Counts a `tasks/get` for `taskId`; returns the count so far. */
  countPoll(taskId: string): number {
    const entry = this.#entries.get(taskId);
    if (!entry) return 0;
    return ++entry.polls;
  }

  /** The tool and mode of a task. */
  origin(taskId: string): { tool: string; augmented: boolean } | undefined {
    const entry = this.#entries.get(taskId);
    return entry && { tool: entry.tool, augmented: entry.augmented };
  }

  #lookup(taskId: string, sessionId: string | undefined): Entry | undefined {
    const entry = this.#entries.get(taskId);
    if (
      this.#sessionBound && entry && sessionId !== undefined &&
      entry.sessionId !== undefined && entry.sessionId !== sessionId
    ) return undefined;
    return entry;
  }

  #live(taskId: string, sessionId: string | undefined): Entry {
    const entry = this.#lookup(taskId, sessionId);
    if (!entry) throw new Error(`Task ${taskId} not found`);
    if (isTerminal(entry.task.status)) {
      throw new Error(
        `Task ${taskId} is already ${entry.task.status}; it cannot change`,
      );
    }
    return entry;
  }

  #set(entry: Entry, status: Task["status"], statusMessage?: string): void {
    entry.task.status = status;
    if (statusMessage !== undefined) entry.task.statusMessage = statusMessage;
    entry.task.lastUpdatedAt = new Date().toISOString();
  }
}

/** A promise of `work()`'s value, rejected when it throws (store methods never throw). */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Whether a task status is final. */
export function isTerminal(status: Task["status"]): boolean {
  return status === "completed" || status === "failed" ||
    status === "cancelled";
}

/**
 * An error the SDK sends as `{code, message}` as it is. (An `McpError`
 * would reach the client as "MCP error -32602: MCP error -32602: …".)
 */
export function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
