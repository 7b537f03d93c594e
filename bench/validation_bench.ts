/**
 * Cost of checking a tool call's arguments against its `inputSchema` before
 * the call, as `MCPToolAdapter.invoke()` does: the validator from
 * `src/validation/validation.ts`, compiled once and reused (what the adapter caches per
 * tool), against the baseline of compiling it for every call (a new
 * `@cfworker/json-schema` `Validator` each time, without our pattern
 * vetting, so the baseline is the cheapest per-call compile). A third entry calls the
 * cached cfworker `Validator` directly, without our problem formatting, to
 * show what that wrapper adds.
 *
 * The schema is moderately complex: nested objects, an array of `$ref`'d
 * `$defs` items, an enum, a pattern and a format. One group validates a
 * typical valid object, the other an invalid one with four problems. A
 * third, "flat args", has the schema most tools have: an object of a few
 * typed properties, which our quick check settles in one walk over the
 * arguments (`src/validation/_fast_check.ts`); its baseline is the cached
 * cfworker `Validator`.
 *
 * Run it with `deno task bench`, or alone with
 * `deno bench -A bench/validation_bench.ts`. Deno prints, per group, how
 * many times faster or slower each entry is than the baseline; only those
 * ratios mean anything, since absolute times depend on the machine's load.
 * Deno runs the entries one after another and its ratio compares averages,
 * which a burst of load on a shared machine inflates; when the ratio looks
 * odd, compare the p75 column.
 *
 * @module
 */

import { type Schema, Validator } from "@cfworker/json-schema";
import { compileValidator } from "../src/validation/validation.ts";
import type { JsonSchema } from "../src/types.ts";

const schema: JsonSchema = {
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: {
        street: { type: "string", minLength: 1 },
        city: { type: "string", minLength: 1 },
        zip: { type: "string", pattern: "^[0-9]{5}$" },
      },
      required: ["street", "city"],
      additionalProperties: false,
    },
    item: {
      type: "object",
      properties: {
        sku: { type: "string", minLength: 1 },
        quantity: { type: "integer", minimum: 1 },
        tags: { type: "array", items: { type: "string" }, maxItems: 10 },
      },
      required: ["sku", "quantity"],
    },
  },
  properties: {
    customer: {
      type: "object",
      properties: {
        name: { type: "string" },
        email: { type: "string", format: "email" },
        address: { $ref: "#/$defs/address" },
      },
      required: ["name", "address"],
    },
    items: { type: "array", items: { $ref: "#/$defs/item" }, minItems: 1 },
    priority: { enum: ["low", "normal", "high"] },
    notes: { type: "string", maxLength: 500 },
  },
  required: ["customer", "items", "priority"],
  additionalProperties: false,
};

const valid = {
  customer: {
    name: "Ada Lovelace",
    email: "ada@example.com",
    address: { street: "12 St James's Square", city: "London", zip: "12345" },
  },
  items: [
    { sku: "A-100", quantity: 2, tags: ["fragile", "gift"] },
    { sku: "B-200", quantity: 1 },
    { sku: "C-300", quantity: 5, tags: ["bulk"] },
  ],
  priority: "high",
  notes: "Leave at the door.",
};

/** Missing `city`, a zero quantity, an unknown priority and an extra field. */
const invalid = {
  customer: {
    name: "Ada Lovelace",
    address: { street: "12 St James's Square" },
  },
  items: [{ sku: "A-100", quantity: 0 }],
  priority: "urgent",
  colour: "blue",
};

/** Most tools' schema: a few typed properties (a file reader's). */
const flatSchema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string", description: "The file to read" },
    head: { type: "integer", minimum: 1 },
    encoding: { enum: ["utf-8", "base64"] },
  },
  required: ["path"],
  additionalProperties: false,
};
const flat = { path: "notes/today.md", head: 10 };

const cached = await compileValidator(schema);
const cachedFlat = await compileValidator(flatSchema);
const cfworkerFlat = new Validator(flatSchema as Schema, "2020-12", false);
const cfworker = new Validator(schema as Schema, "2020-12", false);

// Not timed: make sure every entry sees the verdict it is meant to.
if (cached(valid) !== undefined) {
  throw new Error(`The valid arguments fail: ${cached(valid)!.join("; ")}`);
}
if (cachedFlat(flat) !== undefined || !cfworkerFlat.validate(flat).valid) {
  throw new Error("The flat arguments fail");
}
const problems = cached(invalid);
if (problems === undefined || problems.length < 4) {
  throw new Error(`Expected 4 problems, got ${JSON.stringify(problems)}`);
}

Deno.bench({
  name: "compile per call (new Validator)",
  group: "valid args",
  baseline: true,
  fn() {
    new Validator(schema as Schema, "2020-12", false).validate(valid);
  },
});

Deno.bench({
  name: "ours: compiled once (src/validation/)",
  group: "valid args",
  fn() {
    cached(valid);
  },
});

Deno.bench({
  name: "cfworker Validator.validate, compiled once",
  group: "valid args",
  fn() {
    cfworker.validate(valid);
  },
});

Deno.bench({
  name: "compile per call (new Validator)",
  group: "invalid args",
  baseline: true,
  fn() {
    new Validator(schema as Schema, "2020-12", false).validate(invalid);
  },
});

Deno.bench({
  name: "ours: compiled once (src/validation/)",
  group: "invalid args",
  fn() {
    cached(invalid);
  },
});

Deno.bench({
  name: "cfworker Validator.validate, compiled once",
  group: "invalid args",
  fn() {
    cfworker.validate(invalid);
  },
});

Deno.bench({
  name: "cfworker Validator.validate, compiled once",
  group: "flat args",
  baseline: true,
  fn() {
    cfworkerFlat.validate(flat);
  },
});

Deno.bench({
  name: "ours: compiled once (src/validation/)",
  group: "flat args",
  fn() {
    cachedFlat(flat);
  },
});
