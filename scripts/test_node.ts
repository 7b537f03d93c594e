/**
 * Runs the test suite on Node against the packed npm tarball.
 *
 * In a temporary folder it installs the tarball and the test-only packages
 * (at the versions `deno.json` pins), transpiles `tests/**\/*.ts` to `.js`
 * with esbuild (tree preserved, relative `.ts` imports rewritten), copies the
 * other files under `tests/` as they are, then runs `node --test` over the
 * `*_test.js` files with that folder as the working directory, so
 * `@cleveragents/mcp-adapter` resolves to the installed tarball. The folder is
 * removed afterwards, pass or fail. Node's own output is the last thing this
 * prints, and its exit code is this script's.
 *
 * A test that imports a module outside `tests/` by a relative path (e.g.
 * `../src/session.ts`) gets the same module from the installed package.
 * `tests/scripts/` (the tests of the Deno-only build scripts) and
 * `tests/architecture_test.ts` (which reads the source tree, not the
 * package) are left out.
 *
 * `--node=<line>` (a line of `NODE_LINES` in `scripts/_deps.ts`: 22, 24, 26)
 * installs that Node release (the npm package `node`) into the folder too
 * and runs the suite on it, with its `bin/` first on `PATH`, so the servers
 * the tests start as `node` run on the same line; without it, the `node` on
 * `PATH` runs the suite. CI runs one step per line.
 *
 * Run it with `deno task test:node` (builds the tarball first). Other
 * arguments are passed on to `node --test`, e.g. `--test-name-pattern=invoke`
 * or `deno task test:node --node=24`.
 *
 * @module
 */

import { delimiter, dirname, join, posix } from "node:path";
import { stop } from "esbuild";
import {
  assertTarball,
  type DenoConfig,
  nodeLineSpec,
  npmSpec,
  readDenoConfig,
  ROOT,
  tarballPath,
  TEST_PACKAGES,
} from "./_deps.ts";
import { installPackages, transpileModule } from "./_node_project.ts";
import { exitWith, log, run } from "./_run.ts";

/** The whole run, install included, ends after this many milliseconds. */
const TOTAL_TIMEOUT_MS = 20 * 60_000;
/** A single test that runs longer than this fails (node's `--test-timeout`). */
const TEST_TIMEOUT_MS = 120_000;
/** Test files run in parallel, one process each; CI machines have 2 cores. */
const CONCURRENCY = 2;
const INSTALL_TIMEOUT_MS = 5 * 60_000;

/**
 * Tests that run on Deno only: those of `scripts/`, and the import contract,
 * which reads the source tree (and quotes imports that Node could not reach).
 */
const DENO_ONLY_TESTS = ["tests/scripts/", "tests/architecture_test.ts"];
/** Deno's default test-file names: `x_test.ts`, `x.test.ts`, `test.ts`. */
const TEST_FILE = /^(?:.*[._])?test\.ts$/;

/** Options for {@linkcode testNode}. */
export interface TestNodeOptions {
  /** The tarball to install; `dist/<scope>-<name>-<version>.tgz` by default. */
  tarball?: string;
  /** Extra arguments for `node --test`. */
  nodeArgs?: string[];
  /** Deadline for the whole run in milliseconds. */
  timeoutMs?: number;
  /**
   * A key of `NODE_LINES` (`"24"`): runs on that Node release, installed
   * from npm; the `node` on `PATH` by default.
   */
  nodeLine?: string;
}

/**
 * Installs the tarball in a temporary folder and runs the transpiled tests
 * there with `node --test`.
 *
 * @param config The parsed `deno.json`.
 * @param options Tarball, extra node arguments, deadline.
 * @returns Node's exit code (124 when the deadline passed).
 * @throws {Error} When the tarball is missing, the Node line is unknown, a
 * test file cannot be transpiled, or a test imports something Node cannot
 * reach.
 *
 * @example
 * ```ts ignore
 * import { testNode } from "./test_node.ts";
 * import { readDenoConfig } from "./_deps.ts";
 *
 * Deno.exit(await testNode(await readDenoConfig()));
 * ```
 */
export async function testNode(
  config: DenoConfig,
  options: TestNodeOptions = {},
): Promise<number> {
  const deadline = Date.now() + (options.timeoutMs ?? TOTAL_TIMEOUT_MS);
  const remaining = (capMs: number) =>
    Math.max(1, Math.min(capMs, deadline - Date.now()));
  const tarball = options.tarball ?? tarballPath(config);
  await assertTarball(tarball);
  const nodeSpec = options.nodeLine === undefined
    ? undefined
    : nodeLineSpec(options.nodeLine);
  const dir = await Deno.makeTempDir({ prefix: "mcp-adapter-node-test-" });
  try {
    const extra = nodeSpec === undefined ? [] : [nodeSpec];
    await install(dir, tarball, config, extra, remaining(INSTALL_TIMEOUT_MS));
    const node = nodeSpec === undefined
      ? "node"
      : join(dir, "node_modules", "node", "bin", "node");
    const testFiles = await copyTests(dir, config.name);
    await copyDataFiles(dir);
    if (testFiles.length === 0) {
      throw new Error("found no *_test.ts files under tests/");
    }
    const version = await nodeVersion(node);
    log(
      `test_node: node --test on Node ${version} over ${testFiles.length} file(s) in ${dir}`,
    );
    const args = [...(options.nodeArgs ?? []), ...testFiles];
    return await runNodeTests(node, dir, args, remaining(TOTAL_TIMEOUT_MS));
  } finally {
    await Deno.remove(dir, { recursive: true });
    await stop();
  }
}

/** Installs the tarball, the test-only packages and `extra` into `dir`. */
function install(
  dir: string,
  tarball: string,
  config: DenoConfig,
  extra: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const specs = TEST_PACKAGES.map((name) => npmSpec(config, name));
  return installPackages(dir, tarball, [...specs, ...extra], timeoutMs);
}

/** What `node --version` prints, e.g. `v24.21.0`. */
async function nodeVersion(node: string): Promise<string> {
  const output = await new Deno.Command(node, {
    args: ["--version"],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    signal: AbortSignal.timeout(30_000),
  }).output();
  if (!output.success) throw new Error(`${node} --version failed`);
  return new TextDecoder().decode(output.stdout).trim();
}

/**
 * Runs `node --test` in `dir`, which holds the tests and node_modules, with
 * the folder of `node` first on `PATH` (for the servers tests start as `node`).
 */
async function runNodeTests(
  node: string,
  dir: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<number> {
  const env = node === "node" ? undefined : {
    PATH: `${dirname(node)}${delimiter}${Deno.env.get("PATH") ?? ""}`,
  };
  return await run(
    node,
    [
      "--enable-source-maps",
      "--test",
      // TAP on every line: Node 24 and later default to the "spec" reporter
      // even into a pipe, and CI reads TAP's "# tests N" summary.
      "--test-reporter=tap",
      `--test-concurrency=${CONCURRENCY}`,
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      ...args,
    ],
    { cwd: dir, timeoutMs, ...(env === undefined ? {} : { env }) },
  );
}

/**
 * Copies `tests/` into `dir/tests/`, transpiling `.ts` files to `.js`.
 *
 * @returns The test files, relative to `dir`, in a stable order.
 */
async function copyTests(dir: string, packageName: string): Promise<string[]> {
  const testFiles: string[] = [];
  for await (const file of walkFiles(join(ROOT, "tests"))) {
    const from = posix.join("tests", file);
    // The build scripts' own tests and the import contract: they read the
    // checkout, which the Node run, over the npm package, does not have.
    if (DENO_ONLY_TESTS.some((prefix) => from.startsWith(prefix))) continue;
    const source = join(ROOT, from);
    if (!from.endsWith(".ts") || from.endsWith(".d.ts")) {
      await copyInto(dir, from, () => Deno.copyFile(source, join(dir, from)));
      continue;
    }
    const to = from.replace(/\.ts$/, ".js");
    const code = await transpile(source, from, dir, packageName);
    await copyInto(dir, to, () => Deno.writeTextFile(join(dir, to), code));
    if (TEST_FILE.test(posix.basename(from))) testFiles.push(to);
  }
  return testFiles.sort();
}

/**
 * Data files the tests read beside them, copied to the same relative paths:
 * the shipped config schema, the example config and skill files, and the
 * pages that quote examples with those examples.
 */
const DATA_FILES = [
  "schema/mcp-config.schema.json",
  "examples/mcp.yaml",
  "examples/skill.yaml",
  // tests/cli/usage_test.ts: --version prints the version deno.json gives.
  "deno.json",
  // tests/readme_test.ts: the README and docs/ quote these examples whole.
  "README.md",
  "docs/apps.md",
  "docs/drift.md",
  "docs/models.md",
  "examples/apps_host.ts",
  "examples/models/openai_chat.ts",
  "examples/pinning.ts",
  "examples/quickstart.ts",
];

async function copyDataFiles(dir: string): Promise<void> {
  for (const file of DATA_FILES) {
    await copyInto(
      dir,
      file,
      () => Deno.copyFile(join(ROOT, file), join(dir, file)),
    );
  }
}

async function copyInto(
  dir: string,
  to: string,
  write: () => Promise<void>,
): Promise<void> {
  await Deno.mkdir(dirname(join(dir, to)), { recursive: true });
  await write();
}

/** Strips types with esbuild, then points relative `.ts` imports at `.js`. */
function transpile(
  source: string,
  from: string,
  dir: string,
  packageName: string,
): Promise<string> {
  return transpileModule(
    source,
    from,
    (specifier) => rewriteSpecifier(specifier, from, dir, packageName),
  );
}

/**
 * Maps a relative specifier of `tests/…/x.ts` for the Node run: `.ts` inside
 * `tests/` becomes `.js`; a module outside `tests/` (`../src/session.ts`,
 * `../mod.ts`) is taken from the installed package, where `deno pack` put its
 * `.js`. Other specifiers (`./fixtures/server.mjs`) are kept.
 */
function rewriteSpecifier(
  specifier: string,
  from: string,
  dir: string,
  packageName: string,
): string {
  if (!specifier.endsWith(".ts")) return specifier;
  const target = posix.join(posix.dirname(from), specifier).replace(
    /\.ts$/,
    ".js",
  );
  if (target.startsWith("tests/")) return specifier.replace(/\.ts$/, ".js");
  const inPackage = posix.join("node_modules", packageName, target);
  try {
    Deno.statSync(join(dir, inPackage));
  } catch {
    throw new Error(
      `${from} imports "${specifier}", which is neither under tests/ nor in the npm package ` +
        `(no ${inPackage}); Node tests can only reach those`,
    );
  }
  const path = posix.relative(posix.dirname(from), inPackage);
  return path.startsWith(".") ? path : `./${path}`;
}

/** Files under `dir`, as `/`-separated paths relative to it. */
async function* walkFiles(dir: string, prefix = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) yield* walkFiles(join(dir, entry.name), path);
    else if (entry.isFile) yield path;
  }
}

if (import.meta.main) {
  await exitWith(
    "test_node",
    async () => {
      const line = Deno.args.findLast((arg) => arg.startsWith("--node="));
      const nodeArgs = Deno.args.filter((arg) => !arg.startsWith("--node="));
      return await testNode(await readDenoConfig(), {
        nodeArgs,
        ...(line === undefined
          ? {}
          : { nodeLine: line.slice("--node=".length) }),
      });
    },
    TOTAL_TIMEOUT_MS,
  );
}
