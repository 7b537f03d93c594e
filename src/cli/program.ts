/**
 * The command line as the program: signals, pipes, the working directory of
 * `deno task cli`, and the exit code. Run by `bin.ts` (the npm package's
 * bin) and by `cli.ts` when it is the program (`deno run -A cli.ts`); never
 * on import, so the `/cli` entry runs nothing when imported or required.
 *
 * @module
 */

import process from "node:process";
import { realpathSync } from "node:fs";
import { setTimeout as startTimer } from "node:timers";
import { fileURLToPath } from "node:url";
import type { CliOptions } from "./main.ts";
import { INTERRUPTED, OK, TOOL_ERROR } from "./_exit.ts";
import { guardedOutput } from "./_stdio.ts";
import { interruptOnSignals } from "./_signals.ts";
import { printable } from "../util/terminal.ts";

/** `main` of `main.ts`. */
type Main = (args: readonly string[], options?: CliOptions) => Promise<number>;

/**
 * Runs `main` with the process's arguments, and exits with its code.
 *
 * @param programUrl The running file's URL: `deno task cli` runs in its
 * folder, and then `INIT_CWD` is where the user was.
 */
export async function runAsProgram(
  main: Main,
  programUrl: string,
): Promise<void> {
  // Installed first and kept until the servers are stopped: a signal, or a
  // reader that went away, must not end the process while one still runs.
  const interrupts = interruptOnSignals();
  const stdout = guardedOutput(process.stdout);
  const stderr = guardedOutput(process.stderr);
  const old = nodeVersionWarning(
    "Deno" in globalThis ? undefined : process.versions.node,
  );
  if (old !== undefined) stderr.write(`mcp-adapter: ${old}\n`);
  // INIT_CWD is where the user was, and what config paths are relative to.
  const from = process.env.INIT_CWD;
  if (from && inFolderOf(programUrl)) {
    try {
      process.chdir(from);
    } catch {
      // Gone meanwhile: stay where we are.
    }
  }
  let code = await main(process.argv.slice(2), {
    signal: interrupts.signal,
    stdout,
    stderr,
  });
  interrupts.dispose();
  // 128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM.
  if (code === INTERRUPTED) code = interrupts.exitCode ?? code;
  // A reader that went away ends the output quietly; other failures are said.
  if (stdout.failure !== undefined) {
    stderr.write(
      `mcp-adapter: writing the output failed: ${
        printable(stdout.failure.message)
      }\n`,
    );
    if (code === OK) code = TOOL_ERROR;
  }
  process.exitCode = code;
  // Exit even if something still holds the event loop; output is flushed by now.
  startTimer(() => process.exit(code), 1000).unref();
}

/** The oldest Node.js the npm package supports (its `engines`). */
export const MIN_NODE = [22, 12] as const;

/**
 * The warning for a Node.js older than {@linkcode MIN_NODE} (said once, when
 * the command line starts): it may run, or fail in ways that are hard to
 * read. `undefined` for a supported Node.js, or another runtime.
 *
 * @param version `process.versions.node`, or `undefined` (Deno).
 */
export function nodeVersionWarning(
  version: string | undefined,
): string | undefined {
  const match = /^(\d+)\.(\d+)\./.exec(version ?? "");
  if (match === null) return undefined;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) {
    return undefined;
  }
  return `Node.js ${version} is older than this package supports (${
    MIN_NODE.join(".")
  } or later, its "engines"), and it may fail in ways that are hard to read; upgrade Node.js, or run it with a newer one: npx -y -p node@22 -p @cleveragents/mcp-adapter mcp-adapter …`;
}

/** Whether the working directory is the folder of `url` (as under `deno task`). */
function inFolderOf(url: string): boolean {
  try {
    return realpathSync(process.cwd()) ===
      realpathSync(fileURLToPath(new URL(".", url)));
  } catch {
    return false;
  }
}

/**
 * Whether the module of `meta` is the program (`deno run cli.ts`,
 * `node cli.js`, an npm bin link).
 *
 * @param meta The module's `import.meta`.
 */
export function isMain(meta: ImportMeta): boolean {
  const flag = (meta as { main?: boolean }).main;
  if (typeof flag === "boolean") return flag;
  const script = process.argv[1];
  if (script === undefined || !meta.url.startsWith("file:")) {
    return false;
  }
  try {
    return realpathSync(script) ===
      realpathSync(fileURLToPath(meta.url));
  } catch {
    return false;
  }
}
