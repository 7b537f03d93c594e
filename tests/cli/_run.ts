/**
 * Runs the `mcp-adapter` command line as a subprocess: `deno run -A cli.ts`
 * under Deno, the npm package's `cli.js` under Node.
 *
 * @module
 */

import { spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

const RUN_TIMEOUT_MS = 60_000;

/** How to start the command line on this runtime. */
export function cliCommand(): { command: string; args: string[] } {
  if ("Deno" in globalThis) {
    const cli = fileURLToPath(new URL("../../cli.ts", import.meta.url));
    return { command: process.execPath, args: ["run", "-A", cli] };
  }
  const cli = fileURLToPath(
    import.meta.resolve("@cleveragents/mcp-adapter/cli"),
  );
  return { command: process.execPath, args: [cli] };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in its own process group and collects its output; the
 * whole group is killed if it outlives `RUN_TIMEOUT_MS`.
 */
export function exec(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk) => stdout += chunk);
    child.stderr!.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      reject(new Error(`${command} ${args.join(" ")} timed out:\n${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
