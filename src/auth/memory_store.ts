/**
 * The token store of one process: logins in a `Map`, the lock a queue per
 * key. Runtime-neutral; re-exported by `auth.ts`.
 *
 * @module
 */

import { KeyedMutex } from "../util/lease.ts";
import {
  atVersion,
  type LoginVersion,
  type OAuthTokenStore,
  type StoredLogin,
} from "./store.ts";

/**
 * An {@linkcode OAuthTokenStore} in this process's memory: for tests, and
 * for a single process that logs in on its own and needs nothing kept.
 * Values are copied in and out, so a caller's object never changes what is
 * stored.
 *
 * @example
 * ```ts
 * import { MemoryTokenStore, tokenStoreAuth } from "@cleveragents/mcp-adapter/auth";
 *
 * const store = new MemoryTokenStore();
 * const authProvider = tokenStoreAuth(store, { principal: "ada" });
 * ```
 */
export class MemoryTokenStore implements OAuthTokenStore {
  readonly #logins = new Map<string, string>();
  readonly #sections = new KeyedMutex();

  /**
   * The login kept under `key`.
   *
   * @param key What the login belongs to.
   * @returns A copy of the login, or `undefined`.
   */
  get(key: string): Promise<StoredLogin | undefined> {
    const value = this.#logins.get(key);
    return Promise.resolve(value === undefined ? undefined : JSON.parse(value));
  }

  /**
   * Keeps a copy of `login` under `key`.
   *
   * @param key What the login belongs to.
   * @param login What to keep.
   */
  set(key: string, login: StoredLogin): Promise<void> {
    this.#logins.set(key, JSON.stringify(login));
    return Promise.resolve();
  }

  /**
   * Forgets the login under `key`.
   *
   * @param key What the login belongs to.
   */
  delete(key: string): Promise<void> {
    this.#logins.delete(key);
    return Promise.resolve();
  }

  /**
   * Writes `next` only if the login under `key` is at `expected` (see
   * {@linkcode OAuthTokenStore.compareAndSet}).
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
  ): Promise<boolean> {
    // Checked and written in one turn of the event loop: nothing interleaves.
    const value = this.#logins.get(key);
    const written = atVersion(
      value === undefined ? undefined : JSON.parse(value),
      expected,
    );
    if (written) {
      if (next === undefined) this.#logins.delete(key);
      else this.#logins.set(key, JSON.stringify(next));
    }
    return Promise.resolve(written);
  }

  /**
   * Runs `fn` once every section queued before it for `key` has settled.
   *
   * @param key What the login belongs to.
   * @param fn The exclusive section.
   * @returns What `fn` resolves with.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#sections.run(key, fn);
  }
}
