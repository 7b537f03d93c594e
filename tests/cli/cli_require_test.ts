/**
 * The `/cli` entry is a library: importing it runs nothing, and on Node,
 * where `require()` of ES modules works for modules without top-level
 * `await`, it can be required (the bin runs only as the program).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import process from "node:process";

describe("the /cli entry as a library", () => {
  it("imports without running the command line", async () => {
    const exitCode = process.exitCode;
    const cli = await import("@cleveragents/mcp-adapter/cli");
    assert.equal(typeof cli.main, "function");
    assert.equal(typeof cli.tokenStoreAuth, "function");
    assert.equal(process.exitCode, exitCode, "nothing ran");
  });

  it("require() works on Node (no top-level await in its graph)", () => {
    if ("Deno" in globalThis) {
      // Deno has no require() of packages from its import map; the Node run
      // of this file (against the packed tarball) is the check.
      return;
    }
    const require = createRequire(import.meta.url);
    const cli = require("@cleveragents/mcp-adapter/cli");
    assert.equal(typeof cli.main, "function");
  });
});
