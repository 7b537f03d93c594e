/**
 * The raw stdio client's process API on Node: `node:child_process`, stdout
 * read with 'data' events as UTF-8 text, one `stdin.write()` per message
 * (Node gathers writes queued behind a pending one into a single `writev`).
 * Loaded by `_raw_stdio.ts` only when `Deno` is absent. Internal to the
 * benchmarks.
 *
 * @module
 */

import { spawn as spawnChild } from "node:child_process";
import type { RawChild, RawCommand } from "./_raw_child.ts";

/** Starts `command`; `onText` receives stdout as text, `onEnd` its end. */
export function spawn(
  command: RawCommand,
  onText: (text: string) => void,
  onEnd: () => void,
): RawChild {
  const child = spawnChild(command.command, command.args, {
    env: command.env,
    ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  child.stdin.on("error", () => {});
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", onText);
  child.stdout.once("close", onEnd);
  return {
    pid: child.pid ?? -1,
    write(text) {
      child.stdin.write(text);
    },
    closeStdin() {
      child.stdin.end();
    },
    kill() {
      child.kill("SIGKILL");
    },
    exited,
  };
}
