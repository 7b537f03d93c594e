/**
 * The one small interface between the stdio transport and a runtime's
 * process API. `child_process.ts` implements it with `node:child_process`, with
 * Node.js's primitives or, through `deno_host.ts`, Deno's; the stdio transport
 * loads it lazily.
 * The environment a server gets is built by `util/child_env.ts`.
 * Internal: never exported.
 *
 * @module
 */

/** What to start. `env` is the child's whole environment (nothing is inherited). */
export interface SpawnOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

/**
 * The process group a child leads (POSIX), and the descendants that left it
 * (`setsid`): what `disconnect()` stops.
 */
export interface ChildProcessGroup {
  /**
   * Records the child's descendants as they are now (Linux: found through
   * `/proc` by parent chain), so `kill()` and `alive()` also reach those
   * that left the process group. Call before stopping the child: once it
   * exits, its orphans are re-parented and cannot be traced.
   */
  recordDescendants(): void;
  /** Signals the group and the recorded descendants (falls back to the child). Never throws. */
  kill(signal: "SIGTERM" | "SIGKILL"): void;
  /**
   * Whether any process of the group, or a recorded descendant, is still
   * running (`kill(-pid, 0)`; on Linux, members that are only unreaped
   * zombies do not count). Stays true after the direct child exits while
   * its descendants live on. On Windows (no process groups) it is true
   * until the direct child exits.
   */
  alive(): boolean;
}

/** A running child with piped stdio, leader of its own process group (POSIX). */
export interface ChildProcessHandle {
  readonly pid: number;
  /**
   * Reads stdout to its end, handing each chunk to `onData` as it arrives.
   * Each chunk is a fresh buffer, never reused: a reader may keep views of
   * it (both runtimes allocate a new buffer per read of a pipe).
   * Resolves at end of file, rejects on a read error; what `onData` throws
   * rejects it too and stops the reading. Call once.
   */
  readStdout(onData: (chunk: Uint8Array) => void): Promise<void>;
  /** Reads stderr like {@linkcode ChildProcessHandle.readStdout}. */
  readStderr(onData: (chunk: Uint8Array) => void): Promise<void>;
  /** Stops reading stdout and stderr; their read promises then settle. */
  stopReading(): void;
  /**
   * Writes UTF-8 text to stdin after what was written before, without
   * waiting for it (the runtime buffers what the pipe cannot take yet). A
   * failure goes to {@linkcode ChildProcessHandle.onWriteError}.
   */
  write(text: string): void;
  /** Receives a failed write (e.g. EPIPE: the child closed its stdin); set before writing. */
  onWriteError: (error: unknown) => void;
  /**
   * When stdin's buffer is full (the child reads slower than we write),
   * a promise that settles once it has room again; `undefined` when it has
   * room now. Callers hold further writes meanwhile.
   */
  drained(): Promise<void> | undefined;
  /** Closes stdin. Safe to call more than once and after exit. */
  closeStdin(): Promise<void>;
  /** The child's process group, and the descendants that left it. */
  readonly group: ChildProcessGroup;
  /** Resolves when the direct child has exited. */
  readonly exited: Promise<ChildExit>;
}

/** A runtime's process API, reduced to what the stdio transport needs. */
export interface ProcessBackend {
  /**
   * Starts a child. Rejects with `Deno.errors.NotFound`-like errors carrying
   * `code: "ENOENT"` when the executable does not exist; when `cwd` does not
   * exist the error also carries `syscall: "chdir"` and `path` set to the cwd.
   */
  spawn(options: SpawnOptions): Promise<ChildProcessHandle>;
  /** Reads one variable of the parent's environment; `undefined` if unset or not permitted. */
  getEnv(name: string): string | undefined;
  /**
   * Every name in the parent's environment, or `undefined` when listing
   * them is not permitted (Deno without a full `--allow-env`).
   */
  envNames(): readonly string[] | undefined;
  /** The platform, as `process.platform`/`Deno.build.os` name it ("linux", "darwin", "windows"). */
  readonly platform: string;
  /**
   * The Windows decisions (`windows.ts`), on Windows only: the stdio
   * transport takes them from the backend, so bundles without a backend
   * (browsers, edge runtimes) hold none of them.
   */
  readonly windows?: typeof import("../../util/windows.ts");
}
