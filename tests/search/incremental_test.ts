/**
 * The lexical ranker kept current by adds and removes answers exactly as one
 * built afresh from the same tools: the catalog updates it on every
 * `list_changed` instead of rebuilding it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  createLexicalRanker,
  type ToolSearchEntry,
} from "@cleveragents/mcp-adapter/search";
import { LexicalIndex } from "../../src/search/_index.ts";
import { DEFAULT_TUNING } from "../../src/search/lexical.ts";

const WORDS = (
  "get list create delete update search run stop send move copy issue " +
  "branch file folder page user repo pull request merge comment flag " +
  "table row column chart image message channel task project pipeline " +
  "deploy environment secret token query index record event calendar"
).split(" ");
const SERVERS = ["github", "gitlab", "files", "chat", "db", "calendar"];

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function phrase(next: () => number, words: number): string {
  return Array.from(
    { length: words },
    () => WORDS[Math.floor(next() * WORDS.length)],
  ).join(" ");
}

/** Tool `i` in version `version`: the same id, other text. */
function entry(
  next: () => number,
  i: number,
  version: number,
): ToolSearchEntry {
  const server = SERVERS[i % SERVERS.length]!;
  const name = `${phrase(next, 2).replace(" ", "_")}_${i}`;
  return {
    id: `${server}/tool_${i}`,
    server,
    name: version === 0 ? name : `${name}_v${version}`,
    description: phrase(next, 3 + Math.floor(next() * 12)),
    inputSchema: {
      type: "object",
      properties: {
        [phrase(next, 1)]: { type: "string", description: phrase(next, 4) },
      },
    },
  };
}

describe("a lexical ranker updated by add() and remove()", () => {
  for (const seed of [1, 2, 3]) {
    it(`answers as one built afresh from its final tools (seed ${seed})`, () => {
      const next = random(seed);
      const incremental = createLexicalRanker();
      // Searches between updates, as a host's are: nothing cached by one
      // may survive the next update.
      const browse = () => {
        for (let q = 0; q < 3; q++) {
          incremental.search(phrase(next, 3), { k: 5 });
        }
      };
      const latest = new Map<string, ToolSearchEntry>();
      // 300 tools added in batches, a third removed, a third replaced with
      // new text, some removed and added back: the catalog's life.
      for (let i = 0; i < 300; i += 25) {
        const batch = Array.from(
          { length: 25 },
          (_, j) => entry(next, i + j, 0),
        );
        incremental.add(batch);
        for (const tool of batch) latest.set(tool.id, tool);
        browse();
      }
      const ids = [...latest.keys()];
      const removed = ids.filter(() => next() < 0.33);
      incremental.remove(removed);
      for (const id of removed) latest.delete(id);
      browse();
      for (const id of ids.filter(() => next() < 0.33)) {
        const i = Number(id.split("_").at(-1));
        const tool = entry(next, i, 1 + Math.floor(next() * 3));
        incremental.add([tool]);
        latest.set(tool.id, tool);
      }
      const back = removed.filter(() => next() < 0.5).map((id) =>
        entry(next, Number(id.split("_").at(-1)), 0)
      );
      incremental.add(back);
      for (const tool of back) latest.set(tool.id, tool);
      browse();
      // A server that goes away altogether, then the last few changes.
      const gone = [...latest.keys()].filter((id) =>
        id.startsWith("calendar/")
      );
      incremental.remove(gone);
      for (const id of gone) latest.delete(id);
      browse();
      const last = [...latest.keys()].filter(() => next() < 0.1);
      incremental.remove([...last, "never/added"]);
      for (const id of last) latest.delete(id);

      const fresh = createLexicalRanker();
      fresh.add([...latest.values()].sort(() => next() - 0.5));
      assert.ok(latest.size > 150 && latest.size < 300, `${latest.size} tools`);
      for (let q = 0; q < 100; q++) {
        const query = phrase(next, 1 + Math.floor(next() * 6));
        const accept = q % 3 === 0
          ? (id: string) => !id.startsWith("gitlab/")
          : undefined;
        const a = incremental.search(query, { k: 10, accept });
        const b = fresh.search(query, { k: 10, accept });
        assert.deepEqual(a, b, `query "${query}"`);
        if (q === 0) assert.ok(a.length > 0, "the queries find tools");
      }
    });
  }

  it("forgets a removed tool's words: a term only it had finds nothing", () => {
    const ranker = createLexicalRanker();
    ranker.add([
      { id: "a/x", server: "a", name: "x", description: "zanzibar report" },
      { id: "a/y", server: "a", name: "y", description: "report" },
    ]);
    ranker.remove(["a/x"]);
    assert.deepEqual(ranker.search("zanzibar", { k: 5 }), []);
    assert.deepEqual(ranker.search("report", { k: 5 }).map((hit) => hit.id), [
      "a/y",
    ]);
    ranker.remove(["a/y"]);
    assert.deepEqual(ranker.search("report", { k: 5 }), []);
  });
});

describe("a lexical index whose tools come and go with new words", () => {
  it("releases the words no tool uses any more: its terms stay bounded", () => {
    const index = new LexicalIndex(DEFAULT_TUNING, new Map());
    const word = (i: number, j: number) =>
      `w${
        (i * 1_000 + j).toString(36).replace(/\d/g, (d) => "qrstuvwxyz"[+d]!)
      }`;
    let peak = 0;
    for (let i = 0; i < 300; i++) {
      index.remove([`s/tool${i - 1}`]);
      index.add([{
        id: `s/tool${i}`,
        server: "s",
        name: `tool${i}`,
        description: Array.from({ length: 100 }, (_, j) => word(i, j)).join(
          " ",
        ),
      }]);
      peak = Math.max(peak, index.termCount);
    }
    // 30,000 words have passed through; at most the unused allowance and
    // the live tool's words are held.
    assert.ok(peak < 4_096 + 300, `${peak} terms held`);
    assert.deepEqual(index.search(word(299, 7), 5).map((hit) => hit.id), [
      "s/tool299",
    ]);
    assert.deepEqual(index.search(word(3, 7), 5), []);
  });
});
