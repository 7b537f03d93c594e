/**
 * What the build scripts need to know about the project: its root, its name
 * and version, and its npm dependencies as pinned in `deno.json` `imports`,
 * the one place where versions are written.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (the folder holding `deno.json`). */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url));

/**
 * How the README's first command runs the demo: `deno run` with
 * `--unstable-npm-lazy-caching`, which fetches only the packages the demo
 * and its server import. (`deno task demo` runs the same program, but
 * `deno task` first fetches every package of `deno.json`, as Deno does for
 * any task: denoland/deno#28999.) CI's demo step runs exactly this.
 */
export const DEMO_ARGS: readonly string[] = [
  "run",
  "--unstable-npm-lazy-caching",
  "--allow-run",
  "--allow-read",
  "--allow-env",
  "examples/demo.ts",
];

/**
 * Packages that only the tests import. The Node run installs them beside the
 * tarball; the published package must never depend on them.
 */
export const TEST_PACKAGES: readonly string[] = [
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server-everything",
  // An MCP Apps server (tools with _meta.ui, a ui:// app): tests/apps/.
  "@modelcontextprotocol/server-pdf",
  // The official SDK v2's servers (2026-07-28 and dual-era) as real peers.
  "@modelcontextprotocol/server",
  // The SDK v2's client: the reference score of the 2026-07-28 conformance run.
  "@modelcontextprotocol/client",
  "zod",
  // tests/bundle_test.ts bundles the installed package.
  "esbuild",
  // tests/models/loop_test.ts runs the AI SDK's generateText() with a mock model.
  "ai",
  // tests/cli/redis_store_test.ts: the Redis token store over node-redis.
  "redis",
  // tests/fuzz/: property-based tests.
  "fast-check",
  // tests/telemetry/: the OpenTelemetry API and SDK with in-memory exporters.
  "@opentelemetry/api",
  "@opentelemetry/core",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-metrics",
  // The context manager docs/observability.md asks for, on Node and Deno.
  "@opentelemetry/context-async-hooks",
];

/**
 * Packages the library loads lazily for an optional feature, published as
 * optional peer dependencies so installs without the feature stay small:
 * the MCP SDK is imported only when `authProvider` (OAuth) is used.
 */
export const OPTIONAL_PEERS: readonly string[] = ["@modelcontextprotocol/sdk"];

/**
 * Packages the library works with but never imports, declared as optional
 * peer dependencies at the version `deno.json` pins, so package managers
 * check that a copy the application installed is compatible: telemetry
 * reads `@opentelemetry/api`'s global registry (version 1) and imports
 * nothing of it.
 */
export const INTEROP_PEERS: readonly string[] = ["@opentelemetry/api"];

/** Packages that only the build scripts import. */
export const BUILD_PACKAGES: readonly string[] = ["esbuild"];

/**
 * Runtimes and tools that only the smoke scripts (`smoke_bun.ts`,
 * `smoke_workerd.ts`) install, name → exact version. Pinned here, not in `deno.json` `imports`:
 * Deno caches every npm package of the import map on its first command,
 * imported or not, and these ship ~350 MB of binaries.
 */
export const SMOKE_PACKAGES: Readonly<Record<string, string>> = {
  bun: "1.4.5",
  workerd: "1.20261117.1",
  // Bundles the workerd smoke's Worker; this release depends on the workerd above.
  wrangler: "4.164.0",
};

/**
 * The Node.js lines the packed tarball's test suite runs on
 * (`scripts/test_node.ts --node=<line>`), line → exact version of the npm
 * package `node`, which ships that release's binary. The maintained lines:
 * 22 and 24 (LTS: `process.release.lts` is "Jod", "Krypton") and 26 (the
 * current release). Node 20 reached its end of life on 2026-04-30 and is no
 * longer promised or tested.
 */
export const NODE_LINES: Readonly<Record<string, string>> = {
  "22": "22.23.3",
  "24": "24.21.0",
  "26": "26.10.0",
};

/** The parts of `deno.json` the scripts read. */
export interface DenoConfig {
  /** Package name, e.g. `@cleveragents/mcp-adapter`. */
  name: string;
  /** Package version. */
  version: string;
  /** Subpath → entry module, e.g. `{ ".": "./mod.ts" }`. */
  exports: Record<string, string>;
  /** The import map. */
  imports: Record<string, string>;
}

/** An npm package named in the import map. */
export interface NpmImport {
  /** Package name, e.g. `@modelcontextprotocol/sdk`. */
  name: string;
  /** Version or range, e.g. `^1.32.2`. */
  version: string;
}

/**
 * Reads the repository's `deno.json`.
 *
 * @param root The folder holding `deno.json`.
 * @returns Its name, version, exports and imports.
 * @throws {Error} When a field is missing.
 *
 * @example
 * ```ts ignore
 * import { readDenoConfig, ROOT } from "./_deps.ts";
 *
 * const { name, version } = await readDenoConfig(ROOT);
 * ```
 */
export async function readDenoConfig(root: string = ROOT): Promise<DenoConfig> {
  const path = join(root, "deno.json");
  const config = JSON.parse(await Deno.readTextFile(path));
  for (const field of ["name", "version", "exports", "imports"]) {
    if (config[field] === undefined) {
      throw new Error(`${path} has no "${field}"; the build needs it`);
    }
  }
  // A single entry may be written as a string; normalise it to the map form.
  if (typeof config.exports === "string") {
    config.exports = { ".": config.exports };
  }
  return config as DenoConfig;
}

/**
 * Parses an import-map target such as `npm:zod@^3.25.0` or
 * `npm:/@modelcontextprotocol/sdk@^1.32.2/`.
 *
 * @param target The right-hand side of an `imports` entry.
 * @returns The package and version, or `undefined` for non-npm targets.
 *
 * @example
 * ```ts
 * import { parseNpmTarget } from "./_deps.ts";
 *
 * parseNpmTarget("npm:/@modelcontextprotocol/sdk@^1.32.2/");
 * // { name: "@modelcontextprotocol/sdk", version: "^1.32.2" }
 * ```
 */
export function parseNpmTarget(target: string): NpmImport | undefined {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)/.exec(target);
  if (match === null) return undefined;
  return { name: match[1]!, version: match[2]! };
}

/**
 * Finds the version `deno.json` pins for an npm package.
 *
 * @param config The parsed `deno.json`.
 * @param name The package name.
 * @returns An npm install spec, `name@version`.
 * @throws {Error} When the import map does not name the package.
 *
 * @example
 * ```ts ignore
 * import { npmSpec, readDenoConfig } from "./_deps.ts";
 *
 * npmSpec(await readDenoConfig(), "zod"); // "zod@^3.25.0"
 * ```
 */
export function npmSpec(config: DenoConfig, name: string): string {
  for (const target of Object.values(config.imports)) {
    const parsed = parseNpmTarget(target);
    if (parsed?.name === name) return `${parsed.name}@${parsed.version}`;
  }
  throw new Error(
    `deno.json "imports" has no npm: entry for ${name}; add one so its version is pinned there`,
  );
}

/**
 * The tarball path that `scripts/build_npm.ts` writes: npm's own naming,
 * `dist/<scope>-<name>-<version>.tgz`.
 *
 * @param config The parsed `deno.json`.
 * @param root The repository root.
 * @returns The absolute path of the tarball.
 *
 * @example
 * ```ts ignore
 * import { readDenoConfig, tarballPath } from "./_deps.ts";
 *
 * tarballPath(await readDenoConfig()); // ".../dist/cleveragents-mcp-adapter-0.1.0.tgz"
 * ```
 */
export function tarballPath(config: DenoConfig, root: string = ROOT): string {
  const base = config.name.replace(/^@/, "").replace("/", "-");
  return join(root, "dist", `${base}-${config.version}.tgz`);
}

/**
 * Fails unless the tarball was built.
 *
 * @param tarball Its path, as {@linkcode tarballPath} gives it.
 * @throws {Error} When it does not exist, saying how to build it.
 */
export async function assertTarball(tarball: string): Promise<void> {
  try {
    await Deno.stat(tarball);
  } catch {
    throw new Error(
      `${tarball} does not exist; run \`deno task build:npm\` first`,
    );
  }
}

/**
 * The npm install spec of a Node line, e.g. `node@24.21.0` for `"24"`.
 *
 * @throws {Error} When `line` is not a key of {@linkcode NODE_LINES}.
 */
export function nodeLineSpec(line: string): string {
  const version = NODE_LINES[line];
  if (version === undefined) {
    throw new Error(
      `unknown Node line "${line}"; the lines are ${
        Object.keys(NODE_LINES).join(", ")
      } (NODE_LINES in scripts/_deps.ts)`,
    );
  }
  return `node@${version}`;
}
