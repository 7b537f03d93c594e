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
import {
  type ChildExit,
  type ChildProcessHandle,
  groupHasLiveMember,
  type ProcessBackend,
  type SpawnOptions,
} from "./_process.ts";

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

/** `groupHasLiveMember` over `node:fs`; a live member when /proc is not readable. */
function liveMemberIn(pgid: number): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc");
  } catch {
    return true;
  }
  return groupHasLiveMember(pgid, pids, (pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    } catch {
      return undefined;
    }
  });
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
 * A web `ReadableStream` over a Node `Readable`: pauses the source while
 * the queue (8 chunks) is full, yields plain `Uint8Array`s, and closes on
 * 'close' too (a destroyed pipe may never emit 'end'). Written out rather
 * than `Readable.toWeb` so the behaviour does not vary across Node versions.
 */
function toWebStream(readable: Readable): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      readable.on("data", (chunk: Uint8Array) => {
        if (finished) return;
        controller.enqueue(
          new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
        );
        if ((controller.desiredSize ?? 0) <= 0) readable.pause();
      });
      const end = () => {
        if (finished) return;
        finished = true;
        controller.close();
      };
      readable.once("end", end);
      readable.once("close", end);
      readable.once("error", (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
    },
    pull() {
      readable.resume();
    },
    cancel() {
      finished = true;
      readable.destroy();
    },
  }, { highWaterMark: 8 });
}

class NodeChild implements ChildProcessHandle {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exited: Promise<ChildExit>;
  #child: PipedChild;
  #stdinClosed: Promise<void> | undefined;
  #hasExited = false;

  constructor(child: PipedChild, pid: number, exited: Promise<ChildExit>) {
    this.#child = child;
    this.pid = pid;
    this.stdout = toWebStream(child.stdout);
    this.stderr = toWebStream(child.stderr);
    this.exited = exited.then((exit) => {
      this.#hasExited = true;
      return exit;
    });
    // EPIPE after the child exits reaches the write callbacks; without a
    // listener the 'error' event would crash the process.
    child.stdin.on("error", () => {});
    child.on("error", () => {});
  }

  write(data: Uint8Array): Promise<void> {
    const stdin = this.#child.stdin;
    return new Promise((resolve, reject) => {
      if (stdin.destroyed || stdin.writableEnded) {
        reject(
          Object.assign(new Error("The child's stdin is closed"), {
            code: "EPIPE",
          }),
        );
        return;
      }
      // The callback runs once the chunk is handed to the OS (or fails), so a
      // serial caller never has more than one chunk buffered: backpressure.
      stdin.write(data, (error) => error ? reject(error) : resolve());
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

  kill(signal: "SIGTERM" | "SIGKILL"): void {
    if (!isWindows) {
      try {
        process.kill(-this.pid, signal);
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
      process.kill(-this.pid, 0);
    } catch {
      return false;
    }
    return process.platform !== "linux" || liveMemberIn(this.pid);
  }
}

const backend: ProcessBackend = {
  get platform(): string {
    return isWindows ? "windows" : process.platform;
  },

  getEnv(name: string): string | undefined {
    return process.env[name];
  },

  spawn(options: SpawnOptions): Promise<ChildProcessHandle> {
    return new Promise((resolve, reject) => {
      let child: PipedChild;
      try {
        child = spawn(options.command, options.args, {
          cwd: options.cwd,
          env: options.env,
          stdio: "pipe",
          // A new process group, so kill(-pid) also reaches what npx / sh -c start.
          detached: !isWindows,
          windowsHide: true,
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
