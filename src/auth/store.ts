/**
 * What an OAuth token store is: logins kept per key (a server URL), and an
 * exclusive section per key across every process that shares the store,
 * which the OAuth provider holds around a refresh. Implemented by the file
 * store (the default, one machine) and the Redis store (a fleet). Types
 * only; re-exported by `cli.ts` and `auth.ts`.
 *
 * @module
 */

export type { LockTiming } from "./_lease.ts";

/** The tokens of a login or refresh, as the authorization server sent them. */
export interface StoredTokens {
  /** The access token. */
  access_token: string;
  /** The refresh token, if the server issued one. */
  refresh_token?: string;
  /** The scope granted. */
  scope?: string;
  /** Usually `Bearer`. */
  token_type?: string;
  /** Seconds the access token lives, counted from when it was issued. */
  expires_in?: number;
}

/** What is kept for one server URL. */
export interface StoredLogin {
  /** The client registration (dynamic, or the configured client ID). */
  client?: Record<string, unknown>;
  /** The tokens of the last login or refresh. */
  tokens?: StoredTokens;
}

/**
 * Where OAuth logins are kept: one {@linkcode StoredLogin} per key (the MCP
 * server's URL), shared by every process that opens the same store. Writes
 * replace one key's value whole; `withLock` is how a read-modify-write (a
 * refresh) excludes the other processes.
 *
 * Implementations: `FileTokenStore` (the default: one JSON file per user,
 * mode 0600) and `RedisTokenStore` (a Redis server shared by a fleet).
 *
 * @example An in-memory store for tests (one process only)
 * ```ts
 * import type { OAuthTokenStore, StoredLogin } from "@cleveragents/mcp-adapter/cli";
 *
 * const logins = new Map<string, StoredLogin>();
 * let tail: Promise<unknown> = Promise.resolve();
 * const memory: OAuthTokenStore = {
 *   get: async (key) => logins.get(key),
 *   set: async (key, login) => void logins.set(key, login),
 *   delete: async (key) => void logins.delete(key),
 *   withLock: (_key, fn) => {
 *     const run = tail.then(fn);
 *     tail = run.catch(() => {});
 *     return run;
 *   },
 * };
 * ```
 */
export interface OAuthTokenStore {
  /**
   * The login kept under `key`.
   *
   * @param key The MCP server's URL.
   * @returns The login, or `undefined` when there is none.
   */
  get(key: string): Promise<StoredLogin | undefined>;
  /**
   * Keeps `login` under `key`, replacing what was there.
   *
   * @param key The MCP server's URL.
   * @param login What to keep.
   */
  set(key: string, login: StoredLogin): Promise<void>;
  /**
   * Forgets the login kept under `key` (nothing happens when there is none).
   *
   * @param key The MCP server's URL.
   */
  delete(key: string): Promise<void>;
  /**
   * Runs `fn` while no other holder of the same store, in this process or
   * another, holds the lock of `key`. The lock has a lease: it is renewed
   * while `fn` runs, and a holder that crashed loses it once the lease runs
   * out, so nobody waits for it forever. Not re-entrant: `fn` must not
   * take the lock of the same key again.
   *
   * @param key The MCP server's URL.
   * @param fn The exclusive section.
   * @returns What `fn` resolves with.
   * @throws {MCPTimeoutError} When another holder kept the lock past the wait.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
}
