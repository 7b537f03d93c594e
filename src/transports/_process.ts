/**
 * The one small interface between the stdio transport and a runtime's
 * process API. `_process_deno.ts` implements it with `Deno.Command`,
 * `_process_node.ts` with `node:child_process`. Internal: never exported.
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

/** A running child with piped stdio, leader of its own process group (POSIX). */
export interface ChildProcessHandle {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Writes to stdin; resolves once the data is handed to the OS (respects backpressure). */
  write(data: Uint8Array): Promise<void>;
  /** Closes stdin. Safe to call more than once and after exit. */
  closeStdin(): Promise<void>;
  /** Signals the child's whole process group (falls back to the child). Never throws. */
  kill(signal: "SIGTERM" | "SIGKILL"): void;
  /**
   * Whether any process of the child's group is still running (`kill(-pid, 0)`;
   * on Linux, members that are only unreaped zombies do not count). Stays true
   * after the direct child exits while its descendants live on. On Windows
   * (no process groups) it is true until the direct child exits.
   */
  groupAlive(): boolean;
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
  /** The platform, as `process.platform`/`Deno.build.os` name it ("linux", "darwin", "windows"). */
  readonly platform: string;
}
