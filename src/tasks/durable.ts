/**
 * Durable tasks, the adapter's side (loaded by `MCPToolAdapter` with its
 * first task, `openTasks()` or `resumeTask()`): a call that became a task
 * is written to the task store with a lease this worker renews while it
 * polls; when the call ends its handle is removed, unless the call lost
 * its connection (or its login) and the task may still run: then the
 * lease is let go and another worker, or this one later, resumes it. A
 * resume takes the lease (waiting, bounded, for a crashed holder's to run
 * out), polls through the adapter, and ends the same way.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPProtocolError,
  MCPTimeoutError,
} from "../errors.ts";
import { delay, race } from "../util/time.ts";
import { isRecord } from "../util/values.ts";
import { MemoryTaskStore } from "./memory_store.ts";
import { sha256Hex } from "../util/bytes.ts";
import { type TaskHandle, taskHandleId, type TaskStore } from "./store.ts";

/** What a task call reports once its server has named the task. */
export interface CreatedTask {
  /** The task id, checked. */
  taskId: string;
  /** Which tasks: `legacy` (2025-11-25) or `modern` (the 2026 extension). */
  era: "legacy" | "modern";
  /** The server's answer that created it (its poll interval, its TTL). */
  report: Record<string, unknown>;
}

/** The call a task came from: its `tools/call` params. */
export interface TaskCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The call's deadline (its total, in ms from `startedAt`, a `performance.now()`) and its signal. */
export interface TaskDeadline {
  totalTimeoutMs?: number | undefined;
  startedAt?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What `durableOf()` reads of the adapter. */
export interface DurableOwner {
  config: { name: string; transport: string; url?: string };
}

/** A task this worker follows: `end()` once its call has settled. */
export interface Tracked {
  /**
   * Removes the handle, or, when the call failed with `error` short of the
   * task's end (see `cutOff`), lets its lease go and keeps it.
   */
  end(error?: unknown): Promise<void>;
}

/** How a resume waits for a task's lease. */
export interface ResumeWait {
  /**
   * How long to wait for the lease of a worker that stopped renewing it
   * (it crashed), in ms. `0`: give up at once when another worker holds
   * it. Default: twice the store's `leaseMs`.
   */
  waitMs?: number | undefined;
  /** Cancels the wait (and the call). */
  signal?: AbortSignal | undefined;
  /** The resumed call's total deadline, cut to what is left of the original's. */
  totalTimeoutMs?: number | undefined;
}

/** One adapter's durable tasks: its store, server and URL. */
export interface Durable {
  /** Records a task just created; resolves once its handle is stored (or failed to be). */
  track(
    task: CreatedTask,
    call: TaskCall,
    deadline: TaskDeadline,
  ): Promise<Tracked>;
  /** The open tasks of this server in the store. */
  list(): Promise<TaskHandle[]>;
  /**
   * Resumes the task of handle `id`: takes its lease, runs `follow` with
   * the tool, the call's total deadline and the answer that created the
   * task (as the connection follows it), then removes or keeps the handle
   * as `track` does.
   */
  resume<T>(
    id: string,
    options: ResumeWait,
    follow: (
      tool: string,
      totalTimeoutMs: number | undefined,
      created: Record<string, unknown>,
    ) => Promise<T>,
  ): Promise<T>;
}

/** The adapter's own store when it was given none: one per adapter. */
const defaults = new WeakMap<object, MemoryTaskStore>();

/** Bounds on what a server says about its task, in ms. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 5000;
const DEFAULT_POLL_MS = 1000;
/** A TTL longer than a week is taken as a week. */
const MAX_TTL_MS = 7 * 86_400_000;
/** How long one store operation may take: a store that hangs must not hang the call. */
const STORE_TIMEOUT_MS = 10_000;
/** First and longest pause between two attempts at a held lease. */
const FIRST_PAUSE_MS = 20;
const LONGEST_PAUSE_MS = 250;

/**
 * The durable side of one adapter. A stdio server's tasks are not
 * recorded: the server is the worker's child and ends with it.
 *
 * @param owner The adapter (its server; the key of its default store).
 * @param store The adapter's `taskStore`; default, a store in memory.
 * @param onError Where a store that fails is reported.
 */
export function durableOf(
  owner: DurableOwner,
  store: TaskStore | undefined,
  onError: ((error: Error) => void) | undefined,
): Durable {
  const { name: server, transport } = owner.config;
  const url = transport === "stdio" ? undefined : owner.config.url;
  let chosen = store ?? defaults.get(owner);
  if (chosen === undefined) {
    defaults.set(owner, chosen = new MemoryTaskStore());
  }
  const tasks = chosen;
  const endpoint = sha256Hex(url ?? "").then((hex) => hex.slice(0, 16));
  const report = (what: string, cause: unknown) =>
    onError?.(
      new MCPAdapterError(
        "task_store",
        `The task store failed to ${what} (MCP server "${server}"); the call goes on, but cannot be resumed elsewhere`,
        { cause },
      ),
    );

  /** Renews `id`'s lease every third of it until the returned stop. */
  const hold = (id: string, holder: string) => {
    const timer = setInterval(
      () => bounded(tasks.renew(id, holder), "renew a lease").catch(() => {}),
      Math.max(1, Math.floor(tasks.leaseMs / 3)),
    );
    return () => clearInterval(timer);
  };

  /** Removes the handle, or, when the call was `cutOff`, lets its lease go and keeps it. */
  const finish = async (id: string, holder: string, cutOff: boolean) => {
    try {
      await (cutOff
        ? bounded(tasks.release(id, holder), "let a lease go")
        : bounded(tasks.remove(id), "remove a task"));
    } catch (cause) {
      report(
        cutOff ? "let a task's lease go" : "remove a finished task",
        cause,
      );
    }
  };

  return {
    async track(task, call, deadline) {
      const none: Tracked = { end: () => Promise.resolve() };
      if (url === undefined) return none;
      const holder = crypto.randomUUID();
      let id: string;
      try {
        const fingerprint = await endpoint;
        id = await taskHandleId(server, fingerprint, task.taskId);
        const handle = handleOf(task, deadline, {
          id,
          server,
          endpoint: fingerprint,
          taskId: task.taskId,
          era: task.era,
          tool: call.name,
          argumentsHash: await digest(call.arguments),
        });
        await bounded(tasks.put(handle, holder), "record a task");
      } catch (cause) {
        report("record a task", cause);
        return none;
      }
      const stop = hold(id, holder);
      return {
        end: async (error) => {
          stop();
          await finish(id, holder, cutOff(error, deadline.signal));
        },
      };
    },

    async list() {
      const fingerprint = await endpoint;
      return (await bounded(tasks.list(server), "list tasks")).filter((
        handle,
      ) => handle.endpoint === fingerprint);
    },

    async resume(id, options, follow) {
      const handle = await bounded(tasks.get(id), "read a task");
      if (handle === undefined) {
        throw new MCPAdapterError(
          "task_not_found",
          `No open task ${
            JSON.stringify(id)
          } in the task store: it ended, expired, or was never recorded; "mcp-adapter tasks" and openTasks() list the open ones`,
        );
      }
      if (handle.server !== server || handle.endpoint !== await endpoint) {
        throw new MCPAdapterError(
          "task_elsewhere",
          `Task ${JSON.stringify(id)} belongs to MCP server ${
            JSON.stringify(handle.server)
          }${
            handle.server === server ? " at another URL" : ""
          }, not to this one ("${server}"); resume it with that server's adapter`,
        );
      }
      const holder = crypto.randomUUID();
      await claim(tasks, id, holder, options);
      const stop = hold(id, holder);
      const total = Math.min(
        options.totalTimeoutMs ?? Infinity,
        handle.deadlineAt === undefined
          ? Infinity
          : Math.max(1, handle.deadlineAt - Date.now()),
      );
      const { taskId, pollIntervalMs } = handle;
      let kept = true;
      try {
        const result = await follow(
          handle.tool,
          total === Infinity ? undefined : total,
          handle.era === "legacy"
            ? {
              task: { taskId, status: "working", pollInterval: pollIntervalMs },
            }
            : { resultType: "task", taskId, status: "working", pollIntervalMs },
        );
        // An envelope: "connection" is every failure short of the task's end.
        kept = !options.signal?.aborted &&
          (result as { errorKind?: unknown }).errorKind === "connection";
        return result;
      } catch (error) {
        kept = cutOff(error, options.signal);
        throw error;
      } finally {
        stop();
        await finish(id, holder, kept);
      }
    },
  };
}

/** `operation`, failing with an `MCPTimeoutError` when the store takes longer than it may. */
function bounded<T>(operation: Promise<T>, what: string): Promise<T> {
  return race(operation, {
    timeoutMs: STORE_TIMEOUT_MS,
    onTimeout: () =>
      new MCPTimeoutError(
        `the task store did not ${what} within ${STORE_TIMEOUT_MS} ms; check that it is reachable`,
        STORE_TIMEOUT_MS,
      ),
  });
}

/** Task errors that end the task: it was cancelled (by a deadline, too), failed, or cannot go on. */
const ENDING = new Set([
  "task_cancelled",
  "invalid_response",
  "input_required",
]);

/**
 * Whether a call that failed with `error` was cut off from a task that may
 * still run (its connection closed or dropped, a response was lost, its
 * login is needed, its session was renewed), rather than ended: a
 * deadline or an abort (the task was sent `tasks/cancel`), a failure the
 * server reported, a task the server cancelled or answered wrongly.
 */
function cutOff(error: unknown, signal: AbortSignal | undefined): boolean {
  return error !== undefined && !signal?.aborted &&
    !(error instanceof MCPTimeoutError) &&
    !(error instanceof MCPProtocolError) &&
    !(error instanceof MCPAdapterError && ENDING.has(error.code));
}

/** Takes the lease of `id`, pausing between attempts until `options.waitMs` has passed. */
async function claim(
  tasks: TaskStore,
  id: string,
  holder: string,
  options: ResumeWait,
): Promise<void> {
  const waitMs = options.waitMs ?? 2 * tasks.leaseMs;
  const deadline = Date.now() + waitMs;
  let pauseMs = FIRST_PAUSE_MS;
  while (!await bounded(tasks.claim(id, holder), "take a lease")) {
    const leftMs = deadline - Date.now();
    if (leftMs <= 0) {
      throw new MCPAdapterError(
        "task_leased",
        `Task ${
          JSON.stringify(id)
        } is being polled by another worker (it holds the task's lease${
          waitMs > 0 ? ` and renewed it for the ${waitMs} ms waited` : ""
        }); its result goes to that worker`,
      );
    }
    await delay(Math.min(leftMs, pauseMs * (0.5 + Math.random())));
    options.signal?.throwIfAborted();
    pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
  }
}

/** The handle of a task just created: `base`, with what its server said of it. */
function handleOf(
  task: CreatedTask,
  deadline: TaskDeadline,
  base: Omit<TaskHandle, "pollIntervalMs" | "createdAt">,
): TaskHandle {
  const now = Date.now();
  const modern = task.era === "modern";
  const poll = task.report[modern ? "pollIntervalMs" : "pollInterval"];
  const ttl = task.report[modern ? "ttlMs" : "ttl"];
  const handle: TaskHandle = {
    ...base,
    pollIntervalMs: typeof poll === "number" && poll === poll
      ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, poll))
      : DEFAULT_POLL_MS,
    createdAt: now,
  };
  const { totalTimeoutMs, startedAt } = deadline;
  if (totalTimeoutMs !== undefined) {
    handle.deadlineAt = Math.round(
      now + totalTimeoutMs - (performance.now() - (startedAt ?? 0)),
    );
  }
  const ends = [
    typeof ttl === "number" && ttl > 0 ? now + Math.min(ttl, MAX_TTL_MS) : NaN,
    handle.deadlineAt ?? NaN,
  ].filter((at) => at === at);
  if (ends.length > 0) handle.expiresAt = Math.min(...ends);
  return handle;
}

/** The fingerprint of a call's arguments: SHA-256 of their canonical JSON. */
function digest(args: Record<string, unknown>): Promise<string> {
  return sha256Hex(
    JSON.stringify(args, (_key, value) =>
      isRecord(value)
        ? Object.fromEntries(
          Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
        )
        : value),
  );
}

/** What {@linkcode resumeOpen} calls on an adapter. */
export interface Resumer<R> {
  openTasks(): Promise<TaskHandle[]>;
  resumeTask(id: string): Promise<R>;
}

/**
 * Resumes every open task of `adapters` (the hub's connected servers, on
 * `start({ resumeTasks })`), each result to `onResult`. A task another
 * worker polls, one that is gone, or one whose server is unreachable is
 * left to its worker or to a later start; it is not reported.
 *
 * @param adapters The adapters to resume the tasks of.
 * @param onResult Receives each resumed task's envelope.
 */
export async function resumeOpen<R>(
  adapters: readonly Resumer<R>[],
  onResult: (result: R, task: TaskHandle) => void,
): Promise<void> {
  await Promise.all(adapters.map(async (adapter) => {
    const open = await adapter.openTasks().catch(() => []);
    await Promise.all(open.map(async (task) => {
      let result: R;
      try {
        result = await adapter.resumeTask(task.id);
      } catch {
        return;
      }
      try {
        onResult(result, task);
      } catch {
        // A broken listener must not stop the other tasks.
      }
    }));
  }));
}
