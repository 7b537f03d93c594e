/**
 * Builds the npm package: `deno pack` emits `.js` + `.d.ts` and a minimal
 * `package.json`; this script unpacks that into `dist/npm/`, adds the npm
 * metadata `deno pack` does not write, routes the stdio transport's process
 * backend through package `imports` conditions (so edge and browser bundlers
 * see no `node:` import), checks the dependencies, and packs
 * `dist/<scope>-<name>-<version>.tgz` with `npm pack`.
 *
 * Run it with `deno task build:npm`.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import {
  BUILD_PACKAGES,
  type DenoConfig,
  INTEROP_PEERS,
  npmSpec,
  OPTIONAL_PEERS,
  readDenoConfig,
  ROOT,
  tarballPath,
  TEST_PACKAGES,
} from "./_deps.ts";
import { log, logError, mustRun, run, TIMEOUT_EXIT_CODE } from "./_run.ts";
import { MIN_NODE } from "../src/cli/program.ts";

/** Where the unpacked npm package is written. */
export const NPM_DIR: string = join(ROOT, "dist", "npm");

/** Fields `deno pack` leaves out of `package.json`. */
const NPM_METADATA = {
  description:
    "Bridge tools from Model Context Protocol (MCP) servers into an agent runtime: stdio, SSE and streamable HTTP transports, argument validation, deadlines, capability inference and a tool registry.",
  keywords: [
    "mcp",
    "model-context-protocol",
    "agents",
    "tools",
    "json-rpc",
    "deno",
  ],
  repository: {
    type: "git",
    url: "git+https://github.com/cleveragents/mcp-adapter.git",
  },
  // The maintained Node lines, which CI tests (NODE_LINES in _deps.ts);
  // 22.12 is the oldest that eventsource-parser 4 supports. The command
  // line warns on an older one (MIN_NODE).
  engines: { node: `>=${MIN_NODE.join(".")}` },
};

/**
 * Modules that do something on import beyond declaring: the CLI runs when
 * it is the program. Every other module only declares (audited: no
 * top-level call but in `const` initialisers of its own values), so
 * bundlers may drop any module whose exports an app does not use.
 */
const SIDE_EFFECTS: readonly string[] = ["./cli.js", "./bin.js"];

/**
 * Executables for `package.json` `bin`, command name → path inside the
 * package. The module must be in `deno.json` `exports` so `deno pack` emits
 * it, and the emitted `.js` must start with `#!/usr/bin/env node`.
 */
const BIN: Record<string, string> = { "mcp-adapter": "./bin.js" };

/**
 * The stdio transport's process backend, chosen by the bundler or runtime:
 * the package `imports` entry that `stdio.js` imports instead of
 * `./_process/loader.js`. Under the conditions of edge runtimes and browsers
 * it resolves to a backend that only rejects (and imports nothing); Deno,
 * Bun, Node.js and every other resolver get the real loader. Node-ish
 * conditions come first, so a build that sets both (Electron) gets the real
 * one. Conditions are an npm idea: Deno running the JSR source always gets
 * the real loader, and needs none of this.
 */
export const STDIO_PROCESS_IMPORT = "#stdio-process";
/** The conditions under which stdio resolves to the backend that rejects. */
export const EDGE_CONDITIONS: readonly string[] = [
  "workerd",
  "edge-light",
  "worker",
  "browser",
];
const STDIO_MODULE = "src/transports/stdio.js";
const LOADER_SPECIFIER = "./_process/loader.js";
const LOADER = "./src/transports/_process/loader.js";
const UNAVAILABLE = "./src/transports/_process/unavailable.js";

const PACK_TIMEOUT_MS = 180_000;
const TAR_TIMEOUT_MS = 60_000;
const NPM_PACK_TIMEOUT_MS = 120_000;

/** The `package.json` fields this script reads or writes. */
interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * Builds `dist/npm/` and the npm tarball.
 *
 * @param config The parsed `deno.json`.
 * @returns The absolute path of the tarball.
 * @throws {Error} When a tool fails, or the package would depend on a
 * test-only package or expose types from an undeclared one.
 *
 * @example
 * ```ts ignore
 * import { buildNpm } from "./build_npm.ts";
 * import { readDenoConfig } from "./_deps.ts";
 *
 * const tarball = await buildNpm(await readDenoConfig());
 * ```
 */
export async function buildNpm(config: DenoConfig): Promise<string> {
  const tarball = tarballPath(config);
  await removeIfPresent(NPM_DIR);
  await removeIfPresent(tarball);
  await Deno.mkdir(NPM_DIR, { recursive: true });
  await packAndUnpack();
  const manifestPath = join(NPM_DIR, "package.json");
  const generated: Manifest = JSON.parse(await Deno.readTextFile(manifestPath));
  log(
    `deno pack dependencies: ${JSON.stringify(generated.dependencies ?? {})}`,
  );
  const manifest = withStdioImports(
    mergeMetadata(asOptionalPeers(generated, config)),
  );
  await routeStdioBackend(NPM_DIR);
  assertNoTestDependencies(manifest);
  await Deno.writeTextFile(
    manifestPath,
    JSON.stringify(manifest, null, 2) + "\n",
  );
  await assertTypesResolvable(NPM_DIR, manifest);
  await mustRun("npm", ["pack", "--pack-destination", join(ROOT, "dist")], {
    cwd: NPM_DIR,
    timeoutMs: NPM_PACK_TIMEOUT_MS,
  });
  await Deno.stat(tarball);
  return tarball;
}

/** Runs `deno pack` into a scratch tarball and unpacks it into `dist/npm/`. */
async function packAndUnpack(): Promise<void> {
  const packed = join(ROOT, "dist", "deno-pack.tgz");
  try {
    // --allow-dirty: this is a build, not a release; it must work on a work
    // tree with uncommitted changes (and on CI's clean clone alike).
    await denoPack([
      "pack",
      "--no-source-maps",
      "--allow-dirty",
      "--output",
      packed,
    ]);
    const untar = ["-xzf", packed, "-C", NPM_DIR, "--strip-components=1"];
    await mustRun("tar", untar, { timeoutMs: TAR_TIMEOUT_MS });
  } finally {
    await removeIfPresent(packed);
  }
}

/**
 * `deno pack`'s warning for every module that no public type refers to:
 * it writes `.d.ts` files only for the modules the entries' declarations
 * reach, and warns about each other one, however fully typed
 * (denoland/deno#36829). Those are our internal modules;
 * {@linkcode assertTypesResolvable} proves that no `.d.ts` needs one.
 */
const NO_TYPES =
  /^Could not generate types for '[^']+'\. Types will not be included for this module\.$/;

/**
 * Runs `deno pack` and prints its output but for the {@linkcode NO_TYPES}
 * warnings, which it counts in one line.
 */
async function denoPack(args: readonly string[]): Promise<void> {
  const decoder = new TextDecoder();
  let output = "";
  const code = await run(Deno.execPath(), args, {
    cwd: ROOT,
    timeoutMs: PACK_TIMEOUT_MS,
    onOutput: (chunk) => output += decoder.decode(chunk, { stream: true }),
  });
  // deno-lint-ignore no-control-regex
  const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "");
  const lines = output.replace(/\n$/, "").split("\n");
  const untyped = lines.filter((line) => NO_TYPES.test(plain(line))).length;
  log(lines.filter((line) => !NO_TYPES.test(plain(line))).join("\n"));
  if (untyped > 0) {
    log(
      `deno pack: ${untyped} internal modules get no .d.ts, as no public type refers to them (its "Could not generate types" warnings; checked below)`,
    );
  }
  if (code !== 0) {
    throw new Error(
      code === TIMEOUT_EXIT_CODE
        ? `deno pack timed out after ${PACK_TIMEOUT_MS} ms`
        : `deno pack exited with code ${code}`,
    );
  }
}

/** Adds the `imports` entry of {@linkcode STDIO_PROCESS_IMPORT}. */
function withStdioImports(manifest: Manifest): Manifest {
  const target: Record<string, string> = {};
  for (const condition of ["deno", "bun", "node"]) target[condition] = LOADER;
  for (const condition of EDGE_CONDITIONS) target[condition] = UNAVAILABLE;
  target.default = LOADER;
  return { ...manifest, imports: { [STDIO_PROCESS_IMPORT]: target } };
}

/**
 * Makes `stdio.js` import its backend loader through
 * {@linkcode STDIO_PROCESS_IMPORT}. Fails when the emitted code no longer
 * has exactly one import of the loader (the source changed), or when
 * another module imports the loader directly (it would bypass the
 * conditions), or when a module the conditions name is missing.
 */
async function routeStdioBackend(dir: string): Promise<void> {
  for (const module of [LOADER, UNAVAILABLE]) {
    if (!existsSync(join(dir, module))) {
      throw new Error(
        `deno pack emitted no ${module}; the stdio imports map needs it`,
      );
    }
  }
  const path = join(dir, STDIO_MODULE);
  const code = await Deno.readTextFile(path);
  const quoted = new RegExp(
    `(["'])${LOADER_SPECIFIER.replace(/[./]/g, "\\$&")}\\1`,
    "g",
  );
  const found = code.match(quoted)?.length ?? 0;
  if (found !== 1) {
    throw new Error(
      `${STDIO_MODULE} imports ${LOADER_SPECIFIER} ${found} times, expected once; update routeStdioBackend() in scripts/build_npm.ts`,
    );
  }
  await Deno.writeTextFile(
    path,
    code.replace(quoted, `$1${STDIO_PROCESS_IMPORT}$1`),
  );
  for await (const file of walkFiles(dir)) {
    if (!file.endsWith(".js") || file === path) continue;
    if (/_process\/loader\.js["']/.test(await Deno.readTextFile(file))) {
      throw new Error(
        `${
          relative(dir, file)
        } imports the stdio backend loader directly; import it through ${STDIO_PROCESS_IMPORT} (stdio.js) so edge bundles leave it out`,
      );
    }
  }
}

/** Moves the lazily loaded packages of optional features to optional peer dependencies. */
function asOptionalPeers(manifest: Manifest, config: DenoConfig): Manifest {
  const dependencies = { ...manifest.dependencies };
  const peers: Record<string, string> = {};
  for (const name of OPTIONAL_PEERS) {
    if (dependencies[name] === undefined) continue;
    peers[name] = dependencies[name];
    delete dependencies[name];
  }
  for (const name of INTEROP_PEERS) {
    peers[name] = npmSpec(config, name).slice(name.length + 1);
  }
  if (Object.keys(peers).length === 0) return manifest;
  return {
    ...manifest,
    dependencies,
    peerDependencies: peers,
    peerDependenciesMeta: Object.fromEntries(
      Object.keys(peers).map((name) => [name, { optional: true }]),
    ),
  };
}

/**
 * Refuses a package that depends on a test-only or build-only package.
 *
 * `deno pack` derives `dependencies` from the module graph of the exports
 * (not from every `deno.json` import), so such an entry means library code
 * imports that package at run time. Stripping it would publish a package
 * that fails on import; the fix belongs in `src/`.
 */
function assertNoTestDependencies(manifest: Manifest): void {
  const forbidden = [...TEST_PACKAGES, ...BUILD_PACKAGES];
  const found = Object.keys(manifest.dependencies ?? {}).filter((name) =>
    forbidden.includes(name)
  );
  if (found.length === 0) return;
  throw new Error(
    `deno pack made the npm package depend on ${
      found.join(", ")
    }, which only tests or build scripts may use; ` +
      "find the import under src/ or mod.ts and remove it",
  );
}

/** Adds the npm metadata, in the order npm users expect to read it. */
function mergeMetadata(generated: Manifest): Manifest {
  const { name, version, ...rest } = generated;
  return {
    name,
    version,
    description: NPM_METADATA.description,
    keywords: NPM_METADATA.keywords,
    repository: NPM_METADATA.repository,
    ...rest,
    // Tools read the manifest through exports (`pkg/package.json`).
    exports: {
      ...(rest.exports as Record<string, unknown>),
      "./package.json": "./package.json",
    },
    sideEffects: SIDE_EFFECTS,
    ...(Object.keys(BIN).length > 0 ? { bin: BIN } : {}),
    engines: NPM_METADATA.engines,
  };
}

/**
 * Refuses `.d.ts` files whose imports a consumer's compiler cannot resolve:
 * a package the npm package does not depend on (`deno pack` leaves a
 * type-only import of, say, the MCP SDK in the `.d.ts` without adding the SDK
 * to `dependencies`), or a module of ours with no `.d.ts` (`deno pack` skips
 * modules it "could not generate types for" and only warns).
 */
async function assertTypesResolvable(
  dir: string,
  manifest: Manifest,
): Promise<void> {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
  ]);
  const problems: string[] = [];
  for await (const file of walkFiles(dir)) {
    if (!file.endsWith(".d.ts")) continue;
    for (const specifier of typeImports(await Deno.readTextFile(file))) {
      const problem = unresolvable(specifier, file, declared);
      if (problem !== undefined) {
        problems.push(`${relative(dir, file)}: ${problem}`);
      }
    }
  }
  if (problems.length === 0) return;
  throw new Error(
    `the npm package's types would not resolve for its users:\n  ${
      problems.join("\n  ")
    }\nkeep other packages' types out of the public API, and give every type the public API uses an explicit type annotation`,
  );
}

/** Why one import of a `.d.ts` file would not resolve, if it would not. */
function unresolvable(
  specifier: string,
  file: string,
  declared: ReadonlySet<string>,
): string | undefined {
  if (specifier.startsWith(".")) {
    const target = join(dirname(file), specifier).replace(/\.js$/, ".d.ts");
    return existsSync(target)
      ? undefined
      : `imports ${specifier}, which has no .d.ts`;
  }
  if (/^(\/|node:|[a-z]+:)/.test(specifier)) return undefined;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@")
    ? parts.slice(0, 2).join("/")
    : parts[0]!;
  return declared.has(name)
    ? undefined
    : `imports ${name}, which is not a dependency`;
}

/**
 * The specifiers a declaration file imports, ignoring comments (JSDoc
 * examples import the package itself).
 */
function typeImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(
    /^\s*\/\/.*$/gm,
    "",
  );
  const matches = code.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g,
  );
  return [...matches].map((match) => match[1]!);
}

async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walkFiles(path);
    else if (entry.isFile) yield path;
  }
}

async function removeIfPresent(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

if (import.meta.main) {
  try {
    const tarball = await buildNpm(await readDenoConfig());
    log(
      `build_npm: wrote ${relative(ROOT, NPM_DIR)}/ and ${
        relative(ROOT, tarball)
      }`,
    );
  } catch (error) {
    logError(`build_npm: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
