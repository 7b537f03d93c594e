/**
 * The Deno process backend, built on `Deno.Command`. `node:child_process`
 * is not used here: under Deno its `kill()` ignores every signal after the
 * first, which would turn a SIGTERM → SIGKILL escalation into a no-op.
 * Loaded lazily by the stdio transport; internal, never exported.
 *
 * @module
 */

import type nodeProcess from "node:process";
import type {
  ChildExit,
  ChildProcessHandle,
  ProcessBackend,
  SpawnOptions,
} from "./backend.ts";
import { ProcessGroup, type ProcReader } from "./group.ts";
import { treeKillPlan } from "./windows.ts";

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

/** `/proc` through Deno's file API, only where reading it is already permitted. */
const proc: ProcReader = {
  entries() {
    if (!granted({ name: "read", path: "/proc" })) return undefined;
    try {
      return [...Deno.readDirSync("/proc")].map((entry) => entry.name);
    } catch {
      return undefined;
    }
  },
  stat(pid) {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/stat`);
    } catch {
      return undefined;
    }
  },
};

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

const encoder = new TextEncoder();

/**
 * Windows: stops `pid` and its descendants with System32's taskkill (needs
 * `--allow-run` for it); the direct child alone when that fails.
 */
function killTree(pid: number, fallback: () => void): void {
  try {
    const plan = treeKillPlan(pid, {
      SystemRoot: backend.getEnv("SYSTEMROOT"),
    });
    new Deno.Command(plan.command, {
      args: plan.args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn().status.then(
      (status) => status.success || fallback(),
      fallback,
    );
  } catch {
    fallback();
  }
}

/** Reads a web stream to its end, handing each chunk to `onData`. */
async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  onData: (chunk: Uint8Array) => void,
): Promise<void> {
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onData(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
}

class DenoChild implements ChildProcessHandle {
  readonly pid: number;
  readonly exited: Promise<ChildExit>;
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stdout: ReadableStreamDefaultReader<Uint8Array>;
  #stderr: ReadableStreamDefaultReader<Uint8Array>;
  readonly group: ProcessGroup;
  #stdinClosed: Promise<void> | undefined;

  constructor(child: Deno.ChildProcess) {
    this.pid = child.pid;
    this.#stdin = child.stdin.getWriter();
    this.#stdout = child.stdout.getReader();
    this.#stderr = child.stderr.getReader();
    this.exited = child.status.then((status) => ({
      // Match Node: `code` is null when a signal ended the child.
      code: status.signal === null ? status.code : null,
      signal: status.signal,
    }));
    const signalChild = (signal: "SIGTERM" | "SIGKILL") => {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
    };
    this.group = new ProcessGroup(child.pid, {
      signal: (target, signal) =>
        // `Deno.Signal` has no 0; node:process's kill is the documented probe.
        signal === 0 ? process.kill(target, 0) : Deno.kill(target, signal),
      signalChild,
      platform: Deno.build.os,
      proc,
      killTree: (target) => killTree(target, () => signalChild("SIGKILL")),
    }, this.exited);
  }

  readStdout(onData: (chunk: Uint8Array) => void): Promise<void> {
    return readAll(this.#stdout, onData);
  }

  readStderr(onData: (chunk: Uint8Array) => void): Promise<void> {
    return readAll(this.#stderr, onData);
  }

  stopReading(): void {
    this.#stdout.cancel().catch(() => {});
    this.#stderr.cancel().catch(() => {});
  }

  onWriteError: (error: unknown) => void = () => {};

  write(text: string): void {
    this.#stdin.write(encoder.encode(text)).catch((error) =>
      this.onWriteError(error)
    );
  }

  drained(): Promise<void> | undefined {
    const room = this.#stdin.desiredSize;
    return room !== null && room <= 0 ? this.#stdin.ready : undefined;
  }

  closeStdin(): Promise<void> {
    this.#stdinClosed ??= this.#stdin.close().catch(() => {});
    return this.#stdinClosed;
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
        // On Windows Deno finds `npx.cmd` over PATHEXT and quotes a .cmd's
        // arguments for cmd.exe itself (the Windows CI job proves both); it
        // has no windowsHide, so a host without a console shows one per server.
        detached: !isWindows,
      }).spawn();
      return Promise.resolve(new DenoChild(child));
    } catch (error) {
      return Promise.reject(spawnError(error, options));
    }
  },
};
