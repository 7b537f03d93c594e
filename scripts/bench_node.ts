/**
 * Runs the client benchmark (`bench/client_bench.ts`) on Node against the
 * packed npm tarball, so the Node figures are those of the published code.
 *
 * In a temporary folder it installs the tarball and the MCP SDK packages
 * (the 1.x client, the v2 server; at the versions `deno.json` pins),
 * transpiles `bench/client_bench.ts` and the bench modules it imports to
 * `.js` with esbuild, copies the other files they import or open
 * (`echo_server.mjs`, `sdk_echo_server.mjs`), and runs `node
 * client_bench.js` there, so `@cleveragents/mcp-adapter` resolves to the
 * installed tarball. The folder is removed afterwards, pass or fail.
 *
 * Run it with `deno task bench:node` (builds the tarball first). It runs on
 * Node 22, the oldest line the package supports, installed from npm;
 * `--node=LINE` picks another line of `NODE_LINES` (`scripts/_deps.ts`).
 * Other arguments are passed on to the benchmark, e.g. `--rounds=3
 * --only=stdio-64`; a relative `--cpu-prof=FILE` is taken relative to the
 * current folder.
 *
 * @module
 */

import { delimiter, dirname, join, posix, resolve } from "node:path";
import { stop } from "esbuild";
import {
  assertTarball,
  type DenoConfig,
  nodeLineSpec,
  npmSpec,
  readDenoConfig,
  ROOT,
  tarballPath,
} from "./_deps.ts";
import { installPackages, transpileModule } from "./_node_project.ts";
import { exitWith, log, run } from "./_run.ts";

/** The benchmark's entry, relative to `bench/`. */
const ENTRY = "client_bench.ts";
/** Files the bench modules open by path (`new URL(…, import.meta.url)`), relative to `bench/`. */
const ASSETS = ["echo_server.mjs", "sdk_echo_server.mjs"];
/**
 * What the benchmark imports by package name, besides our own package; the
 * SDK v2 server package is `sdk_echo_server.mjs`'s.
 */
const BENCH_PACKAGES = [
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server",
  "zod",
];
/** The Node line the benchmark runs on unless `--node=LINE` says otherwise. */
const DEFAULT_NODE_LINE = "22";
const INSTALL_TIMEOUT_MS = 5 * 60_000;
/** The whole benchmark; its own steps have shorter deadlines. */
const RUN_TIMEOUT_MS = 40 * 60_000;

/**
 * Installs the tarball and the SDK in a temporary folder and runs the
 * transpiled benchmark there with `node`.
 *
 * @param config The parsed `deno.json`.
 * @param args Arguments for the benchmark.
 * @returns Node's exit code (124 when the deadline passed).
 * @throws {Error} When the tarball is missing or a bench module imports
 * something outside `bench/` by a relative path.
 *
 * @example
 * ```ts ignore
 * import { benchNode } from "./bench_node.ts";
 * import { readDenoConfig } from "./_deps.ts";
 *
 * Deno.exit(await benchNode(await readDenoConfig(), ["--rounds=3"]));
 * ```
 */
export async function benchNode(
  config: DenoConfig,
  args: readonly string[],
): Promise<number> {
  const tarball = tarballPath(config);
  await assertTarball(tarball);
  const line = args.find((arg) => arg.startsWith("--node="))?.slice(7) ??
    DEFAULT_NODE_LINE;
  const nodeSpec = nodeLineSpec(line);
  const dir = await Deno.makeTempDir({ prefix: "mcp-adapter-node-bench-" });
  try {
    const specs = BENCH_PACKAGES.map((name) => npmSpec(config, name));
    await installPackages(
      dir,
      tarball,
      [...specs, nodeSpec],
      INSTALL_TIMEOUT_MS,
    );
    await copyBench(dir);
    const entry = ENTRY.replace(/\.ts$/, ".js");
    const node = join(dir, "node_modules", "node", "bin", "node");
    log(`bench_node: ${nodeSpec} ${entry} in ${dir}`);
    const benchArgs = args.filter((arg) => !arg.startsWith("--node="));
    return await run(node, [entry, ...benchArgs.map(absoluteProfilePath)], {
      cwd: dir,
      timeoutMs: RUN_TIMEOUT_MS,
      // The echo servers run as `node`: the same release as the clients.
      env: {
        PATH: `${dirname(node)}${delimiter}${Deno.env.get("PATH") ?? ""}`,
      },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
    await stop();
  }
}

/** `--cpu-prof=FILE` with FILE made absolute: node runs in the scratch folder. */
function absoluteProfilePath(arg: string): string {
  const prefix = "--cpu-prof=";
  return arg.startsWith(prefix)
    ? prefix + resolve(arg.slice(prefix.length))
    : arg;
}

/**
 * Copies the entry and every bench module it reaches by relative imports
 * into `dir`: `.ts` transpiled to `.js`, other files as they are.
 */
async function copyBench(dir: string): Promise<void> {
  const benchDir = join(ROOT, "bench");
  const queue = [ENTRY, ...ASSETS];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const source = join(benchDir, file);
    if (!file.endsWith(".ts")) {
      await Deno.copyFile(source, join(dir, file));
      continue;
    }
    const code = await transpileModule(source, `bench/${file}`, (specifier) => {
      const target = posix.normalize(
        posix.join(posix.dirname(file), specifier),
      );
      if (target.startsWith("../")) {
        throw new Error(
          `bench/${file} imports "${specifier}", outside bench/; the Node run reaches only bench/ and installed packages`,
        );
      }
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
      return specifier.replace(/\.ts$/, ".js");
    });
    const to = join(dir, file.replace(/\.ts$/, ".js"));
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.writeTextFile(to, code);
  }
}

if (import.meta.main) {
  await exitWith(
    "bench_node",
    async () => await benchNode(await readDenoConfig(), Deno.args),
    RUN_TIMEOUT_MS,
  );
}
