/**
 * The `/models` entry bundles for any runtime with nothing left to load: no
 * `node:` import, no `Deno` global, no `eval`/`new Function`, and no npm
 * package (no provider SDK in particular). Prints its size.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build, stop } from "esbuild";

describe("the /models entry bundled with esbuild for platform neutral", () => {
  after(() => stop());

  it("is self-contained and runtime-neutral", async () => {
    const entry = fileURLToPath(
      import.meta.resolve("@cleveragents/mcp-adapter/models"),
    );
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: dirname(entry),
      bundle: true,
      format: "esm",
      platform: "neutral",
      minify: true,
      metafile: true,
      write: false,
      logLevel: "silent",
      // Anything that is not our own code stays visible as an import.
      plugins: [{
        name: "packages-external",
        setup(builder) {
          builder.onResolve(
            { filter: /^[^./]/ },
            (args) => ({ path: args.path, external: true }),
          );
        },
      }],
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    assert.deepEqual(output.imports.map((edge) => edge.path), []);
    const code = result.outputFiles[0]!.text;
    assert.doesNotMatch(code, /\bDeno\s*(?:\?\.|\.|\[)/);
    assert.doesNotMatch(code, /(?<![\w$.])eval(?![\w$])/);
    assert.doesNotMatch(code, /(?<![\w$.])(?:new\s+)?Function\s*\(/);
    // deno-lint-ignore no-console
    console.log(
      `bundle: /models entry ${(code.length / 1024).toFixed(1)} KiB minified`,
    );
  });
});
