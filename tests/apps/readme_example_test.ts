/**
 * The README's MCP Apps host loop is `examples/apps_host.ts` (which
 * `deno check` covers): the two stay the same code.
 *
 * @module
 */

import { it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

it("the README's MCP Apps host loop is examples/apps_host.ts", () => {
  const root = new URL("../../", import.meta.url);
  const readme = readFileSync(new URL("README.md", root), "utf8");
  const example = readFileSync(new URL("examples/apps_host.ts", root), "utf8");
  const section = readme.slice(readme.indexOf("\n## MCP Apps\n"));
  const block = section.match(/```ts\n([\s\S]*?)```/)?.[1];
  assert.ok(block, "the MCP Apps section has a ts block");
  assert.equal(block, example.slice(example.indexOf("import {")));
});
