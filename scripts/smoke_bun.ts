/**
 * Smoke test on Bun: the npm build, imported by its package name, talks to
 * `@modelcontextprotocol/server-everything` over stdio and over streamable
 * HTTP on 127.0.0.1.
 *
 * In a scratch npm project it installs the packed tarball, `bun` (pinned in
 * `scripts/_deps.ts`) and server-everything (pinned in `deno.json`), starts
 * server-everything in `streamableHttp` mode on a free loopback port, and
 * runs `tests/fixtures/smoke/bun_client.ts` under Bun once per transport. The
 * stdio case lets the adapter start server-everything itself (under `node`,
 * through the package's `node:child_process` backend, which is what Bun
 * loads). The same project then runs the Node example,
 * `examples/node_remote.mjs`, under Node against the same server. Last, Bun
 * runs `tests/fixtures/smoke/bun_modern_client.ts` against a modern-only
 * server (MCP 2026-07-28: the SDK v2's `createMcpHandler` with
 * `legacy: "reject"`, `tests/fixtures/smoke/modern_http_server.ts`, run by
 * this Deno on another free port): the modern era, the tool list, a call.
 * Prints `smoke-bun: N passed, N failed` and exits non-zero on any failure.
 * Every process is stopped and the project removed, pass or fail.
 *
 * Run it with `deno task smoke:bun` (builds the tarball first).
 *
 * @module
 */

import { join } from "node:path";
import { readDenoConfig, ROOT } from "./_deps.ts";
import { exitWith, run, TIMEOUT_EXIT_CODE } from "./_run.ts";
import {
  type Background,
  binScript,
  freePort,
  installScratch,
  MODERN_CHECK,
  runCases,
  startBackground,
  startModernServer,
  tailText,
  waitForPort,
} from "./_smoke.ts";

const INSTALL_TIMEOUT_MS = 5 * 60_000;
const LISTEN_TIMEOUT_MS = 30_000;
/** One Bun run: start, connect, call, disconnect. */
const CLIENT_TIMEOUT_MS = 60_000;
const EVERYTHING = "@modelcontextprotocol/server-everything";
const CLIENT = join(ROOT, "tests", "fixtures", "smoke", "bun_client.ts");
const MODERN_CLIENT = join(
  ROOT,
  "tests",
  "fixtures",
  "smoke",
  "bun_modern_client.ts",
);
const NODE_EXAMPLE = join(ROOT, "examples", "node_remote.mjs");
const EXPECTED = "The sum of 2 and 3 is 5.";

/**
 * Runs the Bun smoke cases.
 *
 * @returns The number of failed cases.
 * @throws {Error} When the tarball is missing or the setup fails.
 *
 * @example
 * ```ts ignore
 * import { smokeBun } from "./smoke_bun.ts";
 *
 * Deno.exit((await smokeBun()) === 0 ? 0 : 1);
 * ```
 */
export async function smokeBun(): Promise<number> {
  const config = await readDenoConfig();
  const dir = await installScratch(config, ["bun", EVERYTHING], {
    withTarball: true,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  const running: Background[] = [];
  try {
    await Deno.copyFile(CLIENT, join(dir, "bun_client.ts"));
    await Deno.copyFile(MODERN_CLIENT, join(dir, "bun_modern_client.ts"));
    await Deno.copyFile(MODERN_CHECK, join(dir, "modern_check.ts"));
    const bun = join(dir, "node_modules", ".bin", "bun");
    const everything = await binScript(dir, EVERYTHING);
    const port = freePort();
    const server = startBackground(
      "server-everything streamableHttp",
      "node",
      [everything, "streamableHttp"],
      { cwd: dir, env: { PORT: String(port) } },
    );
    running.push(server);
    let modernPort = freePort();
    while (modernPort === port) modernPort = freePort();
    const modern = startModernServer(modernPort);
    running.push(modern);
    await waitForPort(port, server, LISTEN_TIMEOUT_MS);
    await waitForPort(modernPort, modern, LISTEN_TIMEOUT_MS);
    const bunRun = (args: string[]) => async () => {
      const code = await run(bun, args, {
        cwd: dir,
        timeoutMs: CLIENT_TIMEOUT_MS,
      });
      if (code === TIMEOUT_EXIT_CODE) {
        throw new Error(`Bun did not finish within ${CLIENT_TIMEOUT_MS} ms`);
      }
      if (code !== 0) throw new Error(`Bun exited with code ${code}`);
    };
    const client = (mode: string, target: string) =>
      bunRun(["bun_client.ts", mode, target]);
    return await runCases("smoke-bun", [
      {
        name: "stdio: get-sum through server-everything started by the adapter",
        run: client("stdio", everything),
      },
      {
        name: "streamable HTTP: get-sum on server-everything at 127.0.0.1",
        run: client("http", `http://127.0.0.1:${port}/mcp`),
      },
      {
        name:
          "examples/node_remote.mjs under Node: get-sum over streamable HTTP",
        run: () => nodeExample(dir, `http://127.0.0.1:${port}/mcp`),
      },
      {
        name:
          "modern streamable HTTP (2026-07-28 only): era, tools, get_sum on an SDK v2 server at 127.0.0.1",
        run: async () => {
          try {
            await bunRun([
              "bun_modern_client.ts",
              `http://127.0.0.1:${modernPort}/mcp`,
            ])();
          } catch (error) {
            throw new Error(
              `${error instanceof Error ? error.message : error}${
                tailText(modern)
              }`,
            );
          }
        },
      },
    ]);
  } finally {
    await Promise.all(running.map((process) => process.stop()));
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Runs the Node example, `examples/node_remote.mjs`, in the scratch project
 * (so it imports the npm build) and checks the sum it prints.
 */
async function nodeExample(dir: string, url: string): Promise<void> {
  await Deno.copyFile(NODE_EXAMPLE, join(dir, "node_remote.mjs"));
  const { code, stdout } = await new Deno.Command("node", {
    args: ["node_remote.mjs", url, "get-sum", '{"a":2,"b":3}'],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  }).output();
  const printed = new TextDecoder().decode(stdout);
  if (code !== 0 || !printed.includes(EXPECTED)) {
    throw new Error(
      `node node_remote.mjs exited with code ${code} and printed:\n${printed}`,
    );
  }
}

if (import.meta.main) {
  await exitWith("smoke_bun", async () => (await smokeBun()) === 0 ? 0 : 1);
}
