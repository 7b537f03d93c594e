/**
 * Smoke test in a browser: headless Chromium (Debian's `chromium`) runs
 * the npm build's root entry, bundled for the browser by esbuild, against
 * MCP servers on another origin, so CORS applies.
 *
 * In a scratch npm project it installs the packed tarball (and so its
 * dependencies, as an app would), then bundles
 * `tests/fixtures/browser/page.ts` with esbuild (`platform: "browser"`:
 * the `browser` condition, nothing external, so a `node:` import would fail
 * the build). This Deno serves the page and the bundle on
 * `127.0.0.1:<page port>` and the MCP endpoints of
 * `tests/fixtures/browser/mcp_origin.ts` on `127.0.0.1:<mcp port>`, a
 * second origin; Chromium loads the page, which runs its cases and posts
 * the results back to the page origin. The cases: a stateful 2025-11-25
 * server that exposes `Mcp-Session-Id` (connect, list tools, call `add`);
 * a modern 2026-07-28 server that exposes nothing (it needs no session);
 * the session server without `Access-Control-Expose-Headers`, and without
 * any CORS header: each `connect()` must fail with an `MCPConnectionError`
 * that names CORS and `Access-Control-Expose-Headers: Mcp-Session-Id`.
 * Prints `smoke-browser: N passed, N failed` and exits non-zero on any
 * failure. Chromium, the servers and the project are always removed.
 *
 * Chromium is `$CHROMIUM`, or `chromium` / `chromium-browser` on `PATH`
 * (`.ci/run` installs Debian's package when it is missing).
 *
 * Run it with `deno task smoke:browser` (builds the tarball first).
 *
 * @module
 */

import { join } from "node:path";
import { build, stop } from "esbuild";
import { readDenoConfig, ROOT } from "./_deps.ts";
import { exitWith, log } from "./_run.ts";
import {
  type Background,
  freePort,
  installScratch,
  runCases,
  type SmokeCase,
  startBackground,
  tailText,
} from "./_smoke.ts";
import { mcpOrigin } from "../tests/fixtures/browser/mcp_origin.ts";

const INSTALL_TIMEOUT_MS = 5 * 60_000;
/** Chromium's start plus the page's four cases; about 3 s warm. */
const PAGE_TIMEOUT_MS = 90_000;
const SHUTDOWN_TIMEOUT_MS = 5_000;
const PAGE = join(ROOT, "tests", "fixtures", "browser", "page.ts");
const HOST = "127.0.0.1";

/** What the page posts to `/result`. */
interface PageReport {
  userAgent?: string;
  cases?: { name: string; ok: boolean; detail: string }[];
  /** An error the page met before or outside its cases. */
  error?: string;
}

/**
 * The page: reports an uncaught error or rejection, then loads the bundle.
 * An error before the cases ran would otherwise show only as a timeout.
 */
const HTML = `<!doctype html>
<meta charset="utf-8">
<title>mcp-adapter browser smoke</title>
<script>
  const report = (error) => fetch("/result", {
    method: "POST",
    body: JSON.stringify({ error: String(error && (error.stack || error.message) || error) }),
  });
  addEventListener("error", (event) => report(event.error ?? event.message));
  addEventListener("unhandledrejection", (event) => report(event.reason));
</script>
<script type="module" src="/page.js"></script>
`;

/**
 * Runs the browser smoke cases.
 *
 * @returns The number of failed cases.
 * @throws {Error} When Chromium or the tarball is missing, or the setup fails.
 *
 * @example
 * ```ts ignore
 * import { smokeBrowser } from "./smoke_browser.ts";
 *
 * Deno.exit((await smokeBrowser()) === 0 ? 0 : 1);
 * ```
 */
export async function smokeBrowser(): Promise<number> {
  const chromium = findChromium();
  const config = await readDenoConfig();
  const dir = await installScratch(config, [], {
    withTarball: true,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const bundle = await bundlePage(dir);
    const pagePort = freePort();
    let mcpPort = freePort();
    while (mcpPort === pagePort) mcpPort = freePort();
    const pageOrigin = `http://${HOST}:${pagePort}`;
    const mcpUrl = `http://${HOST}:${mcpPort}`;
    const mcp = mcpOrigin(pageOrigin);
    const reported = Promise.withResolvers<PageReport>();
    const pageServer = Deno.serve(
      { hostname: HOST, port: pagePort, onListen: () => {} },
      async (request) => {
        const { pathname } = new URL(request.url);
        if (pathname === "/") {
          return new Response(HTML, {
            headers: { "content-type": "text/html; charset=utf-8" },
          });
        }
        if (pathname === "/page.js") {
          return new Response(bundle.code, {
            headers: { "content-type": "text/javascript; charset=utf-8" },
          });
        }
        if (pathname === "/result" && request.method === "POST") {
          reported.resolve(JSON.parse(await request.text()));
          return new Response(null, { status: 204 });
        }
        return new Response("not found", { status: 404 });
      },
    );
    const mcpServer = Deno.serve(
      { hostname: HOST, port: mcpPort, onListen: () => {} },
      (request) => mcp.fetch(request),
    );
    // Last in, first out: Chromium, then the sessions, then the servers.
    cleanups.push(
      () => bounded(pageServer.shutdown()),
      () => bounded(mcpServer.shutdown()),
      () => mcp.close(),
    );
    const profile = await Deno.makeTempDir({ prefix: "mcp-adapter-chromium-" });
    cleanups.push(() => Deno.remove(profile, { recursive: true }));
    const browser = startBackground(
      "chromium",
      chromium,
      [
        ...chromiumFlags(profile),
        `${pageOrigin}/?mcp=${encodeURIComponent(mcpUrl)}`,
      ],
      { tailLines: 60 },
    );
    cleanups.push(() => browser.stop());
    const report = await pageReport(reported.promise, browser);
    log(`smoke-browser: ${report.userAgent ?? "(no user agent reported)"}`);
    const cases: SmokeCase[] = [{
      name:
        `esbuild platform "browser" bundles the root entry with nothing external (${bundle.size})`,
      run: () => Promise.resolve(),
    }];
    if (report.error !== undefined) {
      cases.push({
        name: "the page ran its cases",
        run: () => Promise.reject(new Error(report.error)),
      });
    }
    for (const result of report.cases ?? []) {
      cases.push({
        name: `page at ${pageOrigin}, MCP at ${mcpUrl}: ${result.name}`,
        run: () =>
          result.ok
            ? Promise.resolve(log(`  ${result.detail}`))
            : Promise.reject(new Error(`${result.detail}${tailText(browser)}`)),
      });
    }
    return await runCases("smoke-browser", cases);
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => {});
    }
    await stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Chromium, from `$CHROMIUM` or `PATH`. */
function findChromium(): string {
  const chosen = Deno.env.get("CHROMIUM");
  if (chosen) return chosen;
  for (const folder of (Deno.env.get("PATH") ?? "").split(":")) {
    for (const name of ["chromium", "chromium-browser"]) {
      const path = join(folder, name);
      try {
        if (Deno.statSync(path).isFile) return path;
      } catch {
        // not here
      }
    }
  }
  throw new Error(
    "no chromium on PATH; install Debian's package (`apt-get install chromium`, as .ci/run does) or set CHROMIUM to a Chromium or Chrome executable",
  );
}

/** Headless, quiet, a throw-away profile; as root, without the sandbox. */
function chromiumFlags(profile: string): string[] {
  return [
    "--headless",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--mute-audio",
    // The page's console, for the tail shown when a case fails.
    "--enable-logging=stderr",
    "--v=0",
    `--user-data-dir=${profile}`,
    ...(Deno.uid() === 0 ? ["--no-sandbox"] : []),
  ];
}

/**
 * Bundles the page with the npm build from `dir`'s `node_modules`, for
 * browsers; the size is of the minified output.
 */
async function bundlePage(
  dir: string,
): Promise<{ code: string; size: string }> {
  const result = await build({
    entryPoints: [PAGE],
    absWorkingDir: dir,
    nodePaths: [join(dir, "node_modules")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.text;
  if (/["']node:/.test(code)) {
    throw new Error("the browser bundle names a node: module");
  }
  const kib = (new TextEncoder().encode(code).byteLength / 1024).toFixed(1);
  return { code, size: `${kib} KiB minified` };
}

/** The page's report, or why none came. */
async function pageReport(
  reported: Promise<PageReport>,
  browser: Background,
): Promise<PageReport> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the page posted no result within ${PAGE_TIMEOUT_MS} ms${
              tailText(browser)
            }`,
          ),
        ),
      PAGE_TIMEOUT_MS,
    );
  });
  const exited = browser.exited.then((code) => {
    throw new Error(
      `chromium exited with code ${code} before the page posted its result${
        tailText(browser)
      }`,
    );
  });
  try {
    return await Promise.race([reported, timeout, exited]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `done`, at most a few seconds (a server's open streams). */
function bounded(done: Promise<unknown>): Promise<unknown> {
  return Promise.race([
    done,
    new Promise((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS)),
  ]);
}

if (import.meta.main) {
  await exitWith(
    "smoke_browser",
    async () => (await smokeBrowser()) === 0 ? 0 : 1,
  );
}
