/**
 * A JSON file that several processes of one machine share, for the file
 * stores (of tokens, of tasks): written atomically (a scratch file, mode
 * 0600, renamed over it, retried while Windows holds the target), changed
 * under a lock file with a lease (`file_lock.ts`), in a 0700 folder. The
 * `node:` modules are reached at call time (`node.ts`).
 *
 * @module
 */

import { delay } from "./time.ts";
import { renameRetryDelayMs } from "./windows.ts";
import { builtin, processOf } from "./node.ts";
import { fileLease } from "./file_lock.ts";
import { type LockTiming, withLease } from "./lease.ts";

type Fs = typeof import("node:fs/promises");
const fs = () => builtin<Fs>("node:fs/promises");

/**
 * The file's text, or `undefined` when it does not exist.
 *
 * @param path The file.
 */
export async function readTextOrUndefined(
  path: string,
): Promise<string | undefined> {
  try {
    return await fs().readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Replaces the file with `value` as indented JSON, atomically, mode 0600.
 *
 * @param path The file; its folder exists.
 * @param value What to write.
 */
export async function writeJsonFile(
  path: string,
  value: unknown,
): Promise<void> {
  const { chmod, rm, writeFile } = fs();
  const scratch = `${path}.${processOf()?.pid}.${crypto.randomUUID()}.tmp`;
  try {
    await writeFile(scratch, JSON.stringify(value, null, 2) + "\n", {
      mode: 0o600,
    });
    await chmod(scratch, 0o600); // whatever the umask
    await renameRetrying(scratch, path);
  } finally {
    await rm(scratch, { force: true });
  }
}

/**
 * Runs `fn` holding the lock file `lockPath`, creating the folder of
 * `path` (mode 0700) first.
 *
 * @param path The file the lock guards.
 * @param lockPath The lock file.
 * @param timing The lock's lease and wait.
 * @param what The lock in messages.
 * @param fn The exclusive section.
 * @returns What `fn` resolves with.
 */
export async function withFileLock<T>(
  path: string,
  lockPath: string,
  timing: Required<LockTiming>,
  what: string,
  fn: () => Promise<T>,
): Promise<T> {
  await fs().mkdir(
    builtin<typeof import("node:path")>("node:path").dirname(path),
    {
      recursive: true,
      mode: 0o700,
    },
  );
  return await withLease(fileLease(lockPath, timing.leaseMs), fn, {
    ...timing,
    what: `the lock of ${what} (${lockPath})`,
  });
}

/**
 * `rename()`, tried again for a moment when Windows reports the target
 * busy (an antivirus scanner or the indexer holds it: EPERM, EACCES,
 * EBUSY), a bounded number of times (`renameRetryDelayMs()`).
 *
 * @param from The scratch file.
 * @param to The store's file.
 * @param rename_ The rename (tests inject one).
 */
export async function renameRetrying(
  from: string,
  to: string,
  rename_: (from: string, to: string) => Promise<void> = (from, to) =>
    fs().rename(from, to),
): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      await rename_(from, to);
      return;
    } catch (error) {
      const wait = renameRetryDelayMs(
        (error as { code?: unknown } | null)?.code,
        attempt,
      );
      if (wait === undefined) throw error;
      await delay(wait);
    }
  }
}
