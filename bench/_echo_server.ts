/**
 * How the client benchmark starts `echo_server.mjs`: which `node` runs it,
 * the small environment it gets, and starting and stopping its HTTP mode
 * (the stdio mode is started by each client under test). Runtime-neutral:
 * `node:child_process` here only starts the server and, at the end, ends its
 * stdin (the server exits then) or sends one SIGKILL. Internal to the
 * benchmarks.
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The server script, beside this module (also in the Node run's copy). */
export const ECHO_SERVER: string = fileURLToPath(
  new URL("./echo_server.mjs", import.meta.url),
);

/** The SDK v2 echo server (2026-07-28 only), beside this module too. */
export const SDK_ECHO_SERVER: string = fileURLToPath(
  new URL("./sdk_echo_server.mjs", import.meta.url),
);

/**
 * The server's whole environment: enough to run `node`, nothing else (this
 * machine's `NODE_EXTRA_CA_CERTS` alone adds ~60 ms to every start).
 */
export const SERVER_ENV: Record<string, string> = Object.fromEntries(
  ["PATH", "HOME"].flatMap((key) => {
    const value = process.env[key];
    return value === undefined ? [] : [[key, value]];
  }),
);

/** The `node` that runs the server: this one on Node, the first on `PATH` on Deno. */
export function nodeExecutable(): string {
  if (!("Deno" in globalThis)) return process.execPath;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "node");
    if (dir !== "" && existsSync(candidate)) return candidate;
  }
  throw new Error("client_bench: the echo server needs `node` on PATH");
}

/** A server process to start: `command` and `args`, with `env` as its whole environment. */
export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * How to start `sdk_echo_server.mjs` in `mode`: on Deno with this Deno and
 * the repository's `deno.json` (which resolves the SDK package; `DENO_DIR`
 * passed on when set), on Node with this `node` (beside the installed
 * package).
 */
export function sdkServerCommand(mode: "stdio" | "http"): ServerCommand {
  if (!("Deno" in globalThis)) {
    return {
      command: process.execPath,
      args: [SDK_ECHO_SERVER, mode],
      env: SERVER_ENV,
    };
  }
  const env: Record<string, string> = {
    ...SERVER_ENV,
    DENO_NO_UPDATE_CHECK: "1",
  };
  if (process.env.DENO_DIR !== undefined) env.DENO_DIR = process.env.DENO_DIR;
  return {
    command: process.execPath,
    args: [
      "run",
      "-A",
      "--quiet",
      // The SDK reads request.signal: opt in to Deno.serve's new behaviour (no warning on stderr).
      "--unstable-no-legacy-abort",
      `--config=${fileURLToPath(new URL("../deno.json", import.meta.url))}`,
      SDK_ECHO_SERVER,
      mode,
    ],
    env,
  };
}

/** A running HTTP echo server. */
export interface HttpEchoServer {
  /** `http://127.0.0.1:<port>`; POST to `/mcp` (JSON) or `/sse` (SSE). */
  origin: string;
  /** Ends stdin (the server exits); SIGKILL when it has not exited in time. */
  stop(): Promise<void>;
}

/** Resolves with `promise`, or rejects after `ms` with an error naming `what`. */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/**
 * Starts an HTTP echo server, `echo_server.mjs http` unless `server` says
 * otherwise, and waits (at most `timeoutMs`) for the port it prints.
 */
export async function startHttpServer(
  timeoutMs: number,
  server: ServerCommand = {
    command: nodeExecutable(),
    args: [ECHO_SERVER, "http"],
    env: SERVER_ENV,
  },
): Promise<HttpEchoServer> {
  const child = spawn(server.command, server.args, {
    env: server.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = exitOf(child);
  const stop = async () => {
    child.stdin?.end();
    const gone = await withDeadline(exited, timeoutMs, "echo server exit")
      .then(() => true, () => false);
    if (gone) return;
    process.kill(child.pid!, "SIGKILL");
    await withDeadline(exited, timeoutMs, "echo server exit after SIGKILL");
  };
  const port = new Promise<number>((resolve, reject) => {
    let text = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      text += chunk;
      const match = /^listening (\d+)\n/.exec(text);
      if (match !== null) resolve(Number(match[1]));
    });
    child.once("error", reject);
    exited.then(() => reject(new Error("the echo server exited early")));
  });
  try {
    const listening = await withDeadline(port, timeoutMs, "echo server start");
    return { origin: `http://127.0.0.1:${listening}`, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
