/**
 * What the runtime smoke scripts (`smoke_bun.ts`, `smoke_workerd.ts`) share:
 * a scratch npm project holding the packed tarball, background servers on
 * free loopback ports that are always stopped (among them the modern-only
 * MCP server both smokes call), bounded waits, and the
 * `name: N passed, N failed` closing line.
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import {
  assertTarball,
  type DenoConfig,
  npmSpec,
  ROOT,
  SMOKE_PACKAGES,
  tarballPath,
} from "./_deps.ts";
import { log, logError, run, TIMEOUT_EXIT_CODE } from "./_run.ts";

/** Process groups exist on every supported OS except Windows. */
const POSIX = Deno.build.os !== "windows";
/** How long a background process gets between SIGTERM and SIGKILL. */
const STOP_GRACE_MS = 3_000;
/** Lines of a background process's output kept for failure reports. */
const TAIL_LINES = 40;
const SMOKE_FIXTURES = join(ROOT, "tests", "fixtures", "smoke");
/**
 * The modern-era check the smokes run on the npm build
 * (`tests/fixtures/smoke/modern_check.ts`), copied into the scratch project
 * beside the script that imports it.
 */
export const MODERN_CHECK: string = join(SMOKE_FIXTURES, "modern_check.ts");

/**
 * Creates a temporary npm project (`type: module`) and installs `packages`
 * into it, at the versions pinned in `deno.json` `imports` or, for the
 * runtimes, in `SMOKE_PACKAGES`; with `withTarball`, the packed tarball too.
 *
 * @param config The parsed `deno.json`.
 * @param packages Package names to install.
 * @param options `withTarball` and the deadline for `npm install`.
 * @returns The project folder; the caller removes it.
 * @throws {Error} When the tarball is missing or `npm install` fails.
 *
 * @example
 * ```ts ignore
 * import { installScratch } from "./_smoke.ts";
 * import { readDenoConfig } from "./_deps.ts";
 *
 * const dir = await installScratch(await readDenoConfig(), ["bun"], {
 *   withTarball: true,
 *   timeoutMs: 300_000,
 * });
 * ```
 */
export async function installScratch(
  config: DenoConfig,
  packages: readonly string[],
  options: { withTarball: boolean; timeoutMs: number },
): Promise<string> {
  const specs = packages.map((name) =>
    name in SMOKE_PACKAGES
      ? `${name}@${SMOKE_PACKAGES[name]}`
      : npmSpec(config, name)
  );
  if (options.withTarball) {
    const tarball = tarballPath(config);
    await assertTarball(tarball);
    specs.unshift(tarball);
  }
  const dir = await Deno.makeTempDir({ prefix: "mcp-adapter-smoke-" });
  try {
    await Deno.writeTextFile(
      join(dir, "package.json"),
      JSON.stringify({ private: true, type: "module" }) + "\n",
    );
    log(
      `npm install ${
        specs.map((spec) => spec.startsWith(ROOT) ? relative(ROOT, spec) : spec)
          .join(" ")
      }`,
    );
    const flags = [
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      "--prefer-offline",
    ];
    const code = await run("npm", ["install", ...flags, ...specs], {
      cwd: dir,
      timeoutMs: options.timeoutMs,
    });
    if (code !== 0) {
      throw new Error(
        code === TIMEOUT_EXIT_CODE
          ? `npm install timed out after ${options.timeoutMs} ms`
          : `npm install exited with code ${code}`,
      );
    }
    return dir;
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
}

/**
 * The `bin` script of a package installed in a scratch project.
 *
 * @param dir The project folder.
 * @param name The package name.
 * @returns The absolute path of its (first) `bin` script.
 * @throws {Error} When the package declares none.
 *
 * @example
 * ```ts ignore
 * import { binScript } from "./_smoke.ts";
 *
 * const entry = await binScript(dir, "@modelcontextprotocol/server-everything");
 * ```
 */
export async function binScript(dir: string, name: string): Promise<string> {
  const manifestPath = join(dir, "node_modules", name, "package.json");
  const manifest = JSON.parse(await Deno.readTextFile(manifestPath));
  const bin: unknown = typeof manifest.bin === "string"
    ? manifest.bin
    : Object.values(manifest.bin ?? {})[0];
  if (typeof bin !== "string") {
    throw new Error(`${manifestPath} declares no bin script`);
  }
  return join(dirname(manifestPath), bin);
}

/**
 * Finds a free TCP port on 127.0.0.1 by binding port 0 and releasing it.
 *
 * @returns The port number.
 *
 * @example
 * ```ts
 * import { freePort } from "./_smoke.ts";
 *
 * const port = freePort();
 * ```
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Options for {@linkcode startBackground}. */
export interface BackgroundOptions {
  /** Working directory. */
  cwd?: string;
  /** Variables added to the inherited environment. */
  env?: Record<string, string>;
  /** How many of its last lines {@linkcode Background.tail} keeps; default 40. */
  tailLines?: number;
}

/** A process running in its own process group until {@linkcode Background.stop}. */
export interface Background {
  /** What it is, for messages. */
  readonly label: string;
  /** Resolves with the exit code once it has exited. */
  readonly exited: Promise<number>;
  /** The last lines it printed (stdout and stderr interleaved). */
  tail(): string[];
  /**
   * Sends SIGTERM to its process group, SIGKILL after a grace period, and
   * resolves once it has exited. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Starts a long-running process (a server) in its own process group, with
 * its output kept in a short tail instead of printed.
 *
 * @param label What it is, for messages.
 * @param command The executable.
 * @param args Its arguments.
 * @param options Working directory and extra environment.
 * @returns A handle to wait for it and stop it.
 *
 * @example
 * ```ts ignore
 * import { startBackground } from "./_smoke.ts";
 *
 * const server = startBackground("server", "node", ["server.js"]);
 * await server.stop();
 * ```
 */
export function startBackground(
  label: string,
  command: string,
  args: readonly string[],
  options: BackgroundOptions = {},
): Background {
  const child = new Deno.Command(command, {
    args: [...args],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: POSIX,
  }).spawn();
  const lines: string[] = [];
  const keep = options.tailLines ?? TAIL_LINES;
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    let partial = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop()!;
      lines.push(...parts);
      lines.splice(0, Math.max(0, lines.length - keep));
    }
    if (partial !== "") lines.push(partial);
  };
  const drained = Promise.all([collect(child.stdout), collect(child.stderr)]);
  const exited = child.status.then(async (status) => {
    await drained.catch(() => {});
    return status.code;
  });
  let stopping: Promise<void> | undefined;
  return {
    label,
    exited,
    tail: () => [...lines],
    stop: () =>
      stopping ??= (async () => {
        signalGroup(child, "SIGTERM");
        const timer = setTimeout(
          () => signalGroup(child, "SIGKILL"),
          STOP_GRACE_MS,
        );
        try {
          await child.status;
        } finally {
          clearTimeout(timer);
          // Grandchildren that outlived the leader go too.
          signalGroup(child, "SIGKILL");
        }
        await drained.catch(() => {});
      })(),
  };
}

/**
 * Starts the modern-only MCP server (2026-07-28; the SDK v2's
 * `createMcpHandler` with `legacy: "reject"`,
 * `tests/fixtures/smoke/modern_http_server.ts`) on `127.0.0.1:port/mcp`,
 * under this Deno with the repository's import map; wait for it with
 * {@linkcode waitForPort}, stop it with {@linkcode Background.stop}.
 *
 * @param port A free loopback port.
 * @returns The server process.
 *
 * @example
 * ```ts ignore
 * import { freePort, startModernServer, waitForPort } from "./_smoke.ts";
 *
 * const port = freePort();
 * const modern = startModernServer(port);
 * await waitForPort(port, modern, 30_000);
 * await modern.stop();
 * ```
 */
export function startModernServer(port: number): Background {
  return startBackground(
    "modern MCP server (SDK v2, 2026-07-28 only)",
    Deno.execPath(),
    [
      "run",
      "-A",
      "--quiet",
      "--config",
      join(ROOT, "deno.json"),
      join(SMOKE_FIXTURES, "modern_http_server.ts"),
      String(port),
    ],
    { cwd: ROOT },
  );
}

/**
 * Waits until something accepts TCP connections on `127.0.0.1:port`.
 *
 * @param port The port.
 * @param process The process expected to listen there; its early exit fails the wait.
 * @param timeoutMs How long to wait.
 * @throws {Error} When the deadline passes or the process exits first; the
 * message carries the process's last output.
 *
 * @example
 * ```ts ignore
 * import { startBackground, waitForPort } from "./_smoke.ts";
 *
 * const server = startBackground("server", "node", ["server.js"]);
 * await waitForPort(3001, server, 20_000);
 * ```
 */
export async function waitForPort(
  port: number,
  process: Background,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | undefined;
  process.exited.then((code) => exitCode = code);
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new Error(
        `${process.label} exited with code ${exitCode} before listening on port ${port}${
          tailText(process)
        }`,
      );
    }
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(
    `${process.label} did not listen on port ${port} within ${timeoutMs} ms${
      tailText(process)
    }`,
  );
}

/** A process's last output, indented, for an error message. */
export function tailText(process: Background): string {
  const lines = process.tail();
  return lines.length === 0
    ? ""
    : `\nLast output of ${process.label}:\n  ${lines.join("\n  ")}`;
}

/** One named check of a smoke run. */
export interface SmokeCase {
  /** What it proves, e.g. `"stdio: get-sum"`. */
  name: string;
  /** Throws on failure. */
  run(): Promise<void>;
}

/**
 * Runs cases one after another, printing `ok`/`not ok` per case and then
 * the closing line `<label>: N passed, N failed`.
 *
 * @param label Prefix of the closing line, e.g. `"bun smoke"`.
 * @param cases The checks.
 * @returns The number of failed cases.
 *
 * @example
 * ```ts ignore
 * import { runCases } from "./_smoke.ts";
 *
 * const failed = await runCases("bun smoke", [
 *   { name: "works", run: async () => {} },
 * ]);
 * ```
 */
export async function runCases(
  label: string,
  cases: readonly SmokeCase[],
): Promise<number> {
  let failed = 0;
  for (const smokeCase of cases) {
    const started = performance.now();
    try {
      await smokeCase.run();
      log(`ok - ${smokeCase.name} (${elapsed(started)})`);
    } catch (error) {
      failed++;
      logError(
        `not ok - ${smokeCase.name} (${elapsed(started)}): ${
          error instanceof Error ? error.message : error
        }`,
      );
    }
  }
  log(`${label}: ${cases.length - failed} passed, ${failed} failed`);
  return failed;
}

function elapsed(started: number): string {
  return `${Math.round(performance.now() - started)} ms`;
}

/** Signals the child's whole process group; a group already gone is fine. */
function signalGroup(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    if (POSIX) Deno.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}
