/**
 * Runs build and test commands for the repo's scripts: inherited output, a
 * deadline on every child, and no processes left behind.
 *
 * Each child starts in its own session (process group), so a timeout or a
 * Ctrl-C reaches everything it spawned (fixture servers, `npx` grandchildren),
 * and whatever is still alive in the group after the child exits is killed.
 *
 * @module
 */

/** Exit code returned when a deadline passed, as coreutils `timeout` does. */
export const TIMEOUT_EXIT_CODE = 124;

/** How long a child gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 5_000;
/** How long captured output may keep flowing after the child exited. */
const PIPE_DRAIN_MS = 2_000;

/** Process groups exist on every supported OS except Windows. */
const POSIX = Deno.build.os !== "windows";

/** Options for {@linkcode run}. */
export interface RunOptions {
  /** Kill the child and its process group after this many milliseconds. */
  timeoutMs: number;
  /** Working directory; the current one when omitted. */
  cwd?: string;
  /** Variables added to the inherited environment. */
  env?: Record<string, string>;
  /**
   * Receives the child's stdout and stderr, chunk by chunk as they come,
   * instead of this process's own stdout and stderr. The child's output is
   * read to its end before {@linkcode run} resolves.
   */
  onOutput?: (chunk: Uint8Array) => void;
}

/**
 * Prints a line to stdout, in order with the output of children that inherit
 * it (the write is synchronous).
 *
 * @param line The text to print.
 *
 * @example
 * ```ts
 * import { log } from "./_run.ts";
 *
 * log("== fmt ==");
 * ```
 */
export function log(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

/**
 * Prints a line to stderr.
 *
 * @param line The text to print.
 *
 * @example
 * ```ts
 * import { logError } from "./_run.ts";
 *
 * logError("build_npm: deno pack failed");
 * ```
 */
export function logError(line: string): void {
  // deno-lint-ignore no-console
  console.error(line);
}

/**
 * Ends a script run from the command line: exits with the code `main`
 * resolves to, or 1 after printing `<name>: <message>` when it throws; when
 * `timeoutMs` is given and the code is {@linkcode TIMEOUT_EXIT_CODE}, says
 * so first.
 *
 * @param name The script's name, the prefix of its messages.
 * @param main The script's work; resolves to its exit code.
 * @param timeoutMs The deadline `main` ran under, for the timeout message.
 *
 * @example
 * ```ts ignore
 * import { exitWith, run } from "./_run.ts";
 *
 * await exitWith("fmt", () => run("deno", ["fmt"], { timeoutMs: 60_000 }));
 * ```
 */
export async function exitWith(
  name: string,
  main: () => Promise<number>,
  timeoutMs?: number,
): Promise<never> {
  let code: number;
  try {
    code = await main();
  } catch (error) {
    logError(`${name}: ${error instanceof Error ? error.message : error}`);
    code = 1;
  }
  if (timeoutMs !== undefined && code === TIMEOUT_EXIT_CODE) {
    logError(`${name}: gave up after ${timeoutMs} ms`);
  }
  Deno.exit(code);
}

/**
 * Runs a command with inherited stdout/stderr (or handed to
 * `options.onOutput`) and no stdin, and waits for it at most `timeoutMs`. SIGINT and SIGTERM sent to this process while the
 * child runs are forwarded to the child's process group, so callers get to
 * clean up.
 *
 * @param command The executable, looked up on `PATH` unless it is a path.
 * @param args Its arguments.
 * @param options Deadline, working directory and extra environment.
 * @returns The child's exit code; {@linkcode TIMEOUT_EXIT_CODE} when the
 * deadline passed; 128 + signal number when a signal ended it.
 * @throws {Deno.errors.NotFound} When `command` does not exist.
 *
 * @example
 * ```ts ignore
 * import { run } from "./_run.ts";
 *
 * const code = await run("deno", ["fmt", "--check"], { timeoutMs: 60_000 });
 * if (code !== 0) Deno.exit(code);
 * ```
 */
export async function run(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<number> {
  const child = new Deno.Command(command, {
    args: [...args],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    stdin: "null",
    stdout: options.onOutput ? "piped" : "inherit",
    stderr: options.onOutput ? "piped" : "inherit",
    detached: POSIX,
  }).spawn();
  const label = [command, ...args].join(" ");
  const deadline = startDeadline(child, label, options.timeoutMs);
  const stopForwarding = forwardSignals(child);
  const onOutput = options.onOutput;
  const reading = onOutput === undefined ? [] : [
    child.stdout.pipeTo(
      new WritableStream({ write: (chunk) => onOutput(chunk) }),
    ),
    child.stderr.pipeTo(
      new WritableStream({ write: (chunk) => onOutput(chunk) }),
    ),
  ];
  try {
    const status = await child.status;
    // Grandchildren may hold the pipes open: they are killed below, so only
    // wait a moment for what the child itself wrote.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled(reading),
      new Promise((resolve) => timer = setTimeout(resolve, PIPE_DRAIN_MS)),
    ]);
    clearTimeout(timer);
    // Deno reports a child ended by a signal as 128 + its number, like a shell.
    return deadline.expired() ? TIMEOUT_EXIT_CODE : status.code;
  } finally {
    deadline.cancel();
    stopForwarding();
    signalGroup(child, "SIGKILL");
  }
}

/**
 * Runs a command like {@linkcode run} and throws unless it exits 0.
 *
 * @param command The executable.
 * @param args Its arguments.
 * @param options Deadline, working directory and extra environment.
 * @throws {Error} When the command fails or times out; the message names it.
 *
 * @example
 * ```ts ignore
 * import { mustRun } from "./_run.ts";
 *
 * await mustRun("npm", ["--version"], { timeoutMs: 30_000 });
 * ```
 */
export async function mustRun(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<void> {
  const code = await run(command, args, options);
  if (code === 0) return;
  const why = code === TIMEOUT_EXIT_CODE
    ? `timed out after ${options.timeoutMs} ms`
    : `exited with code ${code}`;
  throw new Error(`"${[command, ...args].join(" ")}" ${why}`);
}

/** A running deadline for one child. */
interface Deadline {
  expired(): boolean;
  cancel(): void;
}

function startDeadline(
  child: Deno.ChildProcess,
  label: string,
  timeoutMs: number,
): Deadline {
  let expired = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const timer = setTimeout(() => {
    expired = true;
    logError(`\n"${label}" did not finish within ${timeoutMs} ms; stopping it`);
    signalGroup(child, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(child, "SIGKILL"), KILL_GRACE_MS);
  }, timeoutMs);
  return {
    expired: () => expired,
    cancel: () => {
      clearTimeout(timer);
      clearTimeout(killTimer);
    },
  };
}

function forwardSignals(child: Deno.ChildProcess): () => void {
  if (!POSIX) return () => {};
  const onInt = () => signalGroup(child, "SIGINT");
  const onTerm = () => signalGroup(child, "SIGTERM");
  Deno.addSignalListener("SIGINT", onInt);
  Deno.addSignalListener("SIGTERM", onTerm);
  return () => {
    Deno.removeSignalListener("SIGINT", onInt);
    Deno.removeSignalListener("SIGTERM", onTerm);
  };
}

/** Signals the child's whole process group; a group already gone is fine. */
function signalGroup(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    if (POSIX) Deno.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}
