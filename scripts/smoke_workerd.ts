/**
 * Smoke test on workerd, the runtime of Cloudflare Workers: the Worker of
 * `examples/worker.ts`, bundled with the npm build, calls `get-sum` on
 * `@modelcontextprotocol/server-everything` over streamable HTTP on
 * 127.0.0.1. workerd offers web APIs only (no `nodejs_compat` flag is set),
 * so this proves the root entry runs on the edge.
 *
 * It installs the packed tarball and `workerd` (pinned in `scripts/_deps.ts`)
 * in one scratch npm project, as a Worker's author would (so without the
 * optional MCP SDK), and server-everything (pinned in `deno.json`) in
 * another. It bundles the Worker with esbuild (platform neutral,
 * `workerd`/`worker`/`browser` conditions, one file, as wrangler does by
 * default), writes a workerd
 * config, starts server-everything (`streamableHttp`) and `workerd serve` on
 * free loopback ports, and fetches the Worker. Prints
 * `smoke-workerd: N passed, N failed` and exits non-zero on any failure.
 * Every process is stopped and both projects removed, pass or fail.
 *
 * The stdio process backends are inlined too; they import `node:` modules
 * only inside their `load()`, so the bundle has no static `node:` import and
 * workerd loads it (the check below fails the smoke if one appears).
 *
 * Run it with `deno task smoke:workerd` (builds the tarball first).
 *
 * @module
 */

import { join, relative } from "node:path";
import { build, type Metafile, stop } from "esbuild";
import { readDenoConfig, ROOT, SMOKE_PACKAGES } from "./_deps.ts";
import { logError } from "./_run.ts";
import {
  type Background,
  binScript,
  freePort,
  installScratch,
  runCases,
  startBackground,
  tailText,
  waitForPort,
} from "./_smoke.ts";

const INSTALL_TIMEOUT_MS = 5 * 60_000;
const LISTEN_TIMEOUT_MS = 30_000;
/** One request to the Worker: connect, call, disconnect. */
const REQUEST_TIMEOUT_MS = 30_000;
const EVERYTHING = "@modelcontextprotocol/server-everything";
const WORKER = join(ROOT, "examples", "worker.ts");
const EXPECTED = "The sum of 2 and 3 is 5.";

/**
 * Runs the workerd smoke case.
 *
 * @returns The number of failed cases.
 * @throws {Error} When the tarball is missing or the setup fails.
 *
 * @example
 * ```ts ignore
 * import { smokeWorkerd } from "./smoke_workerd.ts";
 *
 * Deno.exit((await smokeWorkerd()) === 0 ? 0 : 1);
 * ```
 */
export async function smokeWorkerd(): Promise<number> {
  const config = await readDenoConfig();
  // Two projects, so that the Worker's bundle sees only what a Worker's
  // author installs: not the MCP SDK, which server-everything depends on.
  const installs = await Promise.allSettled([
    installScratch(config, ["workerd"], {
      withTarball: true,
      timeoutMs: INSTALL_TIMEOUT_MS,
    }),
    installScratch(config, [EVERYTHING], {
      withTarball: false,
      timeoutMs: INSTALL_TIMEOUT_MS,
    }),
  ]);
  const dirs = installs.flatMap((install) =>
    install.status === "fulfilled" ? [install.value] : []
  );
  const running: Background[] = [];
  try {
    for (const install of installs) {
      if (install.status === "rejected") throw install.reason;
    }
    const [dir, serverDir] = dirs as [string, string];
    const modules = await bundleWorker(dir);
    const mcpPort = freePort();
    let workerPort = freePort();
    while (workerPort === mcpPort) workerPort = freePort();
    await Deno.writeTextFile(
      join(dir, "config.capnp"),
      workerdConfig({
        modules,
        workerPort,
        mcpUrl: `http://127.0.0.1:${mcpPort}/mcp`,
        compatibilityDate: compatibilityDate(),
      }),
    );
    const everything = startBackground(
      "server-everything streamableHttp",
      "node",
      [await binScript(serverDir, EVERYTHING), "streamableHttp"],
      { cwd: serverDir, env: { PORT: String(mcpPort) } },
    );
    running.push(everything);
    const workerd = startBackground(
      "workerd",
      join(dir, "node_modules", ".bin", "workerd"),
      ["serve", "config.capnp"],
      { cwd: dir },
    );
    running.push(workerd);
    await waitForPort(mcpPort, everything, LISTEN_TIMEOUT_MS);
    await waitForPort(workerPort, workerd, LISTEN_TIMEOUT_MS);
    return await runCases("smoke-workerd", [{
      name:
        "Worker calls get-sum on server-everything over streamable HTTP at 127.0.0.1",
      run: async () => {
        try {
          await expectSum(`http://127.0.0.1:${workerPort}/?a=2&b=3`);
        } catch (error) {
          throw new Error(
            `${error instanceof Error ? error.message : error}${
              tailText(workerd)
            }`,
          );
        }
      },
    }]);
  } finally {
    await Promise.all(running.map((process) => process.stop()));
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Bundles `examples/worker.ts` against the installed npm build into
 * `dir/worker/`.
 *
 * @returns The files workerd gets, relative to `dir`, the Worker's first.
 */
async function bundleWorker(dir: string): Promise<string[]> {
  await Deno.copyFile(WORKER, join(dir, "worker.ts"));
  try {
    const result = await build({
      entryPoints: [join(dir, "worker.ts")],
      absWorkingDir: dir,
      outdir: join(dir, "worker"),
      bundle: true,
      format: "esm",
      platform: "neutral",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["module", "main"],
      // Only the stdio backends import node: modules, lazily; workerd never runs them.
      external: ["node:*"],
      metafile: true,
      logLevel: "warning",
    });
    return staticClosure(result.metafile, "worker/worker.js");
  } finally {
    await stop();
  }
}

/** `entry` and every output it imports statically, transitively. */
function staticClosure(metafile: Metafile, entry: string): string[] {
  const found: string[] = [];
  const pending = [entry];
  while (pending.length > 0) {
    const path = pending.shift()!;
    const output = metafile.outputs[path];
    if (!output) throw new Error(`esbuild wrote no ${path}`);
    if (found.includes(path)) continue;
    found.push(path);
    for (const edge of output.imports) {
      if (edge.kind !== "import-statement") continue;
      if (edge.external) {
        throw new Error(
          `${path} imports ${edge.path} statically; a Worker cannot load it`,
        );
      }
      pending.push(edge.path);
    }
  }
  return found;
}

/** What {@linkcode workerdConfig} writes. */
interface WorkerdConfigOptions {
  /** ES module files relative to the config, the main module first. */
  modules: readonly string[];
  /** Port of the Worker's HTTP socket on 127.0.0.1. */
  workerPort: number;
  /** The `MCP_URL` text binding. */
  mcpUrl: string;
  /** `YYYY-MM-DD`. */
  compatibilityDate: string;
}

/**
 * A workerd config (Cap'n Proto text) serving one ES-module Worker on
 * 127.0.0.1. Its global `fetch()` goes through a network service that allows
 * loopback addresses only: workerd's default `internet` service allows
 * public addresses only, so 127.0.0.1 would be refused.
 */
function workerdConfig(options: WorkerdConfigOptions): string {
  const text = (value: string) => JSON.stringify(value);
  const modules = options.modules.map((path) =>
    `    (name = ${text(relative("worker", path))}, esModule = embed ${
      text(path)
    }),`
  ).join("\n");
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    (name = "http", address = ${
    text(`127.0.0.1:${options.workerPort}`)
  }, http = (), service = "main"),
  ],
);

const worker :Workerd.Worker = (
  modules = [
${modules}
  ],
  compatibilityDate = ${text(options.compatibilityDate)},
  bindings = [
    (name = "MCP_URL", text = ${text(options.mcpUrl)}),
  ],
  globalOutbound = "loopback",
);
`;
}

/**
 * The pinned workerd's release date (`1.20261117.1` → `2026-11-17`), the
 * newest compatibility date it supports, so the Worker sees current
 * behaviour.
 */
function compatibilityDate(): string {
  const version = SMOKE_PACKAGES.workerd!;
  const match = /^\d+\.(\d{4})(\d{2})(\d{2})\./.exec(version);
  if (!match) {
    throw new Error(
      `cannot read a date from workerd version ${version}; pin an exact version like 1.20261117.1 in scripts/_deps.ts`,
    );
  }
  return `${match[1]}-${match[2]}-${match[3]}`;
}

/** Fetches the Worker and checks the `get-sum` result envelope it returns. */
async function expectSum(url: string): Promise<void> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = await response.text();
  if (response.status !== 200) {
    throw new Error(`the Worker answered ${response.status}: ${body}`);
  }
  const result = JSON.parse(body);
  const text = result?.data?.content?.[0]?.text;
  if (result?.success !== true || text !== EXPECTED) {
    throw new Error(
      `the Worker returned ${body}, expected success with ${
        JSON.stringify(EXPECTED)
      }`,
    );
  }
}

if (import.meta.main) {
  let code: number;
  try {
    code = (await smokeWorkerd()) === 0 ? 0 : 1;
  } catch (error) {
    logError(
      `smoke_workerd: ${error instanceof Error ? error.message : error}`,
    );
    code = 1;
  }
  Deno.exit(code);
}
