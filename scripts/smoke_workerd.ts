/**
 * Smoke test on workerd, the runtime of Cloudflare Workers, bundled by
 * wrangler as a Worker's author would: the Worker of `examples/worker.ts`,
 * built by `wrangler deploy --dry-run` against the npm build, calls
 * `get-sum` on `@modelcontextprotocol/server-everything` over streamable
 * HTTP on 127.0.0.1.
 *
 * It installs the packed tarball, `workerd` and `wrangler` (pinned in
 * `scripts/_deps.ts`; this wrangler depends on the same workerd) in one
 * scratch npm project, as a Worker's author would (so without the optional
 * MCP SDK), and server-everything (pinned in `deno.json`) in another. The
 * Worker's config turns Node.js compatibility off (`no_nodejs_compat`,
 * `no_nodejs_compat_v2`), as Workers without the `nodejs_compat` flag have
 * it: wrangler then warns about every `node:` import it meets ("... may throw
 * errors at runtime"). The cases: wrangler printed no warning; the bundle
 * names no `node:` module (the package's `#stdio-process` import resolved to
 * the backend that only rejects, under wrangler's `workerd`/`worker`/
 * `browser` conditions); and workerd serving that bundle (with the same
 * flags) answers with the tool's result. Prints
 * `smoke-workerd: N passed, N failed` and exits non-zero on any failure.
 * Every process is stopped and both projects removed, pass or fail.
 *
 * wrangler needs Node.js 22 and this machine has 20: it runs on this Deno.
 *
 * Run it with `deno task smoke:workerd` (builds the tarball first).
 *
 * @module
 */

import { join, relative } from "node:path";
import { readDenoConfig, ROOT, SMOKE_PACKAGES } from "./_deps.ts";
import { exitWith, log, run, TIMEOUT_EXIT_CODE } from "./_run.ts";
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
/** wrangler's dry run: about 5 s warm. */
const WRANGLER_TIMEOUT_MS = 3 * 60_000;
/** A Worker without Node.js compatibility (the default before 2026-08-04). */
const COMPATIBILITY_FLAGS = ["no_nodejs_compat", "no_nodejs_compat_v2"];
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
    installScratch(config, ["workerd", "wrangler"], {
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
    const bundled = await bundleWithWrangler(dir);
    const modules = ["worker/worker.js"];
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
      name: "wrangler deploy --dry-run bundles the Worker without a warning",
      run: () => {
        if (/WARNING|node:/.test(bundled.output)) {
          throw new Error(`wrangler warned:\n${bundled.output}`);
        }
        return Promise.resolve();
      },
    }, {
      name: "the Worker bundle imports no node: module",
      run: () => {
        const found = bundled.code.match(/["'`]node:[\w/]+["'`]/g) ?? [];
        if (found.length > 0) {
          throw new Error(`worker/worker.js names ${[...new Set(found)]}`);
        }
        return Promise.resolve();
      },
    }, {
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

/** What wrangler made of the Worker. */
interface WranglerBundle {
  /** wrangler's output (stdout and stderr). */
  output: string;
  /** The bundle, `dir/worker/worker.js`. */
  code: string;
}

/**
 * Bundles `examples/worker.ts` against the installed npm build with
 * `wrangler deploy --dry-run --outdir worker` (one module, wrangler's
 * default), its config and logs kept inside `dir`.
 */
async function bundleWithWrangler(dir: string): Promise<WranglerBundle> {
  await Deno.copyFile(WORKER, join(dir, "worker.ts"));
  await Deno.writeTextFile(
    join(dir, "wrangler.json"),
    JSON.stringify({
      name: "mcp-adapter-smoke",
      main: "worker.ts",
      compatibility_date: compatibilityDate(),
      compatibility_flags: COMPATIBILITY_FLAGS,
    }),
  );
  const wrangler = join(dir, "node_modules", "wrangler", "bin", "wrangler.js");
  const args = ["deploy", "--dry-run", "--outdir", "worker"];
  log(`wrangler ${args.join(" ")}`);
  const decoder = new TextDecoder();
  let output = "";
  const code = await run(Deno.execPath(), ["run", "-A", wrangler, ...args], {
    cwd: dir,
    timeoutMs: WRANGLER_TIMEOUT_MS,
    env: {
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_LOG_PATH: join(dir, "wrangler-logs"),
      XDG_CONFIG_HOME: join(dir, "config"),
      NO_COLOR: "1",
    },
    onOutput: (chunk) => output += decoder.decode(chunk, { stream: true }),
  });
  output = output.trim();
  log(output);
  if (code !== 0) {
    throw new Error(
      code === TIMEOUT_EXIT_CODE
        ? `wrangler timed out after ${WRANGLER_TIMEOUT_MS} ms`
        : `wrangler exited with code ${code}`,
    );
  }
  return {
    output,
    code: await Deno.readTextFile(join(dir, "worker", "worker.js")),
  };
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
  compatibilityFlags = [${COMPATIBILITY_FLAGS.map(text).join(", ")}],
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
  await exitWith(
    "smoke_workerd",
    async () => (await smokeWorkerd()) === 0 ? 0 : 1,
  );
}
