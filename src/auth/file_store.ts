/**
 * The default token store: one JSON file per user (mode 0600, in a 0700
 * folder under the user's config dir), one entry per server URL. The file
 * is read whole and written atomically (a scratch file renamed over it);
 * every write holds the file's lock file, so processes writing different
 * entries keep each other's. The lock of one key is a lock file of its own
 * beside it (see `util/file_lock.ts`). Values are never printed. The
 * `node:` file APIs are reached when a file is touched (`util/node.ts`),
 * so `auth.ts` re-exports it and still imports nothing from `node:`.
 *
 * @module
 */

import { SerialQueue } from "../util/serial_queue.ts";
import { tokenStoreLocation } from "../util/windows.ts";
import { isRecord } from "../util/values.ts";
import { builtin, processOf } from "../util/node.ts";
import { KeyedMutex, type LockTiming, lockTiming } from "../util/lease.ts";
import {
  readTextOrUndefined,
  withFileLock,
  writeJsonFile,
} from "../util/json_file.ts";
import {
  atVersion,
  describeKey,
  type LoginVersion,
  type OAuthTokenStore,
  type StoredLogin,
} from "./store.ts";

type Fs = typeof import("node:fs/promises");
type Path = typeof import("node:path");
const fs = () => builtin<Fs>("node:fs/promises");

export { renameRetrying } from "../util/json_file.ts";
const path = () => builtin<Path>("node:path");
const homedir = () => builtin<typeof import("node:os")>("node:os").homedir();

/**
 * The command line's OAuth token store file:
 * `$XDG_CONFIG_HOME/mcp-adapter/oauth.json`, else
 * `~/.config/mcp-adapter/oauth.json`; `%LOCALAPPDATA%\mcp-adapter\oauth.json`
 * on Windows (the file older versions kept in the roaming `%APPDATA%` is
 * read until the first write moves it). Mode 0600; one entry per server URL.
 *
 * @example
 * ```ts
 * import { tokenStorePath } from "@cleveragents/mcp-adapter/cli";
 *
 * console.log(tokenStorePath({ XDG_CONFIG_HOME: "/home/ada/.config" }));
 * ```
 *
 * @param env The environment to read the folders from; default the process's.
 * @returns The file's path.
 */
export function tokenStorePath(
  env: Record<string, string | undefined> = processOf()?.env ?? {},
): string {
  if (processOf()?.platform === "win32") {
    return tokenStoreLocation({ platform: "win32", env, home: homedir() }).path;
  }
  const { join } = path();
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "mcp-adapter", "oauth.json");
}

/** Options of {@linkcode FileTokenStore}. */
export interface FileTokenStoreOptions extends LockTiming {
  /**
   * A file an older version wrote, read while the store's own file does not
   * exist and deleted once the store's file is written. Default: on
   * Windows, for the default file, `%APPDATA%\mcp-adapter\oauth.json`.
   */
  legacyPath?: string;
}

/**
 * The default {@linkcode OAuthTokenStore}: one JSON file (mode 0600, in a
 * 0700 folder), shared by the processes of one machine. Every write
 * rereads the file under its lock file, so entries written meanwhile by
 * another process are kept. `withLock(key)` holds a lock file of that key
 * beside the store (`oauth.json.<hash>.lock`), created exclusively and
 * touched while held; one untouched for `leaseMs` is a crashed holder's and
 * is taken over. For workers on several machines use `RedisTokenStore`.
 *
 * @example
 * ```ts ignore
 * import { FileTokenStore, tokenStoreAuth } from "@cleveragents/mcp-adapter/auth";
 *
 * const store = new FileTokenStore("/var/lib/agent/oauth.json");
 * const authProvider = tokenStoreAuth(store);
 * ```
 */
export class FileTokenStore implements OAuthTokenStore {
  /** The file's path. */
  readonly path: string;
  readonly #timing: Required<LockTiming>;
  #legacy: string | undefined;
  readonly #writes = new SerialQueue();
  readonly #sections = new KeyedMutex();

  /**
   * Opens the store (the file is created on the first write).
   *
   * @param path The file; default {@linkcode tokenStorePath}.
   * @param options The locks' lease and wait, and an older version's file.
   * @throws {RangeError} When a duration is not a positive number.
   */
  constructor(path?: string, options: FileTokenStoreOptions = {}) {
    const location = processOf()?.platform === "win32"
      ? tokenStoreLocation({
        platform: "win32",
        env: processOf()?.env ?? {},
        home: homedir(),
      })
      : undefined;
    this.path = path ?? location?.path ?? tokenStorePath();
    // The default file (however it was named) migrates from its old place.
    this.#legacy = options.legacyPath ??
      (this.path === location?.path ? location.legacy : undefined);
    this.#timing = lockTiming(options);
  }

  /**
   * Every entry, by server URL; empty when there is no file yet.
   *
   * @returns The entries.
   * @throws {Error} When the file is not JSON.
   */
  async read(): Promise<Record<string, StoredLogin>> {
    const own = await this.#readFile(this.path);
    if (own !== undefined || this.#legacy === undefined) return own ?? {};
    return await this.#readFile(this.#legacy) ?? {};
  }

  async #readFile(
    path: string,
  ): Promise<Record<string, StoredLogin> | undefined> {
    const text = await readTextOrUndefined(path);
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text);
      return isRecord(value) ? value as Record<string, StoredLogin> : {};
    } catch {
      throw new Error(
        `the token store ${path} is not JSON; delete it and log in again`,
      );
    }
  }

  /**
   * The entry of `url`.
   *
   * @param url The server URL.
   * @returns The entry, or `undefined`.
   */
  async get(url: string): Promise<StoredLogin | undefined> {
    return (await this.read())[url];
  }

  /**
   * Replaces the entry of `url`.
   *
   * @param url The server URL.
   * @param login The new entry.
   */
  set(url: string, login: StoredLogin): Promise<void> {
    return this.update(url, () => login);
  }

  /**
   * Deletes the entry of `url`.
   *
   * @param url The server URL.
   */
  delete(url: string): Promise<void> {
    return this.update(url, () => undefined);
  }

  /**
   * Replaces the entry of `url` with what `change` makes of it (undefined
   * deletes it), atomically: under the file's lock, so changes of this and
   * other processes run one at a time, each on the file as the last one
   * left it.
   *
   * @param url The server URL.
   * @param change From the current entry (`{}` when none) to the new one.
   */
  update(
    url: string,
    change: (entry: StoredLogin) => StoredLogin | undefined,
  ): Promise<void> {
    return this.#writes.run(() =>
      this.#locked(`${this.path}.lock`, "the token store file", async () => {
        const all = await this.read();
        const changed = change(all[url] ?? {});
        if (changed === undefined) delete all[url];
        else all[url] = changed;
        await this.#write(all);
      })
    );
  }

  /**
   * Writes `next` only if the entry of `url` is at `expected` (see
   * {@linkcode OAuthTokenStore.compareAndSet}), under the file's lock file.
   *
   * @param url The entry's key.
   * @param expected The version the write is based on.
   * @param next The new entry, or `undefined` to delete it.
   * @returns Whether it was written.
   */
  async compareAndSet(
    url: string,
    expected: LoginVersion,
    next: StoredLogin | undefined,
  ): Promise<boolean> {
    let written = false;
    await this.update(url, (entry) => {
      // update() reads a missing entry as {}: generation 0, nothing in flight.
      written = atVersion(entry, expected);
      return written ? next : entry;
    });
    return written;
  }

  /**
   * Runs `fn` holding the lock of `url` (see {@linkcode OAuthTokenStore.withLock}).
   *
   * @param url The server URL.
   * @param fn The exclusive section.
   * @returns What `fn` resolves with.
   */
  withLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
    const hash = builtin<typeof import("node:crypto")>("node:crypto")
      .createHash("sha256").update(url).digest("hex").slice(0, 32);
    return this.#sections.run(
      url,
      () => this.#locked(`${this.path}.${hash}.lock`, describeKey(url), fn),
    );
  }

  #locked<T>(
    lockPath: string,
    what: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    return withFileLock(this.path, lockPath, this.#timing, what, fn);
  }

  async #write(all: Record<string, StoredLogin>): Promise<void> {
    await writeJsonFile(this.path, all);
    const legacy = this.#legacy;
    if (legacy !== undefined) {
      // Moved: the older version's copy (roaming, on Windows) goes.
      this.#legacy = undefined;
      await fs().rm(legacy, { force: true }).catch(() => {});
    }
  }
}
