/**
 * Runs the `mcp-adapter` command line as a subprocess: `deno run -A cli.ts`
 * under Deno, the npm package's `cli.js` under Node.
 *
 * @module
 */

import { after, before } from "node:test";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { sdkServerCommand } from "../_helpers.ts";

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

/** The SDK test server, as a command of this runtime. */
export const fixture = sdkServerCommand;

/** A temporary folder with config files, and the command line run in it. */
export interface CliWorkspace {
  /** The folder (set in `before`). */
  dir: string;
  /** `servers.json`: the SDK test server as `sdk`. */
  config: string;
  /** `broken.json`: `sdk`, and `ghost`, whose command does not exist. */
  brokenConfig: string;
  /** Runs the command line with `args` in `cwd` (default: the folder). */
  cli(args: readonly string[], cwd?: string): Promise<Run>;
}

/**
 * Registers the `before` that creates the {@linkcode CliWorkspace} and the
 * `after` that removes it; call it at the top of a `describe`.
 */
export function cliWorkspace(): CliWorkspace {
  const workspace: CliWorkspace = {
    dir: "",
    config: "",
    brokenConfig: "",
    cli(args, cwd = workspace.dir) {
      const { command, args: base } = cliCommand();
      return exec(command, [...base, ...args], cwd);
    },
  };
  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcp-cli-test-"));
    workspace.dir = dir;
    const sdk = { command: fixture.command, args: fixture.args };
    workspace.config = join(dir, "servers.json");
    await writeFile(workspace.config, JSON.stringify({ mcpServers: { sdk } }));
    workspace.brokenConfig = join(dir, "broken.json");
    await writeFile(
      workspace.brokenConfig,
      JSON.stringify({
        mcpServers: {
          sdk,
          ghost: { command: join(dir, "no-such-mcp-server") },
        },
      }),
    );
  });
  after(async () => {
    await rm(workspace.dir, { recursive: true, force: true });
  });
  return workspace;
}
