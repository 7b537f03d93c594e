/**
 * The root entry bundles for any runtime: esbuild, `platform: "neutral"`,
 * ESM, code splitting. The main chunk (and every chunk it imports
 * statically) must hold no `node:` import, no `Deno.` reference and no
 * `eval`/`new Function`; the stdio process backends must stay separate chunks
 * reached only through dynamic `import()`. Prints the main chunk's size.
 *
 * Under Node (`scripts/test_node.ts`) the entry is the installed npm build,
 * and esbuild finds its dependencies in `node_modules` as any bundler would.
 * There it is also bundled for `platform: "browser"`, as a browser or edge
 * app would bundle it: the package's `#stdio-process` import resolves to the
 * backend that only rejects, so the bundle has no `node:` import at all and
 * builds without marking anything external.
 * Under Deno the entry is `mod.ts`; its npm dependencies sit in Deno's cache,
 * which has no `node_modules` layout, so they are installed with npm into a
 * scratch folder first.
 *
 * @module
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, describe, it } from "node:test";
import {
  build,
  type BuildOptions,
  type Metafile,
  type OutputFile,
  type Plugin,
  stop,
} from "esbuild";
import * as rootEntry from "@cleveragents/mcp-adapter";

const PACKAGE = "@cleveragents/mcp-adapter";
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const execFileAsync = promisify(execFile);

/** Split, minified, self-contained ESM for no runtime in particular. */
const BUILD_OPTIONS = {
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  minify: true,
  metafile: true,
  write: false,
  logLevel: "silent",
  // The backends' node: imports; the checks below keep them out of main.
  external: ["node:*"],
} satisfies BuildOptions;
/** One unminified ESM file for browsers, in memory, with its metafile. */
const BROWSER_OPTIONS = {
  bundle: true,
  format: "esm",
  platform: "browser",
  write: false,
  metafile: true,
  logLevel: "silent",
} satisfies BuildOptions;
/**
 * What the root entry may load eagerly, minified and gzipped: what an edge
 * function pays at cold start. Raise it only with a reason in the commit.
 */
const BUDGET_GZIP_BYTES = 30.5 * 1024;
/** The lazily loaded stdio backends, as source (Deno) or packed (Node). */
const BACKEND = /(?:^|\/)_process\/(?:deno_host|child_process)\.[jt]s$/;

/** One output file of the bundle, with what the metafile says about it. */
interface Chunk {
  path: string;
  code: string;
  meta: Metafile["outputs"][string];
}

/** The bundle of the root entry, split and minified. */
interface RootBundle {
  /** The chunk built from the entry. */
  main: Chunk;
  /** `main` plus every chunk it imports statically, transitively. */
  eager: Chunk[];
  /** The chunks built from the stdio backends. */
  backends: Chunk[];
  all: Chunk[];
}

/**
 * Leaves npm packages that the root entry's own modules load with dynamic
 * `import()` (the MCP SDK's OAuth flow) to the user's bundler: they are
 * optional and lazily loaded, and their own dependencies may need the
 * bundler's platform conditions. The checks below only let them in as
 * dynamic imports.
 */
function lazyPackagesExternal(root: string): Plugin {
  return {
    name: "lazy-packages-external",
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        const own = args.importer.startsWith(root + sep) &&
          !/[\\/]node_modules[\\/]/.test(relative(root, args.importer));
        return own && args.kind === "dynamic-import" &&
            !args.path.startsWith("node:")
          ? { path: args.path, external: true }
          : undefined;
      });
    },
  };
}

/**
 * Installs, with npm into a scratch folder, the npm packages that the root
 * entry's own modules import statically, at the ranges `deno.json` `imports`
 * gives them.
 * A first esbuild pass with every bare import left external names them.
 *
 * @returns The scratch folder; the caller removes it.
 */
async function installDependencies(
  entry: string,
  root: string,
): Promise<string> {
  const probe = await build({
    ...BUILD_OPTIONS,
    entryPoints: [entry],
    absWorkingDir: root,
    outdir: join(root, "bundle-out"),
    minify: false,
    plugins: [{
      name: "bare-imports-external",
      setup(builder) {
        builder.onResolve(
          { filter: /^[^./]/ },
          (args) => ({ path: args.path, external: true }),
        );
      },
    }],
  });
  const specifiers = new Set(
    Object.values(probe.metafile.outputs).flatMap((output) =>
      output.imports
        .filter((edge) =>
          edge.external && edge.kind !== "dynamic-import" &&
          !edge.path.startsWith("node:")
        )
        .map((edge) => edge.path)
    ),
  );
  const config = JSON.parse(await readFile(join(root, "deno.json"), "utf8"));
  const packages = [...specifiers].map((specifier) =>
    npmPackage(specifier, config.imports ?? {})
  );
  const dir = await mkdtemp(join(tmpdir(), "mcp-adapter-bundle-test-"));
  try {
    await writeFile(join(dir, "package.json"), '{ "private": true }\n');
    await execFileAsync("npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      "--prefer-offline",
      ...new Set(packages),
    ], { cwd: dir, timeout: INSTALL_TIMEOUT_MS });
    return dir;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `name@range` for a bare specifier, from the import map's npm: target. */
function npmPackage(
  specifier: string,
  imports: Record<string, string>,
): string {
  const key = Object.keys(imports)
    .filter((key) =>
      specifier === key || (key.endsWith("/") && specifier.startsWith(key))
    )
    .sort((a, b) => b.length - a.length)[0];
  const match = key === undefined
    ? null
    : /^npm:\/?((?:@[^/@]+\/)?[^/@]+@[^/]+)/.exec(imports[key]!);
  if (!match) {
    throw new Error(
      `the root entry imports "${specifier}", which deno.json "imports" does not map to an npm: package`,
    );
  }
  return match[1]!;
}

async function bundleRootEntry(): Promise<RootBundle> {
  const entry = fileURLToPath(import.meta.resolve(PACKAGE));
  const workingDir = dirname(entry);
  // Node: the installed npm build, its dependencies beside it. Deno: mod.ts,
  // whose dependencies sit in Deno's cache, which has no node_modules layout.
  const scratch = /[\\/]node_modules[\\/]/.test(entry)
    ? undefined
    : await installDependencies(entry, workingDir);
  const result = await build({
    ...BUILD_OPTIONS,
    entryPoints: [entry],
    absWorkingDir: workingDir,
    outdir: join(workingDir, "bundle-out"),
    nodePaths: scratch === undefined ? [] : [join(scratch, "node_modules")],
    plugins: [lazyPackagesExternal(workingDir)],
  }).finally(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true });
  });
  const files = new Map<string, OutputFile>(
    result.outputFiles.map((file) => [file.path, file]),
  );
  const all = Object.entries(result.metafile.outputs)
    .filter(([path]) => path.endsWith(".js"))
    .map(([path, meta]): Chunk => {
      const file = files.get(resolve(workingDir, path));
      assert.ok(file, `esbuild wrote no file for ${path}`);
      return { path, code: file.text, meta };
    });
  const byPath = new Map(all.map((chunk) => [chunk.path, chunk]));
  const main = all.find((chunk) =>
    chunk.meta.entryPoint !== undefined &&
    resolve(workingDir, chunk.meta.entryPoint) === entry
  );
  assert.ok(
    main,
    `no output chunk has ${relative(workingDir, entry)} as entry`,
  );
  const eager: Chunk[] = [];
  const pending = [main];
  while (pending.length > 0) {
    const chunk = pending.pop()!;
    if (eager.includes(chunk)) continue;
    eager.push(chunk);
    for (const edge of chunk.meta.imports) {
      const target = byPath.get(edge.path);
      if (target && edge.kind === "import-statement") pending.push(target);
    }
  }
  const backends = all.filter((chunk) =>
    BACKEND.test(chunk.meta.entryPoint ?? "")
  );
  return { main, eager, backends, all };
}

async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return (await new Response(stream).arrayBuffer()).byteLength;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

describe("the root entry bundled with esbuild for platform neutral", () => {
  const bundled = bundleRootEntry();
  bundled.catch(() => {}); // each test awaits it and reports the failure
  after(() => stop());

  it("keeps both stdio backends as separate chunks reached only by dynamic import()", async () => {
    const { eager, backends, all } = await bundled;
    assert.deepEqual(
      backends.map((chunk) => chunk.meta.entryPoint!.replace(/^.*\//, ""))
        .sort()
        .map((name) => name.replace(/\.[jt]s$/, "")),
      ["child_process", "deno_host"],
      "expected one chunk per stdio backend; did src/transports/stdio.ts stop importing them lazily?",
    );
    for (const backend of backends) {
      assert.ok(
        !eager.includes(backend),
        `${backend.path} is imported statically by the main chunk`,
      );
      const importers = all.flatMap((chunk) =>
        chunk.meta.imports
          .filter((edge) => edge.path === backend.path)
          .map((edge) => ({ chunk, kind: edge.kind }))
      );
      assert.ok(importers.length > 0, `nothing imports ${backend.path}`);
      for (const { chunk, kind } of importers) {
        assert.equal(
          kind,
          "dynamic-import",
          `${chunk.path} imports ${backend.path} with ${kind}`,
        );
      }
      assert.ok(
        importers.some(({ chunk }) => eager.includes(chunk)),
        `the main chunk cannot reach ${backend.path}`,
      );
    }
    // The backends' own sources are nowhere in the eagerly loaded code.
    for (const chunk of eager) {
      const inputs = Object.keys(chunk.meta.inputs).filter((input) =>
        BACKEND.test(input)
      );
      assert.deepEqual(inputs, [], `${chunk.path} contains ${inputs}`);
    }
  });

  it("imports nothing from node: (or anywhere else) outside the stdio backends", async () => {
    const { eager } = await bundled;
    for (const chunk of eager) {
      const nodeImports = chunk.meta.imports
        .filter((edge) => edge.path.startsWith("node:"))
        .map((edge) => `${edge.path} (${edge.kind})`);
      assert.deepEqual(nodeImports, [], `${chunk.path} imports node: modules`);
      // Nothing else is left to resolve at load time either; lazily loaded
      // npm packages may stay dynamic import()s.
      const external = chunk.meta.imports
        .filter((edge) => edge.external && edge.kind !== "dynamic-import")
        .map((edge) => `${edge.path} (${edge.kind})`);
      assert.deepEqual(external, [], `${chunk.path} imports ${external}`);
      assert.doesNotMatch(chunk.code, /["'`]node:[\w/]+["'`]/);
    }
  });

  it("references no Deno global outside the stdio backends", async () => {
    const { eager } = await bundled;
    for (const chunk of eager) {
      const uses = chunk.code.match(/\bDeno\s*(?:\?\.|\.|\[)\s*\w*/g) ?? [];
      assert.deepEqual(uses, [], `${chunk.path} uses Deno APIs`);
    }
  });

  it("has no eval or new Function in the main chunk", async () => {
    const { eager } = await bundled;
    for (const chunk of eager) {
      // Any bare `eval` token: direct calls, `(0, eval)(…)`, `globalThis["eval"]`.
      assert.doesNotMatch(chunk.code, /(?<![\w$.])eval(?![\w$])/);
      assert.doesNotMatch(chunk.code, /(?<![\w$.])(?:new\s+)?Function\s*\(/);
    }
  });

  it("exports exactly what the root entry exports", async () => {
    const { main } = await bundled;
    assert.deepEqual(
      [...main.meta.exports].sort(),
      Object.keys(rootEntry).sort(),
    );
  });

  it("keeps the main chunk within its size budget, and reports its size", async () => {
    const { eager, backends } = await bundled;
    const lazyPackages = eager.flatMap((chunk) =>
      chunk.meta.imports.filter((edge) => edge.external).map((edge) =>
        `${edge.path} (not bundled)`
      )
    );
    const code = eager.map((chunk) => chunk.code).join("\n");
    const minified = eager.reduce((sum, chunk) => sum + chunk.meta.bytes, 0);
    const gzipped = await gzipSize(code);
    assert.ok(gzipped > 0 && gzipped < minified);
    assert.ok(
      gzipped <= BUDGET_GZIP_BYTES,
      `the root entry's eagerly loaded code is ${
        kib(gzipped)
      } gzip, over its budget of ${
        kib(BUDGET_GZIP_BYTES)
      }: load the new code lazily (with lazy() of src/util/lazy.ts, as src/validation/validation.ts loads its validator) or make room`,
    );
    const lazy = [
      ...backends.map((chunk) =>
        `${chunk.meta.entryPoint!.replace(/^.*\//, "")} ${
          kib(chunk.meta.bytes)
        }`
      ),
      ...lazyPackages,
    ].join(", ");
    // deno-lint-ignore no-console
    console.log(
      `bundle: root entry main chunk ${kib(minified)} minified, ${
        kib(gzipped)
      } gzip (${minified} / ${gzipped} bytes); lazy: ${lazy}`,
    );
  });
});

describe("the root entry of the npm package bundled for platform browser", () => {
  const entry = fileURLToPath(import.meta.resolve(PACKAGE));
  // Package conditions exist in the npm build only; Deno runs the source.
  const fromSource = !/[\\/]node_modules[\\/]/.test(entry);
  after(() => stop());

  it(
    "resolves the stdio backend to the one that rejects: no node: import, nothing external",
    {
      skip: fromSource &&
        "the npm package's conditions are checked by the Node run",
    },
    async () => {
      const workingDir = dirname(entry);
      const result = await build({
        ...BROWSER_OPTIONS,
        entryPoints: [entry],
        absWorkingDir: workingDir,
        plugins: [lazyPackagesExternal(workingDir)],
      });
      assert.deepEqual(result.warnings, []);
      const inputs = Object.keys(result.metafile.inputs);
      const backends = inputs.filter((input) => input.includes("_process/"))
        .map((input) => input.replace(/^.*_process\//, "")).sort();
      // The backend that only rejects, and the wording of a failed start;
      // never deno.js or node.js.
      assert.deepEqual(backends, ["start_error.js", "unavailable.js"]);
      const imports = Object.values(result.metafile.outputs).flatMap((output) =>
        output.imports.map((edge) => edge.path)
      );
      assert.deepEqual(
        imports.filter((path) => path.startsWith("node:")),
        [],
        "the browser bundle imports node: modules",
      );
      const code = result.outputFiles[0]!.text;
      assert.doesNotMatch(code, /["'`]node:[\w/]+["'`]/);

      // What a stdio server gets there: a clear error, at connect().
      const out = await mkdtemp(join(tmpdir(), "mcp-adapter-browser-bundle-"));
      try {
        const file = join(out, "browser.mjs");
        await writeFile(file, code);
        const bundled = await import(pathToFileURL(file).href);
        const adapter = new bundled.MCPToolAdapter({
          name: "local",
          transport: "stdio",
          command: "never-started",
        });
        await assert.rejects(
          adapter.connect({ timeoutMs: 5_000 }),
          (error: Error & { cause?: Error }) => {
            assert.equal(error.name, "MCPConnectionError");
            assert.match(error.message, /use an HTTP transport here/);
            assert.match(
              String(error.cause?.message),
              /cannot start processes/,
            );
            return true;
          },
        );
        await adapter.disconnect();
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    },
  );
});

describe("the /config entry bundled for browsers and edge runtimes", () => {
  after(() => stop());

  it("parses JSONC through jsonc-parser's ESM build, whose imports have no extensions", async () => {
    const entry = fileURLToPath(import.meta.resolve(`${PACKAGE}/config`));
    const workingDir = dirname(entry);
    const scratch = /[\\/]node_modules[\\/]/.test(entry)
      ? undefined
      : await installDependencies(entry, workingDir);
    const out = await mkdtemp(join(tmpdir(), "mcp-adapter-config-bundle-"));
    try {
      const result = await build({
        ...BROWSER_OPTIONS,
        entryPoints: [entry],
        absWorkingDir: workingDir,
        external: ["node:*"],
        nodePaths: scratch === undefined ? [] : [join(scratch, "node_modules")],
      });
      const inputs = Object.keys(result.metafile.inputs);
      assert.ok(
        inputs.some((input) => /jsonc-parser[\\/]lib[\\/]esm[\\/]/.test(input)),
        `expected jsonc-parser's ESM build in the bundle, got ${
          inputs.filter((input) => input.includes("jsonc")).join(", ")
        }`,
      );
      const file = join(out, "config.mjs");
      await writeFile(file, result.outputFiles[0]!.text);
      const bundled = await import(pathToFileURL(file).href);
      const { servers } = bundled.parseConfig(
        '{ /* VS Code style */ "servers": { "files": { "command": "npx", }, }, }',
        "json",
      );
      assert.equal(servers[0].config.command, "npx");
    } finally {
      await rm(out, { recursive: true, force: true });
      if (scratch !== undefined) await rm(scratch, { recursive: true });
    }
  });
});
