/**
 * The raw stdio client's process API on Deno: `Deno.Command`, a stdout
 * reader loop with a streaming `TextDecoder`, one `write()` per message.
 * Loaded by `_raw_stdio.ts` only when `Deno` exists. Internal to the
 * benchmarks.
 *
 * @module
 */

import type { RawChild, RawCommand } from "./_raw_child.ts";

const encoder = new TextEncoder();

/** Starts `command`; `onText` receives stdout as text, `onEnd` its end. */
export function spawn(
  command: RawCommand,
  onText: (text: string) => void,
  onEnd: () => void,
): RawChild {
  const child = new Deno.Command(command.command, {
    args: command.args,
    env: command.env,
    clearEnv: true,
    ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const read = async () => {
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        onText(decoder.decode(value, { stream: true }));
      }
    } finally {
      onEnd();
    }
  };
  // A read failure reaches the callers through their pending requests.
  read().catch(() => {});
  return {
    pid: child.pid,
    write(text) {
      writer.write(encoder.encode(text)).catch(() => {});
    },
    closeStdin() {
      writer.close().catch(() => {});
    },
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Exited meanwhile.
      }
    },
    exited: child.status.then(() => {}),
  };
}
