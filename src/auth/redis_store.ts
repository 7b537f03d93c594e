/**
 * The token store of a fleet: logins in a Redis server that every worker
 * reaches, through a client the caller creates (node-redis, or anything
 * with its four methods), so this package needs no Redis dependency. One
 * key per login holding its JSON; one lock key per login, taken with
 * `SET NX PX <lease>` and a random token, renewed and released by Lua
 * scripts that first check the token (so a holder whose lease ran out
 * never deletes its successor's lock). Runtime-neutral: re-exported by
 * `cli.ts` and `auth.ts`.
 *
 * @module
 */

import {
  describeKey,
  KeyedMutex,
  type Lease,
  type LockTiming,
  lockTiming,
  withLease,
} from "./_lease.ts";
import type { OAuthTokenStore, StoredLogin } from "./store.ts";
import { isRecord } from "../util/values.ts";

/**
 * The part of a Redis client the Redis token store calls: the shape of
 * node-redis (`redis` on npm, v5 and later), whose clients (`createClient()`,
 * `createCluster()`) fit as they are. For another client, wrap its
 * commands in these four functions.
 */
export interface RedisClientLike {
  /** `GET key`: the value, or `null`. */
  get(key: string): Promise<unknown>;
  /** `SET key value [NX] [PX ms]`: `"OK"`, or `null` when `NX` found the key. */
  set(
    key: string,
    value: string,
    options?: {
      condition?: "NX";
      expiration?: { type: "PX"; value: number };
    },
  ): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  /** `EVAL script numkeys keys… args…`. */
  eval(
    script: string,
    options: { keys: string[]; arguments: string[] },
  ): Promise<unknown>;
}

/** Options of {@linkcode RedisTokenStore}. */
export interface RedisTokenStoreOptions extends LockTiming {
  /**
   * Put before every key, so several stores (or apps) share one Redis
   * database. Default `"mcp-adapter:oauth:"`; a login is kept under
   * `<prefix>login:<server URL>` and locked under `<prefix>lock:<server URL>`.
   */
  prefix?: string;
}

/** Deletes the lock only if it still holds our token. */
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;

/** Extends the lock's lease only if it still holds our token. */
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("pexpire", KEYS[1], ARGV[2])
end
return 0`;

/**
 * An {@linkcode OAuthTokenStore} in Redis, for workers on many machines:
 * every login is one JSON value, and `withLock()` is a Redis lock with a
 * lease (`SET NX PX`, renewed while held, released by compare-and-delete),
 * so concurrent refreshes of a rotating refresh token happen once. Pass a
 * connected client; the store never closes it. Values (tokens, client
 * secrets) are never logged or put in messages.
 *
 * @example Workers sharing their logins
 * ```ts ignore
 * import { createClient } from "redis";
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 * import { RedisTokenStore, tokenStoreAuth } from "@cleveragents/mcp-adapter/cli";
 *
 * const redis = await createClient({ url: "redis://tokens.internal:6379" }).connect();
 * const store = new RedisTokenStore(redis, { prefix: "agents:oauth:" });
 * const { servers } = await loadConfig("mcp.yaml");
 * const hub = new MCPToolHub(servers, { authProvider: tokenStoreAuth(store) });
 * ```
 */
export class RedisTokenStore implements OAuthTokenStore {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #timing: Required<LockTiming>;
  readonly #sections = new KeyedMutex();

  /**
   * Wraps a connected client.
   *
   * @param client A node-redis client, or anything with its `get`, `set`, `del`, `eval`.
   * @param options Key prefix, lease and wait of the locks.
   * @throws {RangeError} When a duration is not a positive number.
   */
  constructor(client: RedisClientLike, options: RedisTokenStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? "mcp-adapter:oauth:";
    this.#timing = lockTiming(options);
  }

  /**
   * The login kept for `url`.
   *
   * @param url The server URL.
   * @returns The login, or `undefined`.
   * @throws {Error} When the value is not a JSON object.
   */
  async get(url: string): Promise<StoredLogin | undefined> {
    const value = await this.#client.get(this.#key("login", url));
    if (value === null || value === undefined) return undefined;
    try {
      const login = JSON.parse(String(value));
      if (isRecord(login)) return login as StoredLogin;
    } catch {
      // reported below
    }
    throw new Error(
      `the Redis token store's login of ${
        describeKey(url)
      } is not a JSON object; delete the key ${this.#prefix}login:… of that server and log in again`,
    );
  }

  /**
   * Keeps `login` for `url`.
   *
   * @param url The server URL.
   * @param login What to keep.
   */
  async set(url: string, login: StoredLogin): Promise<void> {
    await this.#client.set(this.#key("login", url), JSON.stringify(login));
  }

  /**
   * Forgets the login of `url`.
   *
   * @param url The server URL.
   */
  async delete(url: string): Promise<void> {
    await this.#client.del(this.#key("login", url));
  }

  /**
   * Runs `fn` holding the Redis lock of `url` (see {@linkcode OAuthTokenStore.withLock}).
   *
   * @param url The server URL.
   * @param fn The exclusive section.
   * @returns What `fn` resolves with.
   */
  withLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
    return this.#sections.run(
      url,
      () =>
        withLease(this.#lease(this.#key("lock", url)), fn, {
          ...this.#timing,
          what: `the Redis token store's lock of ${describeKey(url)}`,
        }),
    );
  }

  #key(kind: "login" | "lock", url: string): string {
    return `${this.#prefix}${kind}:${url}`;
  }

  #lease(key: string): Lease {
    const client = this.#client;
    const token = crypto.randomUUID();
    const leaseMs = this.#timing.leaseMs;
    return {
      async tryAcquire() {
        const reply = await client.set(key, token, {
          condition: "NX",
          expiration: { type: "PX", value: leaseMs },
        });
        return reply !== null && reply !== undefined;
      },
      async renew() {
        await client.eval(RENEW, {
          keys: [key],
          arguments: [token, String(leaseMs)],
        });
      },
      async release() {
        await client.eval(RELEASE, { keys: [key], arguments: [token] });
      },
    };
  }
}
