/**
 * The task store of a fleet: handles in a Redis server every worker
 * reaches, through the client the caller creates (the same contract as the
 * Redis token store's, `util/redis.ts`). One key per handle (its JSON,
 * expiring with the handle), one lease key per handle (`SET NX PX`,
 * renewed and released by Lua scripts that first check the owner), and one
 * sorted set of the open handles' ids by expiry, for listing. Every
 * command touches one key, so a cluster needs no hash tags.
 * Runtime-neutral.
 *
 * @module
 */

import type { RedisClientLike } from "../util/redis.ts";
import {
  expired,
  isTaskHandle,
  leaseOf,
  type TaskHandle,
  type TaskStore,
  type TaskStoreOptions,
} from "./store.ts";

/** Options of {@linkcode RedisTaskStore}. */
export interface RedisTaskStoreOptions extends TaskStoreOptions {
  /**
   * Put before every key. Default `"mcp-adapter:tasks:"`: a handle is kept
   * under `<prefix>task:<id>`, its lease under `<prefix>lease:<id>`, the
   * index under `<prefix>open`. Give each tenant (each principal of a
   * multi-user fleet) a prefix of its own: a handle is resumed with the
   * credentials of whoever resumes it.
   */
  prefix?: string;
}

/** How many handles `list()` reads at most. */
const MAX_LISTED = 1000;

/** Takes the lease when it is free or already ARGV[1]'s. */
const CLAIM = `local holder = redis.call("get", KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
return 0`;

/** Extends the lease only if it is still ARGV[1]'s. */
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("pexpire", KEYS[1], ARGV[2])
end
return 0`;

/** Deletes the lease only if it is still ARGV[1]'s. */
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;

/** Indexes ARGV[2] by expiry ARGV[1] ("+inf": none). */
const INDEX = `return redis.call("zadd", KEYS[1], ARGV[1], ARGV[2])`;
/** Drops ids from the index. */
const UNINDEX = `return redis.call("zrem", KEYS[1], unpack(ARGV))`;
/** Drops the expired ids (score at or before ARGV[1]), then lists at most ARGV[2]. */
const OPEN = `redis.call("zremrangebyscore", KEYS[1], "-inf", ARGV[1])
return redis.call("zrange", KEYS[1], 0, tonumber(ARGV[2]) - 1)`;

/**
 * A {@linkcode TaskStore} in Redis, for workers on many machines: a task
 * that a worker started and that outlives it (a deploy, a crash, an
 * autoscaler) is resumed by another, and the lease makes sure only one
 * polls it. Pass a connected client (node-redis's `createClient()` or
 * `createCluster()`, or anything with `get`, `set`, `del`, `eval`); the
 * store never closes it.
 *
 * @example Workers sharing their tasks (and their logins)
 * ```ts ignore
 * import { createClient } from "redis";
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { RedisTaskStore } from "@cleveragents/mcp-adapter/tasks";
 * import { RedisTokenStore, tokenStoreAuth } from "@cleveragents/mcp-adapter/auth";
 *
 * const redis = await createClient({ url: "redis://state.internal:6379" }).connect();
 * declare const servers: import("@cleveragents/mcp-adapter").ServerEntry[];
 * const hub = new MCPToolHub(servers, {
 *   authProvider: tokenStoreAuth(new RedisTokenStore(redis)),
 *   adapterOptions: { taskStore: new RedisTaskStore(redis) },
 * });
 * await hub.start({ resumeTasks: (result, task) => console.log(task.tool, result.success) });
 * ```
 */
export class RedisTaskStore implements TaskStore {
  /** How long a lease lives without renewal, in ms. */
  readonly leaseMs: number;
  readonly #client: RedisClientLike;
  readonly #prefix: string;

  /**
   * Wraps a connected client.
   *
   * @param client A node-redis client, or anything with its `get`, `set`, `del`, `eval`.
   * @param options Key prefix and lease.
   * @throws {RangeError} When `leaseMs` is not a positive number.
   */
  constructor(client: RedisClientLike, options: RedisTaskStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? "mcp-adapter:tasks:";
    this.leaseMs = leaseOf(options);
  }

  /** Keeps `handle` (expiring with it) and gives its lease to `owner`. */
  async put(handle: TaskHandle, owner: string): Promise<void> {
    const client = this.#client;
    const left = handle.expiresAt === undefined
      ? undefined
      : Math.max(1, Math.ceil(handle.expiresAt - Date.now()));
    await client.set(
      this.#key("task", handle.id),
      JSON.stringify(handle),
      left === undefined
        ? undefined
        : { expiration: { type: "PX", value: left } },
    );
    await client.eval(INDEX, {
      keys: [this.#prefix + "open"],
      arguments: [String(handle.expiresAt ?? "+inf"), handle.id],
    });
    await client.set(this.#key("lease", handle.id), owner, {
      expiration: { type: "PX", value: this.leaseMs },
    });
  }

  /** The handle of `id`, unless it expired (or is not a handle). */
  async get(id: string): Promise<TaskHandle | undefined> {
    const value = await this.#client.get(this.#key("task", id));
    if (value === null || value === undefined) return undefined;
    let handle: unknown;
    try {
      handle = JSON.parse(String(value));
    } catch {
      return undefined;
    }
    return isTaskHandle(handle) && !expired(handle, Date.now())
      ? handle
      : undefined;
  }

  /** The open handles (at most 1000), oldest first; dead index entries are dropped. */
  async list(server?: string): Promise<TaskHandle[]> {
    const index = this.#prefix + "open";
    const ids = await this.#client.eval(OPEN, {
      keys: [index],
      arguments: [String(Date.now()), String(MAX_LISTED)],
    });
    const handles: TaskHandle[] = [];
    const gone: string[] = [];
    for (const id of Array.isArray(ids) ? ids.map(String) : []) {
      const handle = await this.get(id);
      if (handle === undefined) gone.push(id);
      else if (server === undefined || handle.server === server) {
        handles.push(handle);
      }
    }
    if (gone.length > 0) {
      await this.#client.eval(UNINDEX, { keys: [index], arguments: gone });
    }
    return handles.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Takes the lease of `id` unless another owner's is live. */
  async claim(id: string, owner: string): Promise<boolean> {
    return Number(
      await this.#client.eval(CLAIM, {
        keys: [this.#key("lease", id)],
        arguments: [owner, String(this.leaseMs)],
      }),
    ) === 1;
  }

  /** Extends `owner`'s lease of `id`, if it is still theirs. */
  async renew(id: string, owner: string): Promise<boolean> {
    return Number(
      await this.#client.eval(RENEW, {
        keys: [this.#key("lease", id)],
        arguments: [owner, String(this.leaseMs)],
      }),
    ) === 1;
  }

  /** Gives up `owner`'s lease of `id`. */
  async release(id: string, owner: string): Promise<void> {
    await this.#client.eval(RELEASE, {
      keys: [this.#key("lease", id)],
      arguments: [owner],
    });
  }

  /** Deletes the handle of `id`, its lease and its index entry. */
  async remove(id: string): Promise<void> {
    await this.#client.del(this.#key("task", id));
    await this.#client.del(this.#key("lease", id));
    await this.#client.eval(UNINDEX, {
      keys: [this.#prefix + "open"],
      arguments: [id],
    });
  }

  #key(kind: "task" | "lease", id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }
}
