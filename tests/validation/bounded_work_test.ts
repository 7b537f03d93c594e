import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileValidator } from "../../src/validation/validation.ts";
import { MAX_UNIQUE_ITEMS_WORK } from "../../src/validation/_validator.ts";

const tagsSchema = {
  type: "object",
  properties: { tags: { type: "array", uniqueItems: true } },
};

describe("validation work is bounded", () => {
  it("checks uniqueItems below its bound", async () => {
    const validate = await compileValidator(tagsSchema);
    assert.match(validate({ tags: [1, 2, 1] })!.join(), /Duplicate items/);
    // n numbers cost n·n: just under the bound, still checked here.
    const n = Math.floor(Math.sqrt(MAX_UNIQUE_ITEMS_WORK));
    const list = Array.from({ length: n }, (_, i) => i);
    list[n - 1] = 0;
    assert.match(validate({ tags: list })!.join(), /Duplicate items/);
  });

  it("leaves uniqueItems to the server above its bound, and checks the rest", async () => {
    const validate = await compileValidator({
      type: "object",
      properties: {
        rows: {
          type: "array",
          uniqueItems: true,
          items: { type: "object", required: ["id"] },
        },
      },
    });
    // 5,000 objects: the validator's pairwise comparison took 2 s here.
    const rows = Array.from({ length: 5_000 }, (_, id) => ({ id, name: "x" }));
    rows.push({ id: 0, name: "x" });
    assert.equal(
      validate({ rows }),
      undefined,
      "the duplicate is the server's to find",
    );
    rows.push({} as { id: number; name: string });
    assert.match(
      validate({ rows })!.join(),
      /\/rows\/5001: .*required property "id"/,
    );
  });

  it("lists at most 50 problems and counts the rest, however many items fail", async () => {
    const validate = await compileValidator({
      type: "object",
      properties: { list: { type: "array", items: { type: "string" } } },
    });
    const problems = validate({
      list: Array.from({ length: 3_000 }, () => 1),
    })!;
    assert.equal(problems.length, 51);
    assert.match(problems[0]!, /^\/list\/0: Instance type "number" is invalid/);
    assert.equal(problems[50], "and 2950 more problems");
  });
});

describe("validation messages stay short", () => {
  it("quotes a 20,000-entry enum in part, and lists at most 30 property names", async () => {
    const { compileValidator } = await import(
      "../../src/validation/validation.ts"
    );
    const values = Array.from({ length: 20_000 }, (_, i) => `value-${i}`);
    const validate = await compileValidator({
      type: "object",
      properties: { pick: { enum: values } },
    });
    const [problem] = validate({ pick: "nope" })!;
    assert.ok(problem!.length < 400, `${problem!.length} characters`);
    assert.match(problem!, /^\/pick: .+… \(\d+ more characters\)$/);
    const properties = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`field${i}`, { type: "string" }]),
    );
    const closed = await compileValidator({
      type: "object",
      properties,
      additionalProperties: false,
    });
    const [unknown] = closed({ field7x: "a" })!;
    assert.match(unknown!, /did you mean "field7"/);
    assert.match(unknown!, /field29, … \(100 in all\)\)$/);
  });
});
