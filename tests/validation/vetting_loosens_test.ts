import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileValidator } from "../../src/validation/validation.ts";
import { outputProblem } from "../../src/validation/output.ts";
import { vetPatterns } from "../../src/validation/_pattern_safety.ts";
import { rawToolsPeer } from "../protocol/_raw_tools.ts";

/** A pattern redos-detector cannot prove safe: it is left to the server. */
const UNSAFE = "^(a+)+$";

/** Whether the compiled validator of `schema` accepts `value`. */
async function accepts(
  schema: Record<string, unknown>,
  value: unknown,
): Promise<boolean> {
  const validate = await compileValidator(schema);
  return validate(value as Record<string, unknown>) === undefined;
}

describe("leaving a pattern to the server only loosens the local check", () => {
  it("under not: the call reaches the server instead of failing validation", async () => {
    const { adapter, calls } = await rawToolsPeer([{
      name: "t",
      inputSchema: {
        type: "object",
        properties: { a: { not: { type: "string", pattern: UNSAFE } } },
      },
    }]);
    try {
      const result = await adapter.invoke("t", { a: "hello" });
      assert.equal(result.success, true, result.error ?? "");
      assert.deepEqual(calls, [{ a: "hello" }]);
    } finally {
      await adapter.disconnect();
    }
  });

  it("in the if of if/then/else: the whole condition is left to the server", async () => {
    const schema = {
      type: "object",
      if: { properties: { kind: { pattern: UNSAFE } } },
      then: { required: ["x"] },
      else: { required: ["y"] },
      required: ["kind"],
    };
    // "b" does not match, so the full schema wants y, and has it.
    assert.ok(await accepts(schema, { kind: "b", y: 1 }));
    assert.equal(await accepts(schema, { y: 1 }), false, "required is kept");
    assert.deepEqual((await vetPatterns(schema)).schema, {
      type: "object",
      required: ["kind"],
    });
  });

  it("inside oneOf, and in a contains with maxContains", async () => {
    const oneOf = {
      oneOf: [{ type: "string", pattern: UNSAFE }, { maxLength: 3 }],
    };
    assert.ok(await accepts(oneOf, "b"), "exactly one branch matches b");
    const contains = {
      type: "array",
      contains: { type: "string", pattern: UNSAFE },
      minContains: 0,
      maxContains: 1,
      maxItems: 3,
    };
    assert.ok(await accepts(contains, ["b", "c"]), "no item matches");
    assert.equal(await accepts(contains, [1, 2, 3, 4]), false, "maxItems");
  });

  it("through a $ref: a negated use drops its not, a positive use keeps the rest of the definition", async () => {
    const schema = {
      $defs: { word: { type: "string", pattern: UNSAFE } },
      properties: {
        a: { not: { $ref: "#/$defs/word" } },
        b: { $ref: "#/$defs/word" },
      },
    };
    assert.ok(await accepts(schema, { a: "hello", b: "zzz" }));
    assert.equal(await accepts(schema, { b: 5 }), false, "b is still a string");
  });

  it("drops the unevaluatedProperties that relied on what was removed", async () => {
    const schema = {
      allOf: [{ patternProperties: { "^(a|a)*$": { type: "string" } } }],
      unevaluatedProperties: false,
    };
    // The full schema evaluates "aa" through the pattern, so allows it.
    assert.ok(await accepts(schema, { aa: "x" }));
  });

  it("drops an unevaluatedItems below that counted what a removed $ref evaluated above it", async () => {
    // FUZZ_SEED=75795204 found it. The anchor makes the root's $ref one
    // this client cannot follow, so it goes. The validator hands oneOf's
    // branches the items the parent's $ref evaluated: with the $ref, ""
    // was evaluated and passes; without it, "" would meet the branch's
    // unevaluatedItems and fail. So the branch's unevaluatedItems, and
    // with it the oneOf, go too.
    const schema = {
      oneOf: [{ unevaluatedItems: { type: "boolean" } }, false],
      $ref: "#/$defs/d0",
      $defs: {
        d0: { unevaluatedItems: true, $anchor: "d0" },
        d1: { anyOf: [{ pattern: UNSAFE }, false] },
      },
    };
    assert.ok(await accepts(schema, [""]));
  });

  it("a $ref it cannot follow goes too; with draft-07 its subschema becomes empty", async () => {
    const anchored = {
      $defs: { word: { $anchor: "word", type: "string", pattern: UNSAFE } },
      properties: { a: { not: { $ref: "#word" } } },
    };
    assert.ok(await accepts(anchored, { a: "hello" }));
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      definitions: { word: { $id: "#word", type: "string", pattern: UNSAFE } },
      properties: { a: { $ref: "#word", type: "number" } },
    };
    // $ref overrides type here: "aaa" matches the word, so it is valid.
    assert.ok(await accepts(draft7, { a: "aaa" }));
  });

  it("applies to output schemas too", async () => {
    const schema = {
      type: "object",
      properties: { a: { not: { type: "string", pattern: UNSAFE } } },
    };
    const problem = await outputProblem(schema, {
      content: [],
      structuredContent: { a: "hello" },
    });
    assert.equal(problem, undefined);
  });

  it("leaves the url format to the server, whose check backtracks catastrophically", async () => {
    const schema = {
      type: "object",
      properties: { link: { type: "string", format: "url", maxLength: 100 } },
    };
    // Each letter more doubles cfworker's time: 28 and an underscore took 5 s.
    assert.ok(await accepts(schema, { link: `http://${"a".repeat(20)}_` }));
    assert.equal(await accepts(schema, { link: "x".repeat(101) }), false);
  });
});
