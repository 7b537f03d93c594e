/**
 * What an OAuth token store is: logins kept per key (what a login belongs
 * to: the MCP server, the client, the end user), an exclusive section per
 * key across every process that shares the store, and a compare-and-set by
 * generation, on which the OAuth provider (`token_store.ts`) builds a
 * refresh that never spends a refresh token twice. Implemented in memory
 * (`memory_store.ts`), in a file (`file_store.ts`, one machine) and in
 * Redis (`redis_store.ts`, a fleet). Re-exported by `auth.ts` and
 * `cli.ts`.
 *
 * @module
 */

import { displayUrl } from "../util/redact.ts";

export type { LockTiming } from "../util/lease.ts";

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
  /**
   * The authorization server that issued them (the MCP SDK stamps it): a
   * refresh token is never sent to another one.
   */
  issuer?: string;
}

/**
 * A refresh in flight: recorded in the login before its refresh token is
 * sent, so that no other holder sends the same token meanwhile.
 */
export interface RefreshInFlight {
  /** The generation whose refresh token was sent. */
  generation: number;
  /** Who sent it: a random id per refresh. */
  owner: string;
  /** When, in milliseconds since the epoch, by the owner's clock (for people; nobody decides by it). */
  since: number;
}

/** What is kept for one key. */
export interface StoredLogin {
  /** The client registration (dynamic, or the configured client ID). */
  client?: Record<string, unknown>;
  /** The tokens of the last login or refresh. */
  tokens?: StoredTokens;
  /**
   * The generation of `tokens`: one more each time they are replaced (a
   * refresh, a new login, a clear after the grant was refused). Absent
   * counts as 0.
   */
  generation?: number;
  /** The refresh of `generation` in flight, if one is. */
  refreshing?: RefreshInFlight;
}

/** What {@linkcode OAuthTokenStore.compareAndSet} expects to find. */
export interface LoginVersion {
  /** The stored login's generation (0: none, or a login without one). */
  generation: number;
  /**
   * The owner of the stored login's refresh in flight: a string, or `null`
   * for none in flight. Omitted: not compared.
   */
  refreshing?: string | null;
}

/**
 * Where OAuth logins are kept: one {@linkcode StoredLogin} per key (see
 * {@linkcode tokenKey}), shared by every process that opens the same store.
 * Writes replace one key's value whole.
 *
 * Implementations: `MemoryTokenStore` (one process), `FileTokenStore` (the
 * command line's default: one JSON file per user, mode 0600) and
 * `RedisTokenStore` (a Redis server shared by a fleet). A store of your own
 * (Postgres, a vault) keeps the contract below.
 *
 * **The refresh protocol.** Rotating refresh tokens work once, and an
 * authorization server that sees one used twice may revoke the whole
 * grant. The provider of `tokenStoreAuth()` therefore refreshes like this,
 * and a store makes it possible with one atomic operation,
 * {@linkcode OAuthTokenStore.compareAndSet}:
 *
 * 1. Every token set has a generation (`StoredLogin.generation`), one more
 *    each time the tokens are replaced.
 * 2. Before it sends the refresh token of generation N, a holder records
 *    the refresh in flight (`refreshing: { generation: N, owner, since }`)
 *    by a compare-and-set that expects generation N and no refresh in
 *    flight (or the one it takes over).
 * 3. A holder that finds generation N in flight under another owner never
 *    sends N's refresh token: it waits, bounded, for generation N + 1,
 *    rereading the store. Only when the bound passes (the owner is
 *    presumed dead) does it take the refresh over, by a compare-and-set
 *    that expects that owner.
 * 4. The answer is written by generation: a compare-and-set that expects N
 *    writes N + 1. A late answer (its holder stalled past its lock's lease)
 *    lands when nobody has written N + 1 yet, and is dropped when somebody
 *    has; an older or equal generation never replaces a newer one.
 * 5. When the server refuses the grant (`invalid_grant`), only the owner of
 *    the current generation's refresh clears the tokens (a compare-and-set
 *    that expects N and itself, writing N + 1 without tokens); anyone else
 *    rereads the store and uses what is there.
 *
 * What cannot be saved: a holder killed after the authorization server
 * rotated the token and before its write took the new tokens with it. The
 * waiters take over once the bound passes, the server refuses the old
 * token, the one owner clears the login, and every worker then reports
 * `MCPAuthorizationRequiredError` without sending anything more: one login
 * restores the fleet.
 *
 * @example The in-memory store (one process)
 * ```ts
 * import { MemoryTokenStore, tokenKey } from "@cleveragents/mcp-adapter/auth";
 *
 * const store = new MemoryTokenStore();
 * const key = tokenKey({ resource: "https://mcp.example.com/mcp", principal: "ada" });
 * await store.set(key, { tokens: { access_token: "…" }, generation: 1 });
 * // Lands only if nobody has written generation 2 meanwhile.
 * const written = await store.compareAndSet(key, { generation: 1 }, {
 *   tokens: { access_token: "…" },
 *   generation: 2,
 * });
 * ```
 */
export interface OAuthTokenStore {
  /**
   * The login kept under `key`.
   *
   * @param key What the login belongs to ({@linkcode tokenKey}).
   * @returns The login, or `undefined` when there is none.
   */
  get(key: string): Promise<StoredLogin | undefined>;
  /**
   * Keeps `login` under `key`, replacing what was there, unconditionally
   * (a new login, a client registration).
   *
   * @param key What the login belongs to.
   * @param login What to keep.
   */
  set(key: string, login: StoredLogin): Promise<void>;
  /**
   * Forgets the login kept under `key` (nothing happens when there is none).
   *
   * @param key What the login belongs to.
   */
  delete(key: string): Promise<void>;
  /**
   * Replaces the login under `key` with `next` (`undefined` deletes it),
   * only if the stored login is at `expected`: its generation (absent: 0)
   * is `expected.generation` and, when `expected.refreshing` is given, its
   * refresh in flight is that owner's (`null`: none in flight; a missing
   * login is generation 0 with none). Atomic against every other write of
   * the store, from any process: this is the fence the refresh protocol
   * rests on (a Lua script on Redis; the file's lock file; in SQL, an
   * `UPDATE … WHERE generation = $1`).
   *
   * @param key What the login belongs to.
   * @param expected The version the write is based on.
   * @param next What to keep, or `undefined` to delete.
   * @returns Whether it was written.
   */
  compareAndSet(
    key: string,
    expected: LoginVersion,
    next: StoredLogin | undefined,
  ): Promise<boolean>;
  /**
   * Runs `fn` while no other holder of the same store, in this process or
   * another, holds the lock of `key`. The lock has a lease: it is renewed
   * while `fn` runs, and a holder that crashed (or whose event loop
   * stalled) loses it once the lease runs out, so nobody waits for it
   * forever. That is why a write that may come late is a
   * {@linkcode OAuthTokenStore.compareAndSet}: the lock makes holders take
   * turns, the generation decides which write counts. Not re-entrant: `fn`
   * must not take the lock of the same key again.
   *
   * @param key What the login belongs to.
   * @param fn The exclusive section.
   * @returns What `fn` resolves with.
   * @throws {MCPTimeoutError} When another holder kept the lock past the wait.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/** What a login belongs to; see {@linkcode tokenKey}. */
export interface TokenKeyParts {
  /** The MCP server's URL (the resource the tokens are for). */
  resource: string;
  /**
   * The end user a server-side agent acts for. Each principal has its own
   * login: one user's tokens never reach another's call.
   */
  principal?: string;
  /** A client ID registered beforehand (default: the dynamic registration kept in the login). */
  clientId?: string;
  /** The authorization server's issuer, when the host pins it. */
  issuer?: string;
}

/**
 * The key of a login: the server's URL as it is, followed by the issuer,
 * client and principal that are given, each percent-encoded
 * (`https://mcp.example.com/mcp principal=ada`). Without them it is the URL
 * alone, the key `mcp-adapter login` has always used. Whatever is not in
 * the key is bound inside the login: the tokens carry the issuer that
 * issued them (and are never sent to another), and a login holds its
 * client registration.
 *
 * @example
 * ```ts
 * import { tokenKey } from "@cleveragents/mcp-adapter/auth";
 *
 * tokenKey({ resource: "https://mcp.example.com/mcp", principal: "user 42" });
 * // "https://mcp.example.com/mcp principal=user%2042"
 * ```
 *
 * @param parts The server and, optionally, issuer, client and principal.
 * @returns The key.
 */
export function tokenKey(parts: TokenKeyParts): string {
  let key = parts.resource;
  for (const name of ["issuer", "clientId", "principal"] as const) {
    const value = parts[name];
    if (value !== undefined) key += ` ${name}=${encodeURIComponent(value)}`;
  }
  return key;
}

/** A store key in messages: the server URL without credentials or query. */
export function describeKey(key: string): string {
  try {
    return displayUrl(new URL(key.split(" ")[0]!));
  } catch {
    return "a server";
  }
}

/**
 * Whether `login` is at `expected` (see
 * {@linkcode OAuthTokenStore.compareAndSet}): the check the memory and file
 * stores make under their lock, and the Redis store's script makes too.
 */
export function atVersion(
  login: StoredLogin | undefined,
  expected: LoginVersion,
): boolean {
  if ((login?.generation ?? 0) !== expected.generation) return false;
  return expected.refreshing === undefined ||
    (login?.refreshing?.owner ?? null) === expected.refreshing;
}
