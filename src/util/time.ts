/**
 * Waiting with a bound: racing a promise against a signal or a deadline,
 * sleeping, and timers cancelled together. One module for every wait of
 * the library that is not a request's own deadline (the session keeps
 * those), and the one check of a deadline option (`…Ms`). Internal.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";

/** The longest delay a timer takes (2³¹−1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `ms` as a timer's delay: a deadline already passed (negative) fires at
 * once, one past the timers' range (or `NaN`) waits as long as a timer
 * can, and no runtime warns about either.
 */
export function timerMs(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
}

/** The clock reading shared until the microtasks queued before it have run. */
let tickTime: number | undefined;
const forgetTickTime = (): void => {
  tickTime = undefined;
};

/**
 * `performance.now()`, read once for everything that asks before the
 * microtasks already queued have run: the calls a batch of answers sets
 * off start at one reading (on Deno each read is a call into the runtime,
 * about a tenth of a microsecond). The reading is older than the moment
 * of asking by at most the time those microtasks took; a deadline counted
 * from it ends no later than one counted from a fresh reading.
 */
export function tickNow(): number {
  if (tickTime === undefined) {
    tickTime = performance.now();
    queueMicrotask(forgetTickTime);
  }
  return tickTime;
}

/** What may cut a wait short. */
export interface RaceOptions {
  /** Ends the wait with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Ends the wait after this many milliseconds, with `onTimeout()`. */
  timeoutMs?: number | undefined;
  /** The error of a wait that ran out of time. */
  onTimeout?: () => Error;
}

/**
 * `promise`, unless `options.signal` aborts first (its reason is thrown) or
 * `options.timeoutMs` passes first (`onTimeout()` is thrown). What `promise`
 * does afterwards is ignored; no timer or listener is left behind.
 */
export function race<T>(promise: Promise<T>, options: RaceOptions): Promise<T> {
  const { signal, timeoutMs } = options;
  if (!signal && timeoutMs === undefined) return promise;
  if (signal?.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  promise.catch(() => {}); // a loser's rejection is nobody's business
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = timeoutMs === undefined || timeoutMs === Infinity
      ? undefined
      : setTimeout(
        () =>
          reject(
            options.onTimeout?.() ??
              new Error(`timed out after ${timeoutMs} ms`),
          ),
        timerMs(timeoutMs),
      );
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

/** Resolves `true` if `promise` settles (either way) within `ms`, else `false`. */
export function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  return race(promise.then(() => true, () => true), { timeoutMs: ms })
    .catch(() => false);
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, timerMs(ms)));
}

/** Pending timers, cancelled together (on close). */
export class Timers {
  readonly #pending = new Set<ReturnType<typeof setTimeout>>();

  /** Runs `run` after `ms` milliseconds unless cleared first. */
  later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      run();
    }, timerMs(ms));
    this.#pending.add(timer);
  }

  /** Cancels every pending timer. */
  clear(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}

/**
 * Checks an optional deadline option.
 *
 * @throws {MCPConfigError} When it is not a positive finite number of milliseconds.
 */
export function checkTimeoutMs(
  field: string,
  value: number | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new MCPConfigError(
      field,
      `${field} must be a positive number of milliseconds (e.g. 30000), got ${
        JSON.stringify(value)
      }`,
    );
  }
  return value;
}
