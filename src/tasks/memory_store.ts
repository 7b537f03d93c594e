/**
 * The default task store: handles in this process's memory, leases by its
 * clock. Runtime-neutral.
 *
 * @module
 */

import {
  expired,
  leaseOf,
  type TaskHandle,
  type TaskStore,
  type TaskStoreOptions,
} from "./store.ts";

/** Options of {@linkcode MemoryTaskStore}. */
export interface MemoryTaskStoreOptions extends TaskStoreOptions {
  /**
   * The most handles kept; past it the oldest goes (a process whose calls
   * keep losing their connection does not grow without bound). Default 1000.
   */
  maxHandles?: number;
}

/**
 * A {@linkcode TaskStore} in this process's memory: what an adapter uses
 * when given none. It lets this process resume a task after a reconnect
 * (or a call that lost its connection), not after a crash; a fleet uses a
 * `RedisTaskStore`.
 *
 * @example
 * ```ts
 * import { MemoryTaskStore } from "@cleveragents/mcp-adapter/tasks";
 *
 * const store = new MemoryTaskStore();
 * console.log(store.leaseMs); // 15000
 * ```
 */
export class MemoryTaskStore implements TaskStore {
  /** How long a lease lives without renewal, in ms. */
  readonly leaseMs: number;
  readonly #handles = new Map<string, TaskHandle>();
  readonly #leases = new Map<string, { owner: string; until: number }>();
  readonly #maxHandles: number;

  /**
   * An empty store.
   *
   * @param options The lease, the most handles kept.
   * @throws {RangeError} When `leaseMs` is not a positive number.
   */
  constructor(options: MemoryTaskStoreOptions = {}) {
    this.leaseMs = leaseOf(options);
    this.#maxHandles = options.maxHandles ?? 1000;
  }

  /** Keeps a copy of `handle`, leased to `owner`; the oldest goes past the bound. */
  put(handle: TaskHandle, owner: string): Promise<void> {
    this.#handles.delete(handle.id);
    this.#handles.set(handle.id, { ...handle });
    this.#lease(handle.id, owner);
    for (const id of this.#handles.keys()) {
      if (this.#handles.size <= this.#maxHandles) break;
      this.#handles.delete(id);
      this.#leases.delete(id);
    }
    return Promise.resolve();
  }

  /** A copy of the handle of `id`, unless it expired. */
  get(id: string): Promise<TaskHandle | undefined> {
    const handle = this.#live(id, Date.now());
    return Promise.resolve(handle && { ...handle });
  }

  /** Copies of the handles that have not expired, oldest first. */
  list(server?: string): Promise<TaskHandle[]> {
    const now = Date.now();
    const handles = [...this.#handles.keys()]
      .map((id) => this.#live(id, now))
      .filter((handle): handle is TaskHandle =>
        handle !== undefined &&
        (server === undefined || handle.server === server)
      )
      .sort((a, b) => a.createdAt - b.createdAt);
    return Promise.resolve(handles.map((handle) => ({ ...handle })));
  }

  /** Takes the lease of `id` unless another owner's is live. */
  claim(id: string, owner: string): Promise<boolean> {
    const lease = this.#leases.get(id);
    const free = lease === undefined || lease.owner === owner ||
      lease.until <= Date.now();
    if (free) this.#lease(id, owner);
    return Promise.resolve(free);
  }

  /** Extends `owner`'s lease of `id`, if it is still theirs. */
  renew(id: string, owner: string): Promise<boolean> {
    const lease = this.#leases.get(id);
    const mine = lease?.owner === owner && lease.until > Date.now();
    if (mine) this.#lease(id, owner);
    return Promise.resolve(mine);
  }

  /** Gives up `owner`'s lease of `id`. */
  release(id: string, owner: string): Promise<void> {
    if (this.#leases.get(id)?.owner === owner) this.#leases.delete(id);
    return Promise.resolve();
  }

  /** Deletes the handle of `id` and its lease. */
  remove(id: string): Promise<void> {
    this.#handles.delete(id);
    this.#leases.delete(id);
    return Promise.resolve();
  }

  #lease(id: string, owner: string): void {
    this.#leases.set(id, { owner, until: Date.now() + this.leaseMs });
  }

  /** The handle of `id`; an expired one is deleted. */
  #live(id: string, now: number): TaskHandle | undefined {
    const handle = this.#handles.get(id);
    if (handle === undefined || !expired(handle, now)) return handle;
    this.#handles.delete(id);
    this.#leases.delete(id);
    return undefined;
  }
}
