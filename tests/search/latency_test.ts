/**
 * The lexical ranker stays fast on a catalog larger than the benchmark's
 * (2,000 tools, every word common). Measured in CPU time, which a busy
 * machine does not stretch as it stretches the clock, against bounds about
 * far above what it takes (0.2 ms a search once compiled): an accidental
 * pass over the whole catalog per term fails, a slow machine does not.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  createLexicalRanker,
  type ToolSearchEntry,
} from "@cleveragents/mcp-adapter/search";

const WORDS = (
  "get list create delete update search run stop send move copy issue " +
  "branch file folder page user repository pull request merge comment flag " +
  "table row column chart image message channel task project pipeline " +
  "deploy environment secret token query index record event calendar " +
  "workspace dashboard alert metric trace log span release commit tag " +
  "invoice customer subscription price product order payment refund"
).split(" ");

function catalog(size: number): ToolSearchEntry[] {
  let seed = 7;
  const next = () =>
    (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)])
      .join(" ");
  return Array.from({ length: size }, (_, i) => {
    const properties: Record<string, unknown> = {};
    for (let p = 0; p < 6; p++) {
      properties[`${words(1)}_${words(1)}`] = {
        type: "string",
        description: words(12),
      };
    }
    const server = `server${i % 60}`;
    return {
      id: `${server}/tool_${i}`,
      server,
      name: `${words(2).replace(" ", "_")}_${i}`,
      description: words(40),
      inputSchema: { type: "object", properties },
    };
  });
}

describe("the lexical ranker over 2,000 tools", () => {
  it("builds in under 5 s and answers 200 searches in under 2 s of CPU", () => {
    const entries = catalog(2_000);
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const { user, system } = process.cpuUsage(since);
      return (user + system) / 1_000;
    };
    let started = process.cpuUsage();
    const ranker = createLexicalRanker();
    ranker.add(entries);
    const buildMs = cpuMs(started);
    assert.ok(buildMs < 5_000, `build took ${buildMs.toFixed(0)} ms of CPU`);

    const queries = Array.from(
      { length: 260 },
      (_, i) =>
        `${WORDS[i % WORDS.length]} the ${
          WORDS[(i * 7) % WORDS.length]
        } of my ${WORDS[(i * 13) % WORDS.length]}`,
    );
    // The first queries compile the search; a host pays that once.
    for (const query of queries.slice(0, 60)) ranker.search(query, { k: 5 });
    started = process.cpuUsage();
    for (const query of queries.slice(60)) {
      assert.equal(ranker.search(query, { k: 5 }).length, 5);
    }
    const searchMs = cpuMs(started);
    assert.ok(
      searchMs < 2_000,
      `200 searches took ${searchMs.toFixed(0)} ms of CPU`,
    );
    // deno-lint-ignore no-console
    console.log(
      `search: 2,000 tools built in ${buildMs.toFixed(0)} ms of CPU; ` +
        `200 searches in ${searchMs.toFixed(0)} ms of CPU`,
    );
  });
});
