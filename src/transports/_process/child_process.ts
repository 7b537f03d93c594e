/**
 * The process backend, built on `node:child_process`: Node.js and Bun run it
 * as it is, Deno through `deno_host.ts`, which supplies its own
 * {@linkcode ProcessHost} (signals, environment, `/proc`, under Deno's
 * permissions). On Deno, `node:child_process` costs about half the client
 * CPU per message of `Deno.Command`'s web streams (`bench/client_bench.ts`).
 * Loaded lazily by the stdio transport; internal, never exported. No
 * `node:` type appears in what it exports.
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
} from "../../util/windows.ts";
import * as windowsModule from "../../util/windows.ts";

type PipedChild = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * What the backend needs from the runtime beyond `node:child_process`:
 * Node.js's own primitives under Node and Bun, Deno's under Deno.
 */
export interface ProcessHost {
  /** The platform, as `Deno.build.os` names it ("linux", "darwin", "windows"). */
  readonly platform: string;
  /** One variable of the parent's environment; `undefined` if unset or not permitted. */
  getEnv(name: string): string | undefined;
  /** Every name in the parent's environment; `undefined` if listing is not permitted. */
  envNames(): readonly string[] | undefined;
  /** `kill(pid, signal)`; `0` probes. Throws when the target is gone or not ours. */
  signal(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): void;
  /**
   * Signals the direct child; never throws. Not `ChildProcess.kill()` under
   * Deno, whose implementation ignores every signal after the first.
   */
  signalChild(
    child: { kill(signal: "SIGTERM" | "SIGKILL"): unknown; pid?: number },
    signal: "SIGTERM" | "SIGKILL",
  ): void;
  /** Reads `/proc` (Linux). */
  readonly proc: ProcReader;
  /** Whether `path` is known not to be a directory (not merely unreadable to us). */
  cwdMissing(path: string): boolean;
  /** The file system as the Windows command resolution sees it (`windows.ts`). */
  readonly files: FileView;
  /** The parent's working directory. */
  cwd(): string;
}

// Set by load(): the node: modules are imported there, not at the top, so a
// bundler that inlines this module into an edge bundle (wrangler does, by
// default) hoists no node: import that the edge runtime would refuse.
let isWindows = false;
let spawn: typeof nodeChildProcess.spawn;
let host: ProcessHost;

/**
 * Loads the backend, on Node.js and Bun with their own primitives.
 *
 * @param runtimeHost The runtime's primitives; built from `node:fs` and
 * `node:process` when absent.
 */
export async function load(runtimeHost?: ProcessHost): Promise<ProcessBackend> {
  spawn = (await import("node:child_process")).spawn;
  host = runtimeHost ?? await nodeHost();
  isWindows = host.platform === "windows";
  return backend;
}

/** Node.js's (and Bun's) primitives. */
async function nodeHost(): Promise<ProcessHost> {
  const [fs, processModule] = await Promise.all([
    import("node:fs"),
    import("node:process"),
  ]);
  const process: typeof nodeProcess = processModule.default;
  return nodeHostOf(fs, process);
}

function nodeHostOf(
  fs: typeof nodeFs,
  process: typeof nodeProcess,
): ProcessHost {
  return {
    platform: process.platform === "win32" ? "windows" : process.platform,
    getEnv: (name) => process.env[name],
    envNames: () => Object.keys(process.env),
    signal: (pid, signal) => process.kill(pid, signal),
    signalChild(child, signal) {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
    },
    proc: {
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
    },
    cwdMissing(path) {
      try {
        return !fs.statSync(path).isDirectory();
      } catch {
        return true;
      }
    },
    files: {
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
          return fs.statSync(path).size <= MAX_SHIM_BYTES
            ? fs.readFileSync(path, "utf8")
            : undefined;
        } catch {
          return undefined;
        }
      },
    },
    cwd: () => process.cwd(),
  };
}

/** Longer than any npm shim: a file this large is not read as one. */
export const MAX_SHIM_BYTES = 64 * 1024;

/** The parent's variables `windows.ts` reads (`SystemRoot`), through the host. */
function parentEnv(): Record<string, string | undefined> {
  return { SystemRoot: host.getEnv("SYSTEMROOT") };
}

/**
 * What to start on Windows: the command resolved over the child's `PATH` ×
 * `PATHEXT` (never the current folder), a `.cmd`/`.bat` through
 * System32's `cmd.exe` with its arguments quoted for it, or an npm shim's
 * program directly. Node itself would not find `npx` (it is `npx.cmd`) and
 * refuses to start a `.cmd` without a shell (CVE-2024-27980).
 */
function windowsCall(options: SpawnOptions): ProgramCall {
  const base = host.cwd();
  const cwd = options.cwd === undefined
    ? base
    : isAbsoluteWindowsPath(options.cwd)
    ? options.cwd
    : joinWindowsPath(base, options.cwd);
  const plan = windowsSpawnPlan(options.command, options.args, {
    env: options.env,
    cwd,
    files: host.files,
    parentEnv: parentEnv(),
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
    plan = treeKillPlan(pid, parentEnv());
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

/** `node:child_process` reports a missing cwd as ENOENT on the command; tell the two apart. */
function spawnError(error: unknown, options: SpawnOptions): unknown {
  if (
    (error as { code?: unknown } | null)?.code !== "ENOENT" ||
    options.cwd === undefined || !host.cwdMissing(options.cwd)
  ) return error;
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
    const signalChild = (signal: "SIGTERM" | "SIGKILL") =>
      host.signalChild(child, signal);
    this.group = new ProcessGroup(pid, {
      signal: host.signal,
      signalChild,
      platform: host.platform,
      proc: host.proc,
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

const backend: ProcessBackend = {
  get platform(): string {
    return host.platform;
  },

  get windows(): typeof windowsModule | undefined {
    return isWindows ? windowsModule : undefined;
  },

  getEnv(name: string): string | undefined {
    return host.getEnv(name);
  },

  envNames(): readonly string[] | undefined {
    return host.envNames();
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
