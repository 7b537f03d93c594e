/**
 * Ctrl-C and its kin for the command line. The first SIGINT, SIGTERM or
 * SIGHUP aborts what is running, and the command stops its servers; every
 * later one is absorbed until then, so that a second Ctrl-C during that
 * cleanup (a server may take seconds to stop) cannot end the process and
 * leave a server running. Internal.
 *
 * @module
 */

import process from "node:process";

/** The signals that end a command line, and their numbers (for 128 + n). */
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;
type SignalName = keyof typeof SIGNALS;

/** What {@linkcode interruptOnSignals} returns. */
export interface Interrupts {
  /** Aborted on the first signal. */
  signal: AbortSignal;
  /** 128 + the number of the first signal (130 for SIGINT); `undefined` before one. */
  readonly exitCode: number | undefined;
  /** Stops listening: the signals' default actions apply again. */
  dispose(): void;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP (those the runtime lets us listen
 * for: on Windows, Deno takes only SIGINT) until disposed.
 */
export function interruptOnSignals(): Interrupts {
  const abort = new AbortController();
  let first: SignalName | undefined;
  const listeners = new Map<SignalName, () => void>();
  for (const name of Object.keys(SIGNALS) as SignalName[]) {
    const listener = () => {
      if (first !== undefined) return;
      first = name;
      abort.abort(
        new Error(
          name === "SIGINT" ? "interrupted (Ctrl-C)" : `interrupted (${name})`,
        ),
      );
    };
    try {
      process.on(name, listener);
      listeners.set(name, listener);
    } catch {
      // Not a signal this runtime can listen for here.
    }
  }
  return {
    signal: abort.signal,
    get exitCode() {
      return first === undefined ? undefined : 128 + SIGNALS[first];
    },
    dispose() {
      for (const [name, listener] of listeners) process.off(name, listener);
      listeners.clear();
    },
  };
}
