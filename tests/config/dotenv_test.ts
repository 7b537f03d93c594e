import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseDotenv } from "../../src/config/_dotenv.ts";

describe("parseDotenv()", () => {
  it("reads NAME=value lines, export, comments and blank lines", () => {
    assert.deepEqual(
      parseDotenv(
        [
          "# a comment",
          "",
          "PLAIN=value",
          "export EXPORTED=yes",
          "  SPACED  =  padded value  ",
          "EMPTY=",
          "HASH=before#after",
          "INLINE=value # comment",
          "dotted.name-x=1",
        ].join("\n"),
      ),
      {
        values: {
          PLAIN: "value",
          EXPORTED: "yes",
          SPACED: "padded value",
          EMPTY: "",
          HASH: "before",
          INLINE: "value",
          "dotted.name-x": "1",
        },
        problems: [],
      },
    );
  });

  it("reads quoted values: escapes in double quotes only, lines inside quotes, # inside quotes", () => {
    const { values, problems } = parseDotenv(
      [
        'DOUBLE="a\\nb\\tc \\"q\\" \\\\ \\x"',
        "SINGLE='a\\nb # not a comment'",
        'BACKTICK=`it\'s "mixed"`',
        'MULTI="line one',
        'line two" # comment',
        "AFTER=1",
      ].join("\r\n"),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(values, {
      DOUBLE: 'a\nb\tc "q" \\ \\x',
      SINGLE: "a\\nb # not a comment",
      BACKTICK: `it's "mixed"`,
      MULTI: "line one\nline two",
      AFTER: "1",
    });
  });

  it("lets a later line win, and keeps __proto__ an ordinary key", () => {
    const { values } = parseDotenv("A=1\nA=2\n__proto__=x\n");
    assert.equal(values.A, "2");
    assert.ok(Object.hasOwn(values, "__proto__"));
    assert.equal(Object.getPrototypeOf(values), Object.prototype);
  });

  it("reports malformed lines by number, without their text, and reads the rest", () => {
    const { values, problems } = parseDotenv(
      [
        "GOOD=1",
        "SECRET-WITHOUT-EQUALS",
        "BAD NAME=x",
        'TRAILING="quoted" SECRET-rest',
        "ALSO_GOOD=2",
        "OPEN='never closed",
        "LOST=3",
      ].join("\n"),
    );
    assert.deepEqual(values, { GOOD: "1", ALSO_GOOD: "2" });
    assert.deepEqual(problems, [
      { line: 2, detail: 'expected NAME=value, got a line without "="' },
      {
        line: 3,
        detail:
          "expected NAME=value, where NAME is letters, digits, _, . and -",
      },
      {
        line: 4,
        detail:
          'the value of TRAILING has text after its closing " quote; put all of it inside the quotes',
      },
      {
        line: 6,
        detail: "the value of OPEN opens a ' quote that is never closed",
      },
    ]);
    assert.doesNotMatch(JSON.stringify(problems), /SECRET/);
  });

  it("counts lines across multi-line values and skips a byte-order mark", () => {
    const { values, problems } = parseDotenv(
      '\uFEFFA="1\n2\n3"\nnot a line\n',
    );
    assert.deepEqual(values, { A: "1\n2\n3" });
    assert.deepEqual(problems.map((problem) => problem.line), [4]);
  });
});
