/**
 * The command line's task store: one JSON file (mode 0600, in a 0700
 * folder) beside the token store's, changed under its lock file, so the
 * `mcp-adapter` runs of one machine see each other's tasks. The `node:`
 * file APIs are reached when the file is touched (`util/node.ts`).
 *
 * @module
 */

import { KeyedMutex, lockTiming } from "../util/lease.ts";
import { isRecord } from "../util/values.ts";
import {
  readTextOrUndefined,
  withFileLock,
  writeJsonFile,
} from "../util/json_file.ts";
import {
  expired,
  isTaskHandle,
  leaseOf,
  type TaskHandle,
  type TaskStore,
  type TaskStoreOptions,
} from "./store.ts";

/** What the file holds. */
interface TaskFile {
  tasks: Record<string, TaskHandle>;
  leases: Record<string, { owner: string; until: number }>;
}

/**
 * A {@linkcode TaskStore} in a JSON file, for the processes of one machine
 * (the command line's `mcp-adapter call` and `mcp-adapter tasks`). Every
 * change rereads the file under its lock file (`<file>.lock`, with a
 * lease, taken over from a crashed holder). For workers on several
 * machines use a `RedisTaskStore`.
 *
 * @example
 * ```ts ignore
 * import { FileTaskStore } from "@cleveragents/mcp-adapter/tasks";
 *
 * const store = new FileTaskStore("/var/lib/agent/tasks.json");
 * for (const task of await store.list()) console.log(task.id, task.server, task.tool);
 * ```
 */
export class FileTaskStore implements TaskStore {
  /** The file's path. */
  readonly path: string;
  /** How long a lease lives without renewal, in ms. */
  readonly leaseMs: number;
  readonly #writes = new KeyedMutex();
  readonly #lock = lockTiming();

  /**
   * Opens the store (the file is created on the first write).
   *
   * @param path The file.
   * @param options The lease.
   * @throws {RangeError} When `leaseMs` is not a positive number.
   */
  constructor(path: string, options: TaskStoreOptions = {}) {
    this.path = path;
    this.leaseMs = leaseOf(options);
  }

  /** Keeps `handle`, leased to `owner`. */
  put(handle: TaskHandle, owner: string): Promise<void> {
    return this.#change((file, now) => {
      file.tasks[handle.id] = handle;
      file.leases[handle.id] = { owner, until: now + this.leaseMs };
    });
  }

  /** The handle of `id`, unless it expired. */
  async get(id: string): Promise<TaskHandle | undefined> {
    const handle = (await this.#read()).tasks[id];
    return handle !== undefined && !expired(handle, Date.now())
      ? handle
      : undefined;
  }

  /** The handles that have not expired, oldest first (expired ones are deleted). */
  async list(server?: string): Promise<TaskHandle[]> {
    const now = Date.now();
    const all = Object.values((await this.#read()).tasks);
    if (all.some((handle) => expired(handle, now))) {
      await this.#change(() => {}); // the change drops them
    }
    return all.filter((handle) =>
      !expired(handle, now) &&
      (server === undefined || handle.server === server)
    ).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Takes the lease of `id` unless another owner's is live. */
  claim(id: string, owner: string): Promise<boolean> {
    return this.#change((file, now) => {
      const lease = file.leases[id];
      if (lease && lease.owner !== owner && lease.until > now) return false;
      file.leases[id] = { owner, until: now + this.leaseMs };
      return true;
    });
  }

  /** Extends `owner`'s lease of `id`, if it is still theirs. */
  renew(id: string, owner: string): Promise<boolean> {
    return this.#change((file, now) => {
      const lease = file.leases[id];
      if (lease?.owner !== owner || lease.until <= now) return false;
      lease.until = now + this.leaseMs;
      return true;
    });
  }

  /** Gives up `owner`'s lease of `id`. */
  release(id: string, owner: string): Promise<void> {
    return this.#change((file) => {
      if (file.leases[id]?.owner === owner) delete file.leases[id];
    });
  }

  /** Deletes the handle of `id` and its lease. */
  remove(id: string): Promise<void> {
    return this.#change((file) => {
      delete file.tasks[id];
      delete file.leases[id];
    });
  }

  /**
   * Runs `change` on the file as it is now, under its lock, dropping
   * expired handles and dead leases, and writes the file when it changed.
   */
  #change<T>(change: (file: TaskFile, now: number) => T): Promise<T> {
    return this.#writes.run("", () =>
      withFileLock(
        this.path,
        `${this.path}.lock`,
        this.#lock,
        "the task store file",
        async () => {
          const file = await this.#read();
          const before = JSON.stringify(file);
          const now = Date.now();
          const result = change(file, now);
          for (const [id, handle] of Object.entries(file.tasks)) {
            if (expired(handle, now)) delete file.tasks[id];
          }
          for (const [id, lease] of Object.entries(file.leases)) {
            if (!(id in file.tasks) || lease.until <= now) {
              delete file.leases[id];
            }
          }
          if (JSON.stringify(file) !== before) {
            await writeJsonFile(this.path, file);
          }
          return result;
        },
      ));
  }

  async #read(): Promise<TaskFile> {
    const text = await readTextOrUndefined(this.path);
    if (text === undefined) return { tasks: {}, leases: {} };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(
        `the task store ${this.path} is not JSON; delete it (its tasks are forgotten, not cancelled)`,
      );
    }
    const file: TaskFile = { tasks: {}, leases: {} };
    if (!isRecord(value)) return file;
    const tasks = isRecord(value.tasks) ? value.tasks : {};
    const leases = isRecord(value.leases) ? value.leases : {};
    for (const [id, handle] of Object.entries(tasks)) {
      if (isTaskHandle(handle) && handle.id === id) file.tasks[id] = handle;
    }
    for (const [id, lease] of Object.entries(leases)) {
      const { owner, until } = (lease ?? {}) as Record<string, unknown>;
      if (typeof owner === "string" && typeof until === "number") {
        file.leases[id] = { owner, until };
      }
    }
    return file;
  }
}
