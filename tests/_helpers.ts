/**
 * Helpers shared by the test files. Runtime-neutral: the same tests run under
 * `deno test` and, transpiled, under `node --test`.
 *
 * @module
 */

import { spawn } from "node:child_process";
import assert from "node:assert/strict";
import process from "node:process";
import { readFileSync } from "node:fs";
import { afterEach } from "node:test";
import { fileURLToPath } from "node:url";
import type {
  MCPProgress,
  MCPToolAdapter,
  MCPToolResult,
} from "@cleveragents/mcp-adapter";

/** Absolute path of `tests/fixtures/<name>` (fixtures sit next to the tests in both runs). */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** How to run a script with the current runtime: `deno run -A <file>` or `node <file>`. */
export function runtimeCommand(
  scriptPath: string,
): { command: string; args: string[] } {
  return "Deno" in globalThis
    ? { command: process.execPath, args: ["run", "-A", scriptPath] }
    : { command: process.execPath, args: [scriptPath] };
}

/**
 * The SDK test server (`fixtures/sdk_server`) as a command of this runtime:
 * the tests run as .ts under Deno and as transpiled .js under Node, and
 * their fixtures follow suit.
 */
export const sdkServerCommand = runtimeCommand(
  fixturePath(`sdk_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`),
);

/**
 * Whether a process with this pid is running. A zombie (dead, not yet reaped)
 * counts as gone: in containers whose init never reaps orphans, a killed
 * grandchild stays a zombie for good.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !==
      "Z";
  } catch {
    return false; // gone between the two checks
  }
}

/**
 * Calls `probe` every `everyMs` until it returns something other than
 * `undefined`, and resolves with that; with `undefined` after `timeoutMs`.
 */
export async function poll<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 10,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls `condition` every 10 ms; resolves `true` once it holds, `false` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  return await poll(async () => (await condition()) || undefined, timeoutMs) ??
    false;
}

/** Releases something a test started: closes a server, disconnects an adapter. */
export type Cleanup = () => Promise<void>;

/**
 * Registers an `afterEach` that empties the returned list and runs every
 * cleanup pushed to it: `"in turn"`, last pushed first, ignoring their
 * failures; `"together"`, all at once, a failure failing the test.
 */
export function releaseAfterEach(
  order: "in turn" | "together" = "in turn",
): Cleanup[] {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    if (order === "together") {
      await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
      return;
    }
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch(() => {});
    }
  });
  return cleanups;
}

/** The text of a tool result's content items, joined; "" when it has none. */
export function text(result: MCPToolResult): string {
  return (result.data.content as { text?: string }[] | undefined ?? [])
    .map((item) => item.text ?? "").join("");
}

/**
 * Calls the test server's `progress` tool for `steps` steps, 5 ms apart,
 * and asserts its result and that every progress notification arrived, in
 * order, before it.
 */
export async function assertProgressCall(
  adapter: MCPToolAdapter,
  steps: number,
): Promise<void> {
  const seen: MCPProgress[] = [];
  const result = await adapter.invoke("progress", { steps, gapMs: 5 }, {
    onProgress: (progress) => seen.push(progress),
  });
  assert.equal(text(result), `done ${steps}`);
  assert.deepEqual(
    seen.map((progress) => progress.progress),
    Array.from({ length: steps }, (_, i) => i + 1),
  );
}

/** What a finished command left. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in its own process group and collects its output; the
 * whole group is killed, and the promise rejected, if it outlives
 * `timeoutMs`.
 */
export function exec(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
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
    }, timeoutMs);
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
