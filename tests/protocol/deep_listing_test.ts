/**
 * A listing entry whose URI or name is a value nested 100,000 levels deep
 * (`{"0":{"0":…}}`, which JSON.stringify cannot write): that entry is left
 * out with a note, and the listing goes on.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import { toResource } from "../../src/protocol/resource_list.ts";
import { toPrompt } from "../../src/protocol/prompt_list.ts";

function deep(levels: number): unknown {
  return JSON.parse('{"0":'.repeat(levels) + "{}" + "}".repeat(levels));
}

it("a resource's URI or a prompt's name nested 100,000 levels deep is left out with a note", () => {
  const notes: string[] = [];
  assert.equal(
    toResource({ uri: deep(100_000) }, (n) => notes.push(n)),
    undefined,
  );
  assert.equal(
    toPrompt({ name: deep(100_000) }, (n) => notes.push(n)),
    undefined,
  );
  assert.equal(notes.length, 2);
  // Named by its kind, never written out.
  for (const note of notes) assert.match(note, / "an object" /);
  // A shallow value is still quoted as JSON.
  toResource({ uri: { a: 1 } }, (n) => notes.push(n));
  assert.match(notes[2]!, /\{\\"a\\":1\}/);
});
