import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileValidator } from "../../src/validation/validation.ts";
import { vetPatterns } from "../../src/validation/_pattern_safety.ts";

describe("compileValidator()", () => {
  it("checks a safe pattern locally", async () => {
    const validate = await compileValidator({
      type: "object",
      properties: { zip: { type: "string", pattern: "^[0-9]{5}$" } },
    });
    assert.equal(validate({ zip: "12345" }), undefined);
    assert.match(validate({ zip: "abc" })!.join(), /\/zip/);
  });

  it("leaves a catastrophic pattern to the server and checks every other keyword", async () => {
    const validate = await compileValidator({
      type: "object",
      properties: {
        word: { type: "string", pattern: "^(a+)+$", maxLength: 100 },
      },
    });
    // Were the pattern run, this would backtrack for hours: the test's own
    // time limit is the bound, not a clock read here.
    assert.equal(validate({ word: `${"a".repeat(40)}!` }), undefined);
    assert.ok(
      validate({ word: "a".repeat(101) }),
      "maxLength is still checked",
    );
  });

  it("rejects arguments too deep to check, and stays on for the next call", async () => {
    const validate = await compileValidator({
      type: "object",
      $defs: {
        node: { type: "object", properties: { n: { $ref: "#/$defs/node" } } },
      },
      properties: { n: { $ref: "#/$defs/node" } },
    });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { n: deep };
    assert.match(validate(deep)!.join(), /nested too deeply/);
    assert.ok(
      validate({ n: { n: 1 } }),
      "a later invalid call is still caught",
    );
    assert.equal(validate({ n: { n: {} } }), undefined);
  });

  it("accepts everything when the schema cannot be compiled, leaving it to the server", async () => {
    const validate = await compileValidator({ type: "object", properties: 5 });
    assert.equal(validate({ anything: true }), undefined);
  });
});

describe("validation messages", () => {
  it("names an unknown argument, suggests the near one and lists what the tool takes", async () => {
    const validate = await compileValidator({
      type: "object",
      properties: { operations: { type: "string" }, path: { type: "string" } },
      additionalProperties: false,
    });
    assert.deepEqual(validate({ operation: "x" }), [
      '/operation: unknown argument "operation" (did you mean "operations"?) (the tool takes: operations, path)',
    ]);
  });
});

describe("validation messages for numeric bounds", () => {
  it("say what the value must be, exclusive bounds included (all drafts)", async () => {
    const number = (bounds: Record<string, unknown>, draft04 = false) =>
      compileValidator({
        ...(draft04
          ? { $schema: "http://json-schema.org/draft-04/schema#" }
          : {}),
        type: "object",
        properties: { limit: { type: "number", ...bounds } },
      });
    const cases: [Record<string, unknown>, boolean, number, string][] = [
      [{ exclusiveMinimum: 0 }, false, 0, "/limit: 0 must be greater than 0"],
      [{ exclusiveMaximum: 5 }, false, 5, "/limit: 5 must be less than 5"],
      [{ minimum: 10 }, false, 5, "/limit: 5 must be at least 10"],
      [{ maximum: 10 }, false, 50, "/limit: 50 must be at most 10"],
      [
        { minimum: 0, exclusiveMinimum: true },
        true,
        0,
        "/limit: 0 must be greater than 0",
      ],
      [
        { maximum: 3, exclusiveMaximum: true },
        true,
        3,
        "/limit: 3 must be less than 3",
      ],
    ];
    for (const [bounds, draft04, limit, message] of cases) {
      const validate = await number(bounds, draft04);
      assert.deepEqual(validate({ limit }), [message], JSON.stringify(bounds));
    }
  });
});

describe("vetPatterns()", () => {
  it("keeps safe patterns and the schema object itself when nothing is removed", async () => {
    const schema = {
      type: "object",
      properties: {
        code: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" },
        name: { type: "string", pattern: "^[a-z]{2,8}$" },
      },
    };
    const vetted = await vetPatterns(schema);
    assert.equal(vetted.schema, schema);
    assert.deepEqual(vetted.removed, []);
  });

  it("drops an unsafe pattern without touching the input", async () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string", pattern: "(x+x+)+y" } },
    };
    const vetted = await vetPatterns(schema);
    assert.deepEqual(vetted.removed, ["(x+x+)+y"]);
    assert.deepEqual(vetted.schema, {
      type: "object",
      properties: { a: { type: "string" } },
    });
    assert.equal(schema.properties.a.pattern, "(x+x+)+y");
  });

  it("drops patternProperties with an unsafe key together with additionalProperties, so the check only loosens", async () => {
    const vetted = await vetPatterns({
      type: "object",
      patternProperties: { "^(a|a)*$": { type: "number" } },
      additionalProperties: false,
    });
    assert.deepEqual(vetted.schema, { type: "object" });
  });

  it("treats a pattern inside const, enum, default or examples as data", async () => {
    const schema = {
      type: "object",
      default: { pattern: "^(a+)+$" },
      examples: [{ pattern: "^(a+)+$" }],
    };
    assert.equal((await vetPatterns(schema)).schema, schema);
  });
});
