import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outputProblem } from "../../src/validation/output.ts";
import { validatorFor } from "../../src/validation/validation.ts";

const schema = {
  type: "object",
  properties: { sum: { type: "number" }, label: { type: "string" } },
  required: ["sum", "label"],
  additionalProperties: false,
};

describe("outputProblem()", () => {
  it("accepts matching structuredContent and skips isError results", async () => {
    assert.equal(
      await outputProblem(schema, {
        structuredContent: { sum: 1, label: "x" },
      }),
      undefined,
    );
    assert.equal(
      await outputProblem(schema, { isError: true, content: [] }),
      undefined,
    );
  });

  it("names each problem by its JSON pointer", async () => {
    const problem = await outputProblem(schema, {
      structuredContent: { sum: "1", extra: true },
    });
    assert.match(problem!, /does not match its output schema/);
    assert.match(problem!, /\/sum: /);
    assert.match(problem!, /\/: .*"label"/);
    // The server's output, not the user's arguments: no "unknown argument".
    assert.match(
      problem!,
      /\/extra: unexpected property "extra" \(the output schema allows: sum, label\)/,
    );
    assert.doesNotMatch(problem!, /argument|did you mean/);
  });

  it("says when structuredContent is missing", async () => {
    assert.match(
      (await outputProblem(schema, { content: [] }))!,
      /output schema but returned no structuredContent/,
    );
  });
});

describe("validatorFor()", () => {
  it("compiles once per schema object and then answers without a promise", async () => {
    const own = structuredClone(schema);
    const first = validatorFor(own);
    assert.ok(first instanceof Promise);
    assert.equal(
      validatorFor(own),
      first,
      "concurrent first uses share one compile",
    );
    const compiled = await first;
    assert.equal(validatorFor(own), compiled);
    assert.notEqual(validatorFor(structuredClone(schema)), compiled);
  });
});
