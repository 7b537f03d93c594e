/**
 * `npx mcp-adapter` on a Node.js older than the package's `engines` says so
 * once, when it starts, instead of running on without a word.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MIN_NODE, nodeVersionWarning } from "../../src/cli/program.ts";

describe("the command line on an old Node.js", () => {
  it("warns below 22.12, and names how to run it on a newer one", () => {
    assert.deepEqual(MIN_NODE, [22, 12]);
    for (const version of ["20.20.2", "18.19.0", "22.11.0", "22.0.0"]) {
      const warning = nodeVersionWarning(version);
      assert.ok(warning !== undefined, version);
      assert.match(
        warning,
        new RegExp(
          `^Node\\.js ${version} is older than this package supports \\(22\\.12 or later, its "engines"\\).*npx -y -p node@22`,
        ),
      );
    }
  });

  it("says nothing on 22.12 and later, or on another runtime", () => {
    for (const version of ["22.12.0", "22.23.3", "24.1.0", "26.0.0"]) {
      assert.equal(nodeVersionWarning(version), undefined, version);
    }
    assert.equal(nodeVersionWarning(undefined), undefined);
    assert.equal(nodeVersionWarning("not a version"), undefined);
  });
});
