/**
 * Runs the `mcp-adapter` command line as a subprocess: `deno run -A cli.ts`
 * under Deno, the npm package's bin (`bin.js`) under Node.
 *
 * @module
 */

import { after, before } from "node:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { exec, type Run, sdkServerCommand } from "../_helpers.ts";

/** How to start the command line on this runtime. */
export function cliCommand(): { command: string; args: string[] } {
  if ("Deno" in globalThis) {
    const cli = fileURLToPath(new URL("../../cli.ts", import.meta.url));
    return { command: process.execPath, args: ["run", "-A", cli] };
  }
  // The package's bin, as npx and npm's .bin links run it.
  const cli = fileURLToPath(
    import.meta.resolve("@cleveragents/mcp-adapter/bin"),
  );
  return { command: process.execPath, args: [cli] };
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
