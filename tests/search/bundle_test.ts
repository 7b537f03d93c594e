/**
 * The `/search` entry bundles for any runtime with nothing left to load (no
 * `node:` import, no `Deno` global, no `eval`/`new Function`, no npm
 * package), and the ranker stays out of the root entry's eagerly loaded
 * chunks: a host that never searches never pays for it. Prints its size.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type Plugin, stop } from "esbuild";

/** Anything that is not our own code stays visible as an import. */
const PACKAGES_EXTERNAL: Plugin = {
  name: "packages-external",
  setup(builder) {
    builder.onResolve(
      { filter: /^[^./]/ },
      (args) => ({ path: args.path, external: true }),
    );
  },
};

const OPTIONS = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  minify: true,
  metafile: true,
  write: false,
  logLevel: "silent",
  plugins: [PACKAGES_EXTERNAL],
} satisfies BuildOptions;

/** The ranker's own modules, as source (Deno) or packed (Node). */
const RANKER = /(?:^|\/)src\/search\/(?:lexical|_[a-z_]+)\.[jt]s$/;

describe("the /search entry bundled with esbuild for platform neutral", () => {
  after(() => stop());

  it("is self-contained and runtime-neutral", async () => {
    const entry = fileURLToPath(
      import.meta.resolve("@cleveragents/mcp-adapter/search"),
    );
    const result = await build({
      ...OPTIONS,
      entryPoints: [entry],
      absWorkingDir: dirname(entry),
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    assert.deepEqual(output.imports.map((edge) => edge.path), []);
    assert.ok(
      Object.keys(result.metafile.inputs).some((input) => RANKER.test(input)),
      "the bundle holds the ranker",
    );
    const code = result.outputFiles[0]!.text;
    assert.doesNotMatch(code, /\bDeno\s*(?:\?\.|\.|\[)/);
    assert.doesNotMatch(code, /(?<![\w$.])eval(?![\w$])/);
    assert.doesNotMatch(code, /(?<![\w$.])(?:new\s+)?Function\s*\(/);
    const gzip = await new Response(
      new Blob([code]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer();
    // deno-lint-ignore no-console
    console.log(
      `bundle: /search entry ${(code.length / 1024).toFixed(1)} KiB minified, ${
        (gzip.byteLength / 1024).toFixed(1)
      } KiB gzip`,
    );
  });

  it("leaves the ranker out of the root entry's eagerly loaded chunks", async () => {
    const entry = fileURLToPath(
      import.meta.resolve("@cleveragents/mcp-adapter"),
    );
    const result = await build({
      ...OPTIONS,
      entryPoints: [entry],
      absWorkingDir: dirname(entry),
      splitting: true,
      outdir: "out",
      external: ["node:*"],
    });
    const outputs = result.metafile.outputs;
    // Lazily imported modules are entry points too: find the entry's own.
    const main = Object.keys(outputs).find((path) =>
      outputs[path]!.entryPoint === basename(entry)
    )!;
    // The main chunk and every chunk it imports statically, transitively.
    const eager = new Set<string>([main]);
    for (const path of eager) {
      for (const edge of outputs[path]!.imports) {
        if (edge.kind === "import-statement" && outputs[edge.path]) {
          eager.add(edge.path);
        }
      }
    }
    const loaded = [...eager].flatMap((path) =>
      Object.keys(outputs[path]!.inputs)
    );
    assert.ok(loaded.length > 10, `${loaded.length} modules in the root`);
    assert.deepEqual(loaded.filter((input) => RANKER.test(input)), []);
  });
});
