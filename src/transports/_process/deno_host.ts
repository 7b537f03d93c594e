/**
 * The Deno process backend: `node:child_process` (see `child_process.ts`) with
 * Deno's own primitives, so nothing it does prompts for a permission or
 * needs one beyond what starting the server takes. Signals go through
 * `Deno.kill()`: Deno's `ChildProcess.kill()` ignores every signal after
 * the first, which would turn a SIGTERM → SIGKILL escalation into a no-op.
 *
 * On Windows the command is resolved by `child_process.ts` (`PATH` × `PATHEXT`,
 * `.cmd` through `cmd.exe`), as under Node.js, and `windowsHide` keeps a
 * host without a console from showing a window per server.
 *
 * `Deno.Command` was this backend until `bench/client_bench.ts` showed that
 * its web streams cost about twice the client CPU per message of Deno's
 * `node:child_process` (docs/performance.md). Loaded lazily by the stdio
 * transport; internal, never exported.
 *
 * @module
 */

import type { ProcessBackend } from "./backend.ts";
import type { ProcessHost } from "./child_process.ts";
import type { ProcReader } from "./group.ts";

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

/** Loads the backend with Deno's primitives. */
export async function load(): Promise<ProcessBackend> {
  const [node, processModule] = await Promise.all([
    import("./child_process.ts"),
    import("node:process"),
  ]);
  const process = processModule.default;
  const host: ProcessHost = {
    platform: Deno.build.os,
    getEnv(name) {
      // Query first so a missing --allow-env never turns into an interactive prompt.
      if (!granted({ name: "env", variable: name })) return undefined;
      try {
        return Deno.env.get(name);
      } catch {
        return undefined;
      }
    },
    envNames() {
      if (!granted({ name: "env" })) return undefined;
      try {
        return Object.keys(Deno.env.toObject());
      } catch {
        return undefined;
      }
    },
    signal: (pid, signal) =>
      // `Deno.Signal` has no 0; node:process's kill is the documented probe.
      signal === 0 ? process.kill(pid, 0) : Deno.kill(pid, signal),
    signalChild(child, signal) {
      try {
        if (child.pid !== undefined) Deno.kill(child.pid, signal);
      } catch {
        // Already exited.
      }
    },
    proc,
    cwdMissing(path) {
      // Unreadable to us: let the runtime's own error stand.
      if (!granted({ name: "read", path })) return false;
      try {
        return !Deno.statSync(path).isDirectory;
      } catch (error) {
        return error instanceof Deno.errors.NotFound;
      }
    },
    // Windows command resolution: only where reading is already permitted.
    files: {
      isFile(path) {
        if (!granted({ name: "read", path })) return false;
        try {
          return Deno.statSync(path).isFile;
        } catch {
          return false;
        }
      },
      readText(path) {
        if (!granted({ name: "read", path })) return undefined;
        try {
          return Deno.statSync(path).size <= node.MAX_SHIM_BYTES
            ? Deno.readTextFileSync(path)
            : undefined;
        } catch {
          return undefined;
        }
      },
    },
    cwd() {
      try {
        return Deno.cwd();
      } catch {
        return "."; // no --allow-read: a relative cwd stays relative
      }
    },
  };
  return await node.load(host);
}
