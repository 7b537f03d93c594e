/**
 * The Deno process backend, built on `Deno.Command`. `node:child_process`
 * is not used here: under Deno its `kill()` ignores every signal after the
 * first, which would turn a SIGTERM → SIGKILL escalation into a no-op.
 * Loaded lazily by the stdio transport; internal, never exported.
 *
 * @module
 */

import type nodeProcess from "node:process";
import {
  type ChildExit,
  type ChildProcessHandle,
  groupHasLiveMember,
  type ProcessBackend,
  type SpawnOptions,
} from "./_process.ts";

// Set by load(): nothing runs at import time, so a bundler that inlines this
// module into an edge bundle leaves a module that loads (and is never used).
let isWindows = false;
let process: typeof nodeProcess;

/** `Deno.permissions.querySync` without ever prompting; `false` when unsure. */
function granted(descriptor: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

/** `groupHasLiveMember` over Deno's file API; a live member when /proc is not readable to us. */
function liveMemberIn(pgid: number): boolean {
  if (!granted({ name: "read", path: "/proc" })) return true;
  let pids: string[];
  try {
    pids = [...Deno.readDirSync("/proc")].map((entry) => entry.name);
  } catch {
    return true;
  }
  return groupHasLiveMember(pgid, pids, (pid) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/stat`);
    } catch {
      return undefined;
    }
  });
}

/** Whether `path` is known to be missing (not merely unreadable to us). */
function cwdMissing(path: string, error: Error): boolean {
  if (granted({ name: "read", path })) {
    try {
      return !Deno.statSync(path).isDirectory;
    } catch (statError) {
      return statError instanceof Deno.errors.NotFound;
    }
  }
  // Without read permission, fall back on Deno's own wording ("No such cwd").
  return /\bcwd\b/.test(error.message);
}

/** Gives a spawn failure the `code`/`syscall`/`path` shape `ProcessBackend` promises. */
function spawnError(error: unknown, options: SpawnOptions): unknown {
  if (!(error instanceof Deno.errors.NotFound)) return error;
  if (options.cwd !== undefined && cwdMissing(options.cwd, error)) {
    return Object.assign(
      new Error(`No such working directory: ${JSON.stringify(options.cwd)}`, {
        cause: error,
      }),
      { code: "ENOENT", syscall: "chdir", path: options.cwd },
    );
  }
  return Object.assign(
    new Error(`Executable not found: ${JSON.stringify(options.command)}`, {
      cause: error,
    }),
    { code: "ENOENT", syscall: "spawn", path: options.command },
  );
}

class DenoChild implements ChildProcessHandle {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exited: Promise<ChildExit>;
  #child: Deno.ChildProcess;
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stdinClosed: Promise<void> | undefined;
  #hasExited = false;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.pid = child.pid;
    this.stdout = child.stdout;
    this.stderr = child.stderr;
    this.#stdin = child.stdin.getWriter();
    this.exited = child.status.then((status) => {
      this.#hasExited = true;
      // Match Node: `code` is null when a signal ended the child.
      return {
        code: status.signal === null ? status.code : null,
        signal: status.signal,
      };
    });
  }

  write(data: Uint8Array): Promise<void> {
    return this.#stdin.write(data);
  }

  closeStdin(): Promise<void> {
    this.#stdinClosed ??= this.#stdin.close().catch(() => {});
    return this.#stdinClosed;
  }

  kill(signal: "SIGTERM" | "SIGKILL"): void {
    if (!isWindows) {
      try {
        Deno.kill(-this.pid, signal);
        return;
      } catch {
        // ESRCH (group gone) or EPERM: try the direct child below.
      }
    }
    try {
      this.#child.kill(signal);
    } catch {
      // Already exited.
    }
  }

  groupAlive(): boolean {
    if (isWindows) return !this.#hasExited;
    try {
      // `Deno.Signal` has no 0; node:process's kill is the documented probe.
      process.kill(-this.pid, 0);
    } catch {
      return false;
    }
    return Deno.build.os !== "linux" || liveMemberIn(this.pid);
  }
}

/** Loads the `Deno.Command` backend. */
export async function load(): Promise<ProcessBackend> {
  process = (await import("node:process")).default;
  isWindows = Deno.build.os === "windows";
  return backend;
}

const backend: ProcessBackend = {
  get platform(): string {
    return Deno.build.os;
  },

  getEnv(name: string): string | undefined {
    // Query first so a missing --allow-env never turns into an interactive prompt.
    if (!granted({ name: "env", variable: name })) return undefined;
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  },

  spawn(options: SpawnOptions): Promise<ChildProcessHandle> {
    try {
      const child = new Deno.Command(options.command, {
        args: options.args,
        env: options.env,
        clearEnv: true,
        cwd: options.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // A new process group, so kill(-pid) also reaches what npx / sh -c start.
        detached: !isWindows,
      }).spawn();
      return Promise.resolve(new DenoChild(child));
    } catch (error) {
      return Promise.reject(spawnError(error, options));
    }
  },
};
