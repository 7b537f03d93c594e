/**
 * The README quotes whole example programs; CI type-checks the examples, and
 * this keeps each quote identical to its file. Deno only: the Node run
 * (`scripts/test_node.ts`) copies the tests, not the README.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const ROOT = new URL("../", import.meta.url);

it(
  "the README's copy of examples/pinning.ts is the file, from its imports on",
  {
    skip: !("Deno" in globalThis),
  },
  async () => {
    const readme = await readFile(new URL("README.md", ROOT), "utf8");
    const example = await readFile(
      new URL("examples/pinning.ts", ROOT),
      "utf8",
    );
    const body = example.slice(example.indexOf("import "));
    const section = readme.slice(readme.indexOf("## Tool drift and pinning"));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    assert.equal(block, body);
  },
);
