/**
 * The Node.js process backend, built on `node:child_process`. Loaded lazily
 * by the stdio transport (only when `Deno` is absent); internal, never
 * exported. No `node:` type appears in what it exports.
 *
 * @module
 */

import type { ChildProcessByStdio } from "node:child_process";
import type * as nodeChildProcess from "node:child_process";
import type * as nodeFs from "node:fs";
import type nodeProcess from "node:process";
import type { Readable, Writable } from "node:stream";
import type {
  ChildExit,
  ChildProcessHandle,
  ProcessBackend,
  SpawnOptions,
} from "./backend.ts";
import { ProcessGroup, type ProcReader } from "./group.ts";
import {
  type FileView,
  isAbsoluteWindowsPath,
  joinWindowsPath,
  type ProgramCall,
  treeKillPlan,
  windowsSpawnPlan,
} from "./windows.ts";

type PipedChild = ChildProcessByStdio<Writable, Readable, Readable>;

// Set by load(): the node: modules are imported there, not at the top, so a
// bundler that inlines this module into an edge bundle (wrangler does, by
// default) hoists no node: import that the edge runtime would refuse.
let isWindows = false;
let spawn: typeof nodeChildProcess.spawn;
let fs: typeof nodeFs;
let process: typeof nodeProcess;

/** Loads the `node:child_process` backend. */
export async function load(): Promise<ProcessBackend> {
  const [childProcess, fsModule, processModule] = await Promise.all([
    import("node:child_process"),
    import("node:fs"),
    import("node:process"),
  ]);
  spawn = childProcess.spawn;
  fs = fsModule;
  process = processModule.default;
  isWindows = process.platform === "win32";
  return backend;
}

/** `/proc` through `node:fs`. */
const proc: ProcReader = {
  entries() {
    try {
      return fs.readdirSync("/proc");
    } catch {
      return undefined;
    }
  },
  stat(pid) {
    try {
      return fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    } catch {
      return undefined;
    }
  },
};

/** The file system as `windowsSpawnPlan()` sees it. */
const files: FileView = {
  isFile(path) {
    try {
      return fs.statSync(path).isFile();
    } catch {
      return false;
    }
  },
  readText(path) {
    try {
      // A shim is a few hundred bytes; anything large is not one.
      return fs.statSync(path).size <= 64 * 1024
        ? fs.readFileSync(path, "utf8")
        : undefined;
    } catch {
      return undefined;
    }
  },
};

/**
 * What to start on Windows: the command resolved over the child's `PATH` ×
 * `PATHEXT` (never the current folder), a `.cmd`/`.bat` through
 * System32's `cmd.exe` with its arguments quoted for it, or an npm shim's
 * program directly. Node itself would not find `npx` (it is `npx.cmd`) and
 * refuses to start a `.cmd` without a shell (CVE-2024-27980).
 */
function windowsCall(options: SpawnOptions): ProgramCall {
  const base = process.cwd();
  const cwd = options.cwd === undefined
    ? base
    : isAbsoluteWindowsPath(options.cwd)
    ? options.cwd
    : joinWindowsPath(base, options.cwd);
  const plan = windowsSpawnPlan(options.command, options.args, {
    env: options.env,
    cwd,
    files,
    parentEnv: process.env,
  });
  if (plan === undefined) {
    throw Object.assign(
      new Error(`Executable not found: ${JSON.stringify(options.command)}`),
      { code: "ENOENT", syscall: "spawn", path: options.command },
    );
  }
  return plan;
}

/** Stops `pid` and its descendants with System32's taskkill; the direct child alone if that fails. */
function killTree(pid: number, fallback: () => void): void {
  let plan: ProgramCall;
  try {
    plan = treeKillPlan(pid, process.env);
  } catch {
    fallback();
    return;
  }
  try {
    const killer = spawn(plan.command, plan.args, {
      stdio: "ignore",
      windowsHide: true,
    });
    killer.once("error", fallback);
    killer.once("exit", (code) => {
      if (code !== 0) fallback();
    });
  } catch {
    fallback();
  }
}

/** Node reports a missing cwd as ENOENT on the command; tell the two apart. */
function spawnError(error: unknown, options: SpawnOptions): unknown {
  if (
    (error as { code?: unknown } | null)?.code !== "ENOENT" ||
    options.cwd === undefined
  ) return error;
  let missing: boolean;
  try {
    missing = !fs.statSync(options.cwd).isDirectory();
  } catch {
    missing = true;
  }
  if (!missing) return error;
  return Object.assign(
    new Error(`No such working directory: ${JSON.stringify(options.cwd)}`, {
      cause: error,
    }),
    { code: "ENOENT", syscall: "chdir", path: options.cwd },
  );
}

/**
 * Reads a Node stream natively ('data' events, no web-stream wrapper in
 * between): the chunks go straight to `onData`. Settles on 'end', on
 * 'close' (a destroyed pipe may never emit 'end') and on 'error'.
 */
function readAll(
  readable: Readable,
  onData: (chunk: Uint8Array) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      readable.off("data", receive);
      readable.destroy();
      reject(error);
    };
    const receive = (chunk: Uint8Array) => {
      try {
        onData(chunk);
      } catch (error) {
        fail(error);
      }
    };
    readable.on("data", receive);
    readable.once("end", () => resolve());
    readable.once("close", () => resolve());
    readable.once("error", fail);
  });
}

class NodeChild implements ChildProcessHandle {
  readonly pid: number;
  readonly exited: Promise<ChildExit>;
  #child: PipedChild;
  readonly group: ProcessGroup;
  #stdinClosed: Promise<void> | undefined;

  constructor(child: PipedChild, pid: number, exited: Promise<ChildExit>) {
    this.#child = child;
    this.pid = pid;
    this.exited = exited;
    const signalChild = (signal: "SIGTERM" | "SIGKILL") => {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
    };
    this.group = new ProcessGroup(pid, {
      signal: (target, signal) => process.kill(target, signal),
      signalChild,
      platform: platform(),
      proc,
      killTree: (target) => killTree(target, () => signalChild("SIGKILL")),
    }, exited);
    // A failed write (EPIPE after the child exits) arrives as 'error';
    // without a listener it would crash the process.
    child.stdin.on("error", (error) => this.onWriteError(error));
    child.on("error", () => {});
  }

  readStdout(onData: (chunk: Uint8Array) => void): Promise<void> {
    return readAll(this.#child.stdout, onData);
  }

  readStderr(onData: (chunk: Uint8Array) => void): Promise<void> {
    return readAll(this.#child.stderr, onData);
  }

  stopReading(): void {
    this.#child.stdout.destroy();
    this.#child.stderr.destroy();
  }

  onWriteError: (error: unknown) => void = () => {};

  write(text: string): void {
    const stdin = this.#child.stdin;
    if (stdin.destroyed || stdin.writableEnded) {
      this.onWriteError(
        Object.assign(new Error("The child's stdin is closed"), {
          code: "EPIPE",
        }),
      );
      return;
    }
    // Node buffers what the pipe cannot take and writes it in one writev.
    stdin.write(text);
  }

  drained(): Promise<void> | undefined {
    const stdin = this.#child.stdin;
    if (!stdin.writableNeedDrain || stdin.destroyed) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        stdin.off("drain", done);
        stdin.off("close", done);
        resolve();
      };
      stdin.on("drain", done);
      stdin.on("close", done);
    });
  }

  closeStdin(): Promise<void> {
    const stdin = this.#child.stdin;
    this.#stdinClosed ??= new Promise<void>((resolve) => {
      if (stdin.destroyed || stdin.writableFinished) {
        resolve();
        return;
      }
      const done = () => resolve();
      stdin.once("finish", done);
      stdin.once("close", done);
      stdin.once("error", done);
      stdin.end();
    });
    return this.#stdinClosed;
  }
}

function platform(): string {
  return isWindows ? "windows" : process.platform;
}

const backend: ProcessBackend = {
  get platform(): string {
    return platform();
  },

  getEnv(name: string): string | undefined {
    return process.env[name];
  },

  spawn(options: SpawnOptions): Promise<ChildProcessHandle> {
    return new Promise((resolve, reject) => {
      let child: PipedChild;
      try {
        const call: ProgramCall = isWindows
          ? windowsCall(options)
          : { command: options.command, args: options.args, verbatim: false };
        child = spawn(call.command, call.args, {
          cwd: options.cwd,
          env: options.env,
          stdio: "pipe",
          // A new process group, so kill(-pid) also reaches what npx / sh -c start.
          detached: !isWindows,
          windowsHide: true,
          windowsVerbatimArguments: call.verbatim,
        });
      } catch (error) {
        reject(spawnError(error, options));
        return;
      }
      // Listen for 'exit' before 'spawn' so no exit can be missed.
      const exited = new Promise<ChildExit>((resolveExit) => {
        child.once("exit", (code, signal) => resolveExit({ code, signal }));
      });
      // ENOENT/EACCES arrive as an asynchronous 'error' instead of 'spawn'.
      const onError = (error: Error) => {
        child.off("spawn", onSpawn);
        reject(spawnError(error, options));
      };
      const onSpawn = () => {
        child.off("error", onError);
        resolve(new NodeChild(child, child.pid as number, exited));
      };
      child.once("error", onError);
      child.once("spawn", onSpawn);
    });
  },
};
