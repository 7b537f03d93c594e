/**
 * Properties of argument validation, against `@cfworker/json-schema` on the
 * schema as the server sent it (the reference), over random schemas (every
 * applicator, `$ref`s into `$defs`, anchors, draft-07) and random small
 * instances:
 *
 * - what `loosen()` leaves of a schema, with any assertion keywords taken
 *   out, accepts every instance the full schema accepts;
 * - so does our validator (`compileValidator()`) of a schema with patterns
 *   that cannot be proven safe, the `url` format and `uniqueItems`;
 * - for a schema with nothing to vet, our validator accepts exactly what the
 *   reference accepts.
 *
 * Bounded in time (`FUZZ_TIME_MS`, default 3 s per property; `deno task
 * fuzz` runs every fuzz file) and seeded: the seed is printed, and
 * `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import { type Schema, Validator } from "@cfworker/json-schema";
import { compileValidator } from "../../src/validation/validation.ts";
import { loosen } from "../../src/validation/_loosen.ts";

type Json = Record<string, unknown>;

/** Patterns without a variable quantifier: proven safe at once. */
const SAFE_PATTERNS = ["^a", "b$", "^[ab]{2}$", "a!", "^$"];
/** Patterns redos-detector cannot prove safe; harmless on six characters. */
const UNSAFE_PATTERNS = ["^(a+)+$", "(a|aa)*b", "^(a|b|ab)*!$"];
const NAMES = ["a", "b", "aa", "ab"];

/** Random schemas; `hazards` adds what our validator leaves to the server. */
function schemas(hazards: boolean): fc.Arbitrary<Json> {
  const patterns = hazards
    ? [...SAFE_PATTERNS, ...UNSAFE_PATTERNS]
    : SAFE_PATTERNS;
  const formats = hazards ? ["url", "email", "date"] : ["email", "date"];
  const { node } = fc.letrec<{ node: Json | boolean }>((tie) => {
    const sub = fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.boolean(),
      tie("node"),
    );
    const subs = fc.array(sub, { minLength: 1, maxLength: 3 });
    const small = fc.integer({ min: 0, max: 3 });
    const keyword = fc.oneof(
      fc.record({
        type: fc.constantFrom(
          "string",
          "number",
          "integer",
          "object",
          "array",
          "boolean",
          "null",
        ),
      }),
      fc.record({
        type: fc.constantFrom(["string", "array"], ["object", "null"]),
      }),
      fc.record({ properties: fc.dictionary(fc.constantFrom(...NAMES), sub) }),
      fc.record({ required: fc.subarray(NAMES, { maxLength: 2 }) }),
      fc.record({ additionalProperties: sub }),
      fc.record({
        patternProperties: fc.dictionary(fc.constantFrom(...patterns), sub, {
          maxKeys: 2,
        }),
      }),
      fc.record({ propertyNames: sub }),
      fc.record({
        dependentSchemas: fc.dictionary(fc.constantFrom(...NAMES), sub),
      }),
      fc.record({ items: sub }),
      fc.record({ prefixItems: subs }),
      fc.record({ contains: sub }),
      {
        arbitrary: fc.record({
          contains: sub,
          minContains: small,
          maxContains: small,
        }),
        weight: 2,
      },
      fc.record({ minItems: small }),
      fc.record({ maxItems: small }),
      ...(hazards ? [fc.constant({ uniqueItems: true })] : []),
      fc.record({ minLength: small }),
      fc.record({ maxLength: small }),
      {
        arbitrary: fc.record({ pattern: fc.constantFrom(...patterns) }),
        weight: 4,
      },
      fc.record({ format: fc.constantFrom(...formats) }),
      fc.record({ enum: fc.array(fc.constantFrom("a", "b", 1, null, true)) }),
      fc.record({ const: fc.constantFrom("a", 0, false, null) }),
      fc.record({ minimum: fc.integer({ min: -2, max: 2 }) }),
      fc.record({ maximum: fc.integer({ min: -2, max: 2 }) }),
      { arbitrary: fc.record({ not: sub }), weight: 3 },
      {
        arbitrary: fc.record({ if: sub, then: sub, else: sub }, {
          requiredKeys: ["if"],
        }),
        weight: 2,
      },
      fc.record({ allOf: subs }),
      fc.record({ anyOf: subs }),
      { arbitrary: fc.record({ oneOf: subs }), weight: 2 },
      fc.record({ unevaluatedProperties: sub }),
      fc.record({ unevaluatedItems: sub }),
      fc.record({
        $ref: fc.constantFrom(
          "#/$defs/d0",
          "#/$defs/d1",
          "#d0",
          "#/$defs/none",
        ),
      }),
    );
    return {
      node: fc.array(keyword, { maxLength: 4 }).map((parts) =>
        Object.assign({}, ...parts)
      ),
    };
  });
  // Half the roots put a subschema where removing a keyword would tighten.
  const root = fc.oneof(
    node,
    fc.record({ not: node }),
    fc.record({ oneOf: fc.array(node, { minLength: 2, maxLength: 2 }) }),
    fc.record({ if: node, then: node, else: node }),
    fc.record({ properties: fc.record({ a: fc.record({ not: node }) }) }),
  );
  return fc.record({
    root,
    d0: node,
    d1: node,
    draft7: fc.boolean(),
  }).map(({ root, d0, d1, draft7 }) => ({
    ...(draft7 ? { $schema: "http://json-schema.org/draft-07/schema#" } : {}),
    ...(typeof root === "boolean" ? { not: { not: root } } : root),
    $defs: {
      d0: typeof d0 === "boolean" ? d0 : { ...d0, $anchor: "d0" },
      d1,
    },
  }));
}

/** Small JSON values over the alphabet the patterns speak of. */
const { value: INSTANCE } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    {
      arbitrary: fc.string({
        unit: fc.constantFrom("a", "b", "!"),
        maxLength: 6,
      }),
      weight: 3,
    },
    fc.constantFrom(0, 1, 2.5, -1),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...NAMES, "x"), tie("value"), {
      maxKeys: 4,
    }),
  ),
}));

/** The reference's verdict, or `undefined` when it throws (a broken `$ref`, recursion). */
function reference(schema: Json, instance: unknown): boolean | undefined {
  try {
    return new Validator(schema as Schema, draftOf(schema), false)
      .validate(instance).valid;
  } catch {
    return undefined;
  }
}

function draftOf(schema: Json): "7" | "2020-12" {
  return typeof schema.$schema === "string" ? "7" : "2020-12";
}

/** Keywords that assert without applying a subschema: any may be taken out. */
const ASSERTIONS = [
  "type",
  "required",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "enum",
  "const",
  "minimum",
  "maximum",
  "uniqueItems",
  "patternProperties",
];

describe("validation properties", () => {
  it("loosen() accepts whatever the full schema accepts, whichever keywords it takes out", () => {
    fc.assert(
      fc.property(
        schemas(true),
        fc.array(INSTANCE, { minLength: 1, maxLength: 4 }),
        fc.subarray(ASSERTIONS, { minLength: 1 }),
        fc.integer({ min: 0, max: 3 }),
        (schema, instances, keywords, salt) => {
          // Take out each named keyword at some of its places.
          let count = 0;
          const loosened = loosen(
            schema,
            (_, keyword) => keywords.includes(keyword) && count++ % 4 !== salt,
            draftOf(schema) === "7",
          );
          for (const instance of instances) {
            if (reference(schema, instance) !== true) continue;
            assert.equal(
              reference(loosened, instance),
              true,
              `${JSON.stringify(instance)} passes ${
                JSON.stringify(schema)
              } but not ${JSON.stringify(loosened)}`,
            );
          }
        },
      ),
      fuzzParameters("loosen() only loosens", 1_000_000),
    );
  });

  it("our validator accepts whatever the full schema accepts, unsafe patterns and all", async () => {
    await fc.assert(
      fc.asyncProperty(
        schemas(true),
        fc.array(INSTANCE, { minLength: 1, maxLength: 4 }),
        async (schema, instances) => {
          const validate = await compileValidator(schema);
          for (const instance of instances) {
            if (reference(schema, instance) !== true) continue;
            assert.deepEqual(
              validate(instance as Json),
              undefined,
              `${JSON.stringify(instance)} passes ${JSON.stringify(schema)}`,
            );
          }
        },
      ),
      fuzzParameters("vetted validator only loosens", 1_000_000),
    );
  });

  it("with nothing to vet, our validator accepts exactly what the reference accepts", async () => {
    await fc.assert(
      fc.asyncProperty(
        schemas(false),
        fc.array(INSTANCE, { minLength: 1, maxLength: 4 }),
        async (schema, instances) => {
          const validate = await compileValidator(schema);
          for (const instance of instances) {
            const expected = reference(schema, instance);
            if (expected === undefined) continue;
            const problems = validate(instance as Json);
            assert.equal(
              problems === undefined,
              expected,
              `${JSON.stringify(instance)} against ${JSON.stringify(schema)}: ${
                problems?.join("; ") ?? "accepted"
              }`,
            );
          }
        },
      ),
      fuzzParameters("validator agrees with the reference", 1_000_000),
    );
  });
});
