/**
 * The token store of a fleet: logins in a Redis server that every worker
 * reaches, through a client the caller creates (node-redis, or anything
 * with its four methods), so this package needs no Redis dependency. One
 * key per login holding its JSON; one lock key per login, taken with
 * `SET NX PX <lease>` and a random token, renewed and released by Lua
 * scripts that first check the token (so a holder whose lease ran out
 * never deletes its successor's lock); the compare-and-set of a login by
 * its generation is a Lua script too, so it is atomic in Redis.
 * Runtime-neutral: re-exported by `cli.ts` and `auth.ts`.
 *
 * @module
 */

import {
  KeyedMutex,
  type Lease,
  type LockTiming,
  lockTiming,
  withLease,
} from "../util/lease.ts";
import type { RedisClientLike } from "../util/redis.ts";
import {
  describeKey,
  type LoginVersion,
  type OAuthTokenStore,
  type StoredLogin,
} from "./store.ts";
import { isRecord } from "../util/values.ts";
import { shownUrl } from "../util/redact.ts";
import { sha256Hex } from "../util/bytes.ts";

export type { RedisClientLike };

/** Options of {@linkcode RedisTokenStore}. */
export interface RedisTokenStoreOptions extends LockTiming {
  /**
   * Put before every key, so several stores (or apps) share one Redis
   * database. Default `"mcp-adapter:oauth:"`; a login is kept under
   * `<prefix>login:<key>` and locked under `<prefix>lock:<key>`, where the
   * key is the server URL (see `tokenKey()`), unless that URL carries what
   * may be a secret (see {@linkcode redisKeyName}).
   */
  prefix?: string;
}

/** Deletes the lock only if it still holds our token. */
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;

/**
 * The compare-and-set of a login: writes ARGV[3] (deletes for "") only if
 * the stored login's generation is ARGV[1] and, unless ARGV[2] is "*", the
 * owner of its refresh in flight is ARGV[2] ("" for none). A value that is
 * not a JSON object counts as generation 0 with nothing in flight.
 */
const COMPARE_AND_SET = `local value = redis.call("get", KEYS[1])
local generation = 0
local owner = ""
if value then
  local ok, login = pcall(cjson.decode, value)
  if ok and type(login) == "table" then
    if type(login.generation) == "number" then generation = login.generation end
    local flight = login.refreshing
    if type(flight) == "table" and type(flight.owner) == "string" then
      owner = flight.owner
    end
  end
end
if generation ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] ~= "*" and owner ~= ARGV[2] then return 0 end
if ARGV[3] == "" then
  redis.call("del", KEYS[1])
else
  redis.call("set", KEYS[1], ARGV[3])
end
return 1`;

/** Extends the lock's lease only if it still holds our token. */
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("pexpire", KEYS[1], ARGV[2])
end
return 0`;

/**
 * An {@linkcode OAuthTokenStore} in Redis, for workers on many machines:
 * every login is one JSON value, `withLock()` is a Redis lock with a
 * lease (`SET NX PX`, renewed while held, released by compare-and-delete)
 * and `compareAndSet()` a Lua script on the login's generation, so a
 * rotating refresh token is spent once even when the worker refreshing it
 * stalls past its lease (see {@linkcode OAuthTokenStore}). Pass a
 * connected client; the store never closes it. Values (tokens, client
 * secrets) are never logged or put in messages.
 *
 * @example Workers sharing their logins
 * ```ts ignore
 * import { createClient } from "redis";
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 * import { RedisTokenStore, tokenStoreAuth } from "@cleveragents/mcp-adapter/auth";
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
    const value = await this.#client.get(await this.#key("login", url));
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
    await this.#client.set(
      await this.#key("login", url),
      JSON.stringify(login),
    );
  }

  /**
   * Forgets the login of `url`.
   *
   * @param url The server URL.
   */
  async delete(url: string): Promise<void> {
    await this.#client.del(await this.#key("login", url));
  }

  /**
   * Writes `next` only if the login of `url` is at `expected` (see
   * {@linkcode OAuthTokenStore.compareAndSet}): one Lua script, atomic in
   * Redis.
   *
   * @param url The login's key.
   * @param expected The version the write is based on.
   * @param next What to keep, or `undefined` to delete.
   * @returns Whether it was written.
   */
  async compareAndSet(
    url: string,
    expected: LoginVersion,
    next: StoredLogin | undefined,
  ): Promise<boolean> {
    const owner = expected.refreshing;
    const reply = await this.#client.eval(COMPARE_AND_SET, {
      keys: [await this.#key("login", url)],
      arguments: [
        String(expected.generation),
        owner === undefined ? "*" : owner ?? "",
        next === undefined ? "" : JSON.stringify(next),
      ],
    });
    return Number(reply) === 1;
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
      async () =>
        withLease(this.#lease(await this.#key("lock", url)), fn, {
          ...this.#timing,
          what: `the Redis token store's lock of ${describeKey(url)}`,
        }),
    );
  }

  async #key(kind: "login" | "lock", url: string): Promise<string> {
    return `${this.#prefix}${kind}:${await redisKeyName(url)}`;
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

/**
 * A store key (see `tokenKey()`) as Redis names it. Key names are listed
 * more widely than values are read (SCAN, MONITOR, a key browser, an ACL
 * that grants `keys`), so a name carries no part of the server URL that
 * may be a secret: credentials, a query (`?api_key=…`), a fragment, or a
 * path segment that looks like a key (`/sk-…/mcp`). Such a key is named by
 * that URL's origin and path, key-like segments masked, and the SHA-256 of
 * the whole key, so that two such servers keep two logins; any other key
 * is its own name.
 *
 * @example
 * ```ts
 * import { redisKeyName } from "@cleveragents/mcp-adapter/auth";
 *
 * await redisKeyName("https://mcp.example.com/mcp principal=user%2042");
 * // "https://mcp.example.com/mcp principal=user%2042"
 * await redisKeyName("https://mcp.example.com/mcp?api_key=sk-1");
 * // "https://mcp.example.com/mcp#sha256=…" (64 hex digits)
 * ```
 *
 * @param key The store key.
 * @returns The name under the store's prefix.
 */
export async function redisKeyName(key: string): Promise<string> {
  const space = key.indexOf(" ");
  const resource = space === -1 ? key : key.slice(0, space);
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return key; // not a server URL: a key of the host's own
  }
  const shown = shownUrl(url);
  if (
    url.username === "" && url.password === "" &&
    !/[?#]/.test(resource) && shown === url.origin + url.pathname
  ) return key;
  return `${shown}#sha256=${await sha256Hex(key)}`;
}
