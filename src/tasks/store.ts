/**
 * What a task store is: the handles of tool calls that became tasks on
 * their server (either protocol era), kept so that another worker can
 * resume one when the worker that started it is gone, and a lease per
 * handle so that exactly one worker polls a task. Implemented in memory
 * (`memory_store.ts`, the default), in a file (`file_store.ts`, the
 * command line) and in Redis (`redis_store.ts`, a fleet). Re-exported by
 * `tasks.ts`; the types by `mod.ts` too.
 *
 * @module
 */

import { sha256Hex } from "../util/bytes.ts";

/**
 * A tool call that became a task on its server, as a task store keeps it:
 * enough to poll the task again from another worker and hand back what
 * the call would have returned, and nothing of the call's arguments but
 * their fingerprint (they may hold secrets).
 */
export interface TaskHandle {
  /**
   * The handle's id in the store: 16 hex digits, from the server, its URL
   * and the task id (see {@linkcode taskHandleId}). What `resumeTask()` and
   * `mcp-adapter tasks resume` take.
   */
  id: string;
  /** The server's name (`config.name`). */
  server: string;
  /** A fingerprint of the server's URL: a handle is resumed only against the server that made it. */
  endpoint: string;
  /** The task id the server gave (1 to 256 characters, as it sent them). */
  taskId: string;
  /** `legacy`: MCP 2025-11-25 tasks; `modern`: the 2026-07-28 tasks extension. */
  era: "legacy" | "modern";
  /** The tool called. */
  tool: string;
  /** SHA-256 of the call's arguments as canonical JSON, hex: what was asked, without the values. */
  argumentsHash: string;
  /** The poll interval the server suggested, in ms (bounded). */
  pollIntervalMs: number;
  /** When the task was created, in ms since the epoch. */
  createdAt: number;
  /** When the call's total deadline (`totalTimeoutMs`) passes, in ms since the epoch. */
  deadlineAt?: number;
  /**
   * When the handle is dropped, in ms since the epoch: when the server
   * forgets the task (its TTL), or the call's deadline, whichever is first.
   * Absent: kept until the task ends.
   */
  expiresAt?: number;
}

/**
 * Where the handles of tool calls that became tasks are kept, shared by
 * every worker that opens the same store.
 *
 * The contract a store of your own keeps:
 * - `put` keeps a handle (replacing one of the same id) and gives its
 *   lease to the worker that created the task, which polls it at once.
 * - A lease lives {@linkcode TaskStore.leaseMs} from its last `claim`,
 *   `put` or `renew`. `claim` takes it when no other owner holds a live
 *   one (or `owner` does), atomically: two workers never both get it.
 *   The holder renews it while it polls; a worker that crashed stops
 *   renewing, and its lease runs out.
 * - A handle past its `expiresAt` is gone: `get` answers `undefined` and
 *   `list` leaves it out (and the store deletes it).
 * - `remove` deletes a handle and its lease; the worker that saw its task
 *   end (completed, failed, cancelled, or past its deadline) calls it.
 *
 * @example An in-memory store with a 5 s lease
 * ```ts
 * import { MemoryTaskStore } from "@cleveragents/mcp-adapter/tasks";
 *
 * const store = new MemoryTaskStore({ leaseMs: 5_000 });
 * console.log((await store.list()).length); // 0
 * ```
 */
export interface TaskStore {
  /** How long a lease lives without renewal, in ms. */
  readonly leaseMs: number;
  /**
   * Keeps `handle` and gives its lease to `owner`.
   *
   * @param handle The task's handle.
   * @param owner The worker that polls it (a random id per call).
   */
  put(handle: TaskHandle, owner: string): Promise<void>;
  /**
   * The handle of `id`.
   *
   * @param id The handle's id.
   * @returns The handle, or `undefined` when there is none (or it expired).
   */
  get(id: string): Promise<TaskHandle | undefined>;
  /**
   * The handles kept, oldest first.
   *
   * @param server Only this server's (its `config.name`); default all.
   * @returns The handles that have not expired.
   */
  list(server?: string): Promise<TaskHandle[]>;
  /**
   * Takes the lease of `id` for `owner`, unless another owner holds a live
   * one.
   *
   * @param id The handle's id.
   * @param owner Who wants to poll it.
   * @returns Whether `owner` holds the lease now.
   */
  claim(id: string, owner: string): Promise<boolean>;
  /**
   * Extends `owner`'s lease of `id`.
   *
   * @param id The handle's id.
   * @param owner Its holder.
   * @returns Whether it was still `owner`'s.
   */
  renew(id: string, owner: string): Promise<boolean>;
  /**
   * Gives up `owner`'s lease of `id` (nothing happens when it is not theirs).
   *
   * @param id The handle's id.
   * @param owner Its holder.
   */
  release(id: string, owner: string): Promise<void>;
  /**
   * Deletes the handle of `id` and its lease.
   *
   * @param id The handle's id.
   */
  remove(id: string): Promise<void>;
}

/** Options of the task stores. */
export interface TaskStoreOptions {
  /** How long a lease lives without renewal, in ms. Default 15 000. */
  leaseMs?: number;
}

/** Default {@linkcode TaskStoreOptions.leaseMs}. */
export const DEFAULT_TASK_LEASE_MS = 15_000;

/**
 * The lease of `options`, checked.
 *
 * @throws {RangeError} When it is not a positive number.
 */
export function leaseOf(options: TaskStoreOptions): number {
  const leaseMs = options.leaseMs ?? DEFAULT_TASK_LEASE_MS;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new RangeError(
      `leaseMs must be a positive number of milliseconds, got ${leaseMs}`,
    );
  }
  return leaseMs;
}

/**
 * The id of a task's handle: 16 hex digits of the SHA-256 of the server's
 * name, its URL's fingerprint and the task id, so that it is short, safe
 * to print and to type, and the same in every worker.
 *
 * @example
 * ```ts
 * import { taskHandleId } from "@cleveragents/mcp-adapter/tasks";
 *
 * console.log(await taskHandleId("notes", "0f3a…", "task-1")); // 16 hex digits
 * ```
 *
 * @param server The server's name.
 * @param endpoint The fingerprint of its URL.
 * @param taskId The task id the server gave.
 * @returns The id.
 */
export async function taskHandleId(
  server: string,
  endpoint: string,
  taskId: string,
): Promise<string> {
  return (await sha256Hex(`${server}\n${endpoint}\n${taskId}`)).slice(0, 16);
}

/** Whether a value read from a store is a handle (anything else is skipped). */
export function isTaskHandle(value: unknown): value is TaskHandle {
  const handle = value as Partial<TaskHandle> | null;
  return typeof handle === "object" && handle !== null &&
    typeof handle.id === "string" && typeof handle.server === "string" &&
    typeof handle.endpoint === "string" &&
    typeof handle.taskId === "string" && typeof handle.tool === "string" &&
    (handle.era === "legacy" || handle.era === "modern") &&
    typeof handle.createdAt === "number" &&
    typeof handle.pollIntervalMs === "number";
}

/** Whether `handle` has expired at `now` (ms since the epoch). */
export function expired(handle: TaskHandle, now: number): boolean {
  return handle.expiresAt !== undefined && handle.expiresAt <= now;
}
