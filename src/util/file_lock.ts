/**
 * A lock file with a lease, for the file stores: taken by creating the
 * file exclusively (`O_CREAT | O_EXCL`, mode 0600), renewed by touching it
 * through the handle kept open, given up by deleting it. A lock file not
 * touched for a lease is a crashed holder's: the next contender moves it
 * aside (an atomic rename), checks that what it moved is the stale file it
 * judged (same inode, still old; else it puts it back) and takes the lock.
 * Works wherever `open(…, "wx")` is atomic: local disks, not every network
 * file system. The `node:` modules are reached at call time (`node.ts`),
 * so importing this needs none.
 *
 * @module
 */

import type { FileHandle } from "node:fs/promises";
import type { Lease } from "./lease.ts";
import { builtin, processOf } from "./node.ts";

type Fs = typeof import("node:fs/promises");
const fs = () => builtin<Fs>("node:fs/promises");

/**
 * The lease of the lock file at `path`, whose folder exists.
 *
 * @param path The lock file.
 * @param leaseMs How long an untouched lock file is a live holder's.
 */
export function fileLease(path: string, leaseMs: number): Lease {
  let handle: FileHandle | undefined;
  let inode: number | undefined;
  return {
    async tryAcquire(): Promise<boolean> {
      try {
        handle = await fs().open(path, "wx", 0o600);
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw error;
        await breakIfStale(path, leaseMs);
        return false;
      }
      try {
        // Who holds it, for a person looking at the folder; no secret.
        const host = builtin<typeof import("node:os")>("node:os").hostname();
        await handle.writeFile(
          JSON.stringify({ pid: processOf()?.pid, host }) + "\n",
        );
        inode = (await handle.stat()).ino;
      } catch (error) {
        // Ours since open() made it: delete it, or it blocks for a lease.
        await handle.close().catch(() => {});
        handle = undefined;
        await fs().rm(path, { force: true });
        throw error;
      }
      return true;
    },
    async renew(): Promise<void> {
      const now = new Date();
      await handle?.utimes(now, now);
    },
    async release(): Promise<void> {
      const held = handle;
      handle = undefined;
      if (held === undefined) return;
      try {
        // Delete only our own file: after a lost lease, it may be another's.
        if ((await fs().stat(path)).ino === inode) {
          await fs().rm(path, { force: true });
        }
      } catch (error) {
        if (codeOf(error) !== "ENOENT") throw error;
      } finally {
        await held.close();
      }
    },
  };
}

/** Clears the lock file at `path` if its holder stopped renewing it. */
async function breakIfStale(path: string, leaseMs: number): Promise<void> {
  const { link, rename, rm, stat } = fs();
  const seen = await statOrUndefined(path);
  if (seen === undefined || Date.now() - seen.mtimeMs <= leaseMs) return;
  const aside = `${path}.${crypto.randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return; // another contender cleared it
    throw error;
  }
  const moved = await stat(aside);
  if (moved.ino !== seen.ino || Date.now() - moved.mtimeMs <= leaseMs) {
    // A live lock was taken between the look and the rename: put it back
    // (link fails, keeping the newer one, if yet another was taken since).
    await link(aside, path).catch(() => {});
  }
  await rm(aside, { force: true });
}

async function statOrUndefined(
  path: string,
): Promise<{ ino: number; mtimeMs: number } | undefined> {
  try {
    return await fs().stat(path);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}
