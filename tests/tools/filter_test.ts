import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  applyToolFilter,
  compileToolFilter,
  MCPConfigError,
  type MCPToolFilter,
} from "@cleveragents/mcp-adapter";

const NAMES = ["echo", "get_sum", "get_user", "delete_user", "a.b"];

function kept(filter?: MCPToolFilter): string[] {
  return NAMES.filter(compileToolFilter(filter));
}

function assertConfigError(
  filter: unknown,
  field: string,
  message: string,
): void {
  assert.throws(
    () => compileToolFilter(filter as MCPToolFilter),
    (error: unknown) => {
      assert.ok(error instanceof MCPConfigError);
      assert.equal(error.field, field);
      assert.equal(error.message, message);
      return true;
    },
  );
}

describe("compileToolFilter()", () => {
  it("keeps every tool without a filter", () => {
    assert.deepEqual(kept(), NAMES);
    assert.deepEqual(kept({}), NAMES);
  });

  it("keeps only the tools named in include", () => {
    assert.deepEqual(kept({ include: ["echo", "a.b"] }), ["echo", "a.b"]);
  });

  it("keeps no tool when include is empty", () => {
    assert.deepEqual(kept({ include: [] }), []);
  });

  it("drops the tools named in exclude", () => {
    assert.deepEqual(kept({ exclude: ["echo", "get_sum"] }), [
      "get_user",
      "delete_user",
      "a.b",
    ]);
  });

  it("keeps every tool when exclude is empty", () => {
    assert.deepEqual(kept({ exclude: [] }), NAMES);
  });

  it("lets exclude win over include", () => {
    assert.deepEqual(
      kept({ include: ["echo", "get_*"], exclude: ["get_user", "echo"] }),
      ["get_sum"],
    );
  });

  it("matches globs where * is any run of characters, including none", () => {
    assert.deepEqual(kept({ include: ["get_*"] }), ["get_sum", "get_user"]);
    assert.deepEqual(kept({ include: ["*_user"] }), [
      "get_user",
      "delete_user",
    ]);
    assert.deepEqual(kept({ include: ["*"] }), NAMES);
    assert.deepEqual(kept({ include: ["ec*ho"] }), ["echo"]);
    assert.deepEqual(kept({ include: ["e**o"] }), ["echo"]);
    assert.deepEqual(kept({ exclude: ["*_*"] }), ["echo", "a.b"]);
  });

  it("matches whole names only", () => {
    assert.deepEqual(kept({ include: ["get"] }), []);
    assert.deepEqual(kept({ include: ["cho"] }), []);
    assert.deepEqual(kept({ include: ["get_"] }), []);
  });

  it("treats regular-expression characters in patterns literally", () => {
    const keep = compileToolFilter({ include: ["a.b", "x+*", "(y)|z", "[q]"] });
    assert.equal(keep("a.b"), true);
    assert.equal(keep("aXb"), false);
    assert.equal(keep("x+1"), true);
    assert.equal(keep("xx"), false);
    assert.equal(keep("(y)|z"), true);
    assert.equal(keep("y"), false);
    assert.equal(keep("z"), false);
    assert.equal(keep("[q]"), true);
    assert.equal(keep("q"), false);
  });

  it("does not treat ? as a wildcard", () => {
    const keep = compileToolFilter({ include: ["a?b"] });
    assert.equal(keep("a.b"), false);
    assert.equal(keep("aXb"), false);
    assert.equal(keep("ab"), false);
    assert.equal(keep("a?b"), true);
  });

  it("matches names across slashes and line breaks", () => {
    const keep = compileToolFilter({ include: ["ns/*"] });
    assert.equal(keep("ns/a/b"), true);
    assert.equal(keep("ns/a\nb"), true);
    assert.equal(keep("other/a"), false);
  });

  it("rejects a string where a list belongs, and says how to write it", () => {
    assertConfigError(
      { include: "echo" },
      "filter.include",
      'filter.include must be an array of tool names or "*" globs, got "echo"; write ["echo"]',
    );
    assertConfigError(
      { exclude: "get_*" },
      "filter.exclude",
      'filter.exclude must be an array of tool names or "*" globs, got "get_*"; write ["get_*"]',
    );
  });

  it("rejects null lists and explains both meanings", () => {
    assertConfigError(
      { include: null },
      "filter.include",
      'filter.include must be an array of tool names or "*" globs, got null; write [] to keep no tool, or leave include out to keep every tool',
    );
    assertConfigError(
      { exclude: null },
      "filter.exclude",
      'filter.exclude must be an array of tool names or "*" globs, got null; write [] or leave exclude out to drop no tool',
    );
  });

  it("rejects other non-list values", () => {
    assertConfigError(
      { include: { echo: true } },
      "filter.include",
      'filter.include must be an array of tool names or "*" globs, got {"echo":true}; write a list such as ["echo", "get_*"]',
    );
  });

  it("rejects a non-string entry and names its index", () => {
    assertConfigError(
      { include: ["echo", 42] },
      "filter.include",
      'filter.include must be an array of tool names or "*" globs, got 42 at index 1; write it as a string: "42"',
    );
    assertConfigError(
      { exclude: [["echo"]] },
      "filter.exclude",
      'filter.exclude must be an array of tool names or "*" globs, got ["echo"] at index 0; write each entry as a string such as "echo" or "get_*"',
    );
  });

  it("rejects an empty-string entry", () => {
    assertConfigError(
      { exclude: [""] },
      "filter.exclude",
      'filter.exclude must be an array of tool names or "*" globs, got an empty string at index 0, which matches no tool; write a tool name or a "*" glob',
    );
  });

  it("shortens a long bad value in the message", () => {
    const long = "x".repeat(500);
    assert.throws(
      () => compileToolFilter({ include: long } as unknown as MCPToolFilter),
      (error: unknown) => {
        assert.ok(error instanceof MCPConfigError);
        assert.ok(error.message.length < 300, `${error.message.length}`);
        assert.match(error.message, /got "x+…; write/);
        return true;
      },
    );
  });

  it("rejects a filter that is not an object", () => {
    assertConfigError(
      ["echo"],
      "filter",
      'filter must be an object with include and/or exclude lists, got ["echo"]; write { include: ["tool_name", "get_*"] } or leave it out to keep every tool',
    );
    assertConfigError(
      null,
      "filter",
      'filter must be an object with include and/or exclude lists, got null; write { include: ["tool_name", "get_*"] } or leave it out to keep every tool',
    );
  });

  it("rejects an unknown key in the filter", () => {
    assertConfigError(
      { includes: ["echo"] },
      "filter",
      'filter has an unknown key "includes"; write include and/or exclude',
    );
  });
});

describe("applyToolFilter()", () => {
  const tools = NAMES.map((name, index) => ({ name, index }));

  it("returns the kept tools in their original order", () => {
    const result = applyToolFilter(tools, {
      include: ["a.b", "get_*", "echo"],
    });
    assert.deepEqual(result.map((tool) => tool.index), [0, 1, 2, 4]);
    assert.equal(result[0], tools[0]);
  });

  it("returns a new array and leaves the input alone", () => {
    const all = applyToolFilter(tools);
    assert.notEqual(all, tools);
    assert.deepEqual(all, tools);
    applyToolFilter(tools, { exclude: ["*"] });
    assert.equal(tools.length, NAMES.length);
  });

  it("throws the same errors as compileToolFilter()", () => {
    assert.throws(
      () =>
        applyToolFilter(tools, { exclude: "echo" } as unknown as MCPToolFilter),
      { name: "MCPConfigError", field: "filter.exclude" },
    );
  });
});
