/**
 * Every field of a tool but its id comes from a server: the lexical ranker
 * reads it with bounds, and one hostile tool never takes the others down.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  createLexicalRanker,
  type ToolSearchEntry,
} from "@cleveragents/mcp-adapter/search";

const GOOD: ToolSearchEntry = {
  id: "files/delete_file",
  server: "files",
  name: "delete_file",
  description: "Deletes a file.",
};

function ranker(...entries: unknown[]) {
  const ranker = createLexicalRanker();
  ranker.add([GOOD, ...entries as ToolSearchEntry[]]);
  return ranker;
}

function found(ranker: ReturnType<typeof createLexicalRanker>, query: string) {
  return ranker.search(query, { k: 5 }).map((hit) => hit.id);
}

/** `i` in letters only ("aaaa", "aaab", …): a digit would split a word. */
function letters(i: number): string {
  return Array.from(
    { length: 4 },
    (_, place) =>
      String.fromCharCode(97 + Math.floor(i / 26 ** (3 - place)) % 26),
  ).join("");
}

/** A schema nested `depth` levels deep, built without recursion. */
function deepSchema(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = {
    type: "object",
    properties: { bottomparameter: { type: "string" } },
  };
  for (let i = 0; i < depth; i++) {
    node = { type: "object", properties: { [`level${letters(i)}`]: node } };
  }
  return node;
}

describe("a hostile tool", () => {
  it("with a schema 20,000 levels deep is indexed to the depth bound only", () => {
    const index = ranker({
      id: "deep/tool",
      server: "deep",
      name: "deep_tool",
      inputSchema: deepSchema(20_000),
    });
    assert.deepEqual(found(index, "deep tool"), ["deep/tool"]);
    assert.deepEqual(found(index, `level${letters(19_999)}`), ["deep/tool"]);
    assert.deepEqual(found(index, "bottomparameter"), []);
    assert.deepEqual(found(index, "delete the file"), ["files/delete_file"]);
    // Parameters nested a few levels down are plumbing, not what it does.
    const shallow = ranker({
      id: "nested/tool",
      server: "nested",
      name: "nested_tool",
      inputSchema: deepSchema(4),
    });
    assert.deepEqual(found(shallow, `level${letters(3)}`), ["nested/tool"]);
    assert.deepEqual(found(shallow, `level${letters(1)}`), ["nested/tool"]);
    assert.deepEqual(found(shallow, `level${letters(0)}`), []);
    assert.deepEqual(found(shallow, "bottomparameter"), []);
  });

  it("with a 1 MB description is read to the length bound only", () => {
    const index = ranker({
      id: "big/tool",
      server: "big",
      name: "big_tool",
      description: `frontword ${"filler ".repeat(150_000)} tailword`,
    });
    assert.deepEqual(found(index, "frontword"), ["big/tool"]);
    assert.deepEqual(found(index, "tailword"), []);
  });

  it("with 100,000 parameters is read to the count bound only", () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) {
      properties[`param${letters(i)}`] = { type: "string" };
    }
    const index = ranker({
      id: "wide/tool",
      server: "wide",
      name: "wide_tool",
      inputSchema: { type: "object", properties },
    });
    assert.deepEqual(found(index, `param${letters(0)}`), ["wide/tool"]);
    assert.deepEqual(found(index, `param${letters(99_999)}`), []);
  });

  it("with odd Unicode is found by its words, and odd queries answer", () => {
    const index = ranker({
      id: "odd/tool",
      server: "odd",
      name: "\u202ereport\u202c_\u200dmaker\ud800",
      title: "Ｃａｆé\u0000 ﬁnder 🧨",
      description: "e\u0301\u0301\u0301 \uFEFFsummary\uDC00",
    });
    assert.deepEqual(found(index, "report maker"), ["odd/tool"]);
    assert.deepEqual(found(index, "cafe finder"), ["odd/tool"]);
    assert.deepEqual(found(index, "summary"), ["odd/tool"]);
    assert.deepEqual(found(index, "\ud800\u0000\u202e"), []);
    assert.deepEqual(found(index, `${"🧨".repeat(500_000)} delete file`), []);
    // A very long query is read to its bound: its first words still count.
    assert.deepEqual(
      found(index, `delete file ${"x".repeat(1_000_000)}`)[0],
      "files/delete_file",
    );
  });

  it("with fields of the wrong kind, or none, is skipped or read as far as it is text", () => {
    const index = ranker(
      null,
      42,
      { id: 7, name: "numeric_id" },
      {
        id: "bad/kinds",
        server: ["x"],
        name: 42,
        title: { toString: () => "title" },
        description: "Archives a mailbox.",
        inputSchema: "not a schema",
        annotations: { title: 9 },
      },
      { id: "bad/items", name: "t", inputSchema: { items: [1, 2], anyOf: 3 } },
    );
    assert.deepEqual(found(index, "archive the mailbox"), ["bad/kinds"]);
    assert.deepEqual(found(index, "numeric id"), []);
    assert.deepEqual(found(index, "delete the file"), ["files/delete_file"]);
  });

  it("whose getters throw is left out, and the others stay", () => {
    const hostile = {
      id: "evil/tool",
      server: "evil",
      name: "evil_gadget",
      get description(): string {
        throw new Error("boom");
      },
    };
    const index = ranker(hostile, {
      id: "after/tool",
      server: "after",
      name: "after_tool",
    });
    assert.deepEqual(found(index, "evil gadget"), []);
    assert.deepEqual(found(index, "after tool"), ["after/tool"]);
    assert.deepEqual(found(index, "delete the file"), ["files/delete_file"]);
  });

  it("with parameters named __proto__ or constructor pollutes nothing", () => {
    const properties = JSON.parse(
      '{"__proto__": {"type": "string", "polluted": true}, "constructor": {"type": "string"}, "toString": {"type": "string"}}',
    );
    const index = ranker({
      id: "proto/tool",
      server: "proto",
      name: "proto_tool",
      inputSchema: { type: "object", properties },
    });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(found(index, "constructor"), ["proto/tool"]);
    assert.deepEqual(found(index, "tostring"), ["proto/tool"]);
    // Words that are Object.prototype's names are terms like any other.
    assert.deepEqual(found(index, "hasOwnProperty valueOf"), []);
  });
});
