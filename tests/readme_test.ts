/**
 * The README and the pages of `docs/` quote whole example programs; CI
 * type-checks and runs the examples, and this keeps each quote identical to
 * its file, from the file's first import on. A quote is the first `ts` code
 * block after the page's link to its file. The Node run
 * (`scripts/test_node.ts`) copies the pages and the examples for it.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const ROOT = new URL("../", import.meta.url);

/** Each quote: the page, and the example as the page links it. */
const QUOTES: readonly { page: string; link: string }[] = [
  { page: "README.md", link: "examples/quickstart.ts" },
  { page: "docs/models.md", link: "../examples/models/openai_chat.ts" },
  { page: "docs/apps.md", link: "../examples/apps_host.ts" },
  { page: "docs/drift.md", link: "../examples/pinning.ts" },
];

/** The body of the first `ts` block (`ts ignore` too) after `link`. */
function quoteAfter(text: string, link: string): string | undefined {
  const at = text.indexOf(`](${link})`);
  if (at === -1) return undefined;
  return /```ts(?: ignore)?\n([\s\S]*?)```/.exec(text.slice(at))?.[1];
}

describe("the docs' copies of the examples", () => {
  for (const { page, link } of QUOTES) {
    const file = new URL(link, new URL(page, ROOT));
    it(`${page} quotes ${link} as it is, from its imports on`, async () => {
      const text = await readFile(new URL(page, ROOT), "utf8");
      const example = await readFile(file, "utf8");
      const quote = quoteAfter(text, link);
      assert.ok(quote, `${page} links ${link} and quotes it below the link`);
      assert.equal(quote, example.slice(example.indexOf("import ")));
    });
  }
});
