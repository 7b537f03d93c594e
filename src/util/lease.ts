/**
 * Exclusive sections across processes, for the file and Redis stores (of
 * tokens, of tasks): a lock with a lease, over a backend that can try to
 * take it once, renew it and give it up (a lock file, a Redis key). While
 * the section runs its lease is renewed; a holder that crashed stops
 * renewing, and its lease runs out. In one process, contenders for the
 * same key queue in memory first, so they do not poll each other.
 * Runtime-neutral.
 *
 * @module
 */

import { MCPTimeoutError } from "../errors.ts";
import { delay } from "./time.ts";

/** How long a lock is held without renewal, and how long a contender waits. */
export interface LockTiming {
  /**
   * The lease in milliseconds: a holder that stops renewing (it crashed)
   * loses the lock this long after its last renewal. Renewed every third of
   * it while the section runs. Default 15 000.
   */
  leaseMs?: number;
  /**
   * How long `withLock()` waits for a lock another holder keeps renewing,
   * in milliseconds, before it throws an `MCPTimeoutError`. Default 60 000.
   */
  waitTimeoutMs?: number;
}

/** Default {@linkcode LockTiming.leaseMs}. */
export const DEFAULT_LEASE_MS = 15_000;
/** Default {@linkcode LockTiming.waitTimeoutMs}. */
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;

/** One attempt at one lock, as a backend implements it. */
export interface Lease {
  /** Tries once to take the lock (clearing a holder whose lease ran out); `true` when taken. */
  tryAcquire(): Promise<boolean>;
  /** Extends the lease while the section runs. */
  renew(): Promise<void>;
  /** Gives the lock up, if it is still ours. */
  release(): Promise<void>;
}

/** First and longest pause between two attempts, in milliseconds (jittered). */
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 100;

/** What {@linkcode withLease} needs besides the lock and the section. */
export interface LeaseOptions extends Required<LockTiming> {
  /** The lock in messages, e.g. `the token store's lock of "https://…"`. */
  what: string;
}

/**
 * Runs `fn` while holding `lease`: tries to take it, pausing between
 * attempts, until `options.waitTimeoutMs` has passed; renews it every third
 * of `options.leaseMs` while `fn` runs; releases it when `fn` settles.
 *
 * @param lease The lock.
 * @param fn The exclusive section.
 * @param options Lease, wait, and the lock's name in messages.
 * @returns What `fn` resolves with.
 * @throws {MCPTimeoutError} When the lock stayed taken for the whole wait.
 */
export async function withLease<T>(
  lease: Lease,
  fn: () => Promise<T>,
  options: LeaseOptions,
): Promise<T> {
  const { leaseMs, waitTimeoutMs, what } = options;
  const deadline = Date.now() + waitTimeoutMs;
  let pauseMs = FIRST_PAUSE_MS;
  while (!(await lease.tryAcquire())) {
    const leftMs = deadline - Date.now();
    if (leftMs <= 0) {
      throw new MCPTimeoutError(
        `${what} stayed taken for ${waitTimeoutMs} ms: another process is refreshing or writing and keeps renewing its lease; try again, or raise waitTimeoutMs`,
        waitTimeoutMs,
      );
    }
    await delay(Math.min(leftMs, pauseMs * (0.5 + Math.random())));
    pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
  }
  // A renewal that fails is retried at the next tick; if they all fail the
  // lease runs out, which is what a crashed holder's does too.
  const renewal = setInterval(
    () => lease.renew().catch(() => {}),
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    // A release that fails (the store went away) leaves a lock whose lease
    // runs out by itself; fn's own outcome is what the caller needs.
    await lease.release().catch(() => {});
  }
}

/** The timing with its defaults filled in, checked. */
export function lockTiming(timing: LockTiming = {}): Required<LockTiming> {
  const leaseMs = timing.leaseMs ?? DEFAULT_LEASE_MS;
  const waitTimeoutMs = timing.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  for (
    const [name, value] of [["leaseMs", leaseMs], [
      "waitTimeoutMs",
      waitTimeoutMs,
    ]] as const
  ) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(
        `${name} must be a positive number of milliseconds, got ${value}`,
      );
    }
  }
  return { leaseMs, waitTimeoutMs };
}

/** Sections that run one at a time per key, in call order, in this process. */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every section queued before it for `key` has settled. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => done = resolve);
    const tail = before.then(() => mine);
    this.#tails.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      done();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
