import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { type Schema, Validator } from "@cfworker/json-schema";
import {
  compileArgumentsCheck,
  compileFastCheck,
} from "../../src/validation/_fast_check.ts";
import { quickJson } from "../../src/validation/_sendable.ts";

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ["a", "b", "path", "count", "__proto__", "toString"];
const STRINGS = [
  "",
  "x",
  "hello",
  "\u{1F600}\u{1F600}",
  "\uD800",
  "a".repeat(9),
];
const NUMBERS = [0, -0, 1, 2.5, -3, 1e9, NaN, Infinity];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!;
}

function randomSchema(next: () => number, depth: number): unknown {
  if (depth > 2 || next() < 0.15) {
    return pick(next, [
      { type: "string" },
      { type: "integer" },
      { type: "number", minimum: 0 },
      { type: "boolean" },
      { type: ["string", "null"] },
      { enum: ["a", 1, null] },
      { const: "x" },
      { type: "string", minLength: 2, maxLength: 5 },
      true,
      false,
      {},
      { type: "string", pattern: "^a" },
    ]);
  }
  if (next() < 0.3) {
    return {
      type: "array",
      items: randomSchema(next, depth + 1),
      ...(next() < 0.5 ? { minItems: 1, maxItems: 3 } : {}),
    };
  }
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 1 + Math.floor(next() * 3); i++) {
    properties[pick(next, NAMES.slice(0, 4))] = randomSchema(next, depth + 1);
  }
  const names = Object.keys(properties);
  return {
    type: "object",
    description: "an object",
    properties,
    // Some required names are not among the properties, or listed twice.
    ...(next() < 0.5
      ? {
        required: next() < 0.7
          ? names.slice(0, 1)
          : [...names.slice(0, 1), pick(next, NAMES.slice(0, 4))],
      }
      : {}),
    ...(next() < 0.5 ? { additionalProperties: false } : {}),
  };
}

function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 2 ? 6 : 10));
  switch (kind) {
    case 0:
      return pick(next, STRINGS);
    case 1:
      return pick(next, NUMBERS);
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return pick(next, ["a", 1, "x"]);
    case 5:
      return undefined;
    case 6:
      return Array.from(
        { length: Math.floor(next() * 4) },
        () => randomValue(next, depth + 1),
      );
    case 7:
      return new Date(0);
    default: {
      const object: Record<string, unknown> = next() < 0.1
        ? Object.create({ inherited: 1 })
        : next() < 0.1
        ? Object.create(null)
        : {};
      for (let i = 0; i < Math.floor(next() * 4); i++) {
        const name = pick(next, NAMES);
        if (name === "__proto__") {
          Object.assign(object, JSON.parse('{"__proto__": 1}'));
        } else object[name] = randomValue(next, depth + 1);
      }
      return object;
    }
  }
}

describe("compileFastCheck()", () => {
  it("never says yes to a value the full validator refuses (200,000 random cases)", () => {
    const next = random(20261130);
    let sure = 0;
    let checked = 0;
    for (let i = 0; i < 20_000; i++) {
      const schema = randomSchema(next, 0);
      const fast = compileFastCheck(schema);
      if (fast === undefined) continue;
      const validator = new Validator(schema as Schema, "2020-12", false);
      for (let j = 0; j < 10; j++) {
        const value = randomValue(next, 0);
        checked++;
        if (!fast(value)) continue;
        sure++;
        let valid: boolean;
        try {
          valid = validator.validate(value).valid;
        } catch {
          // cfworker throws on undefined values (also nested) and on some
          // exotic objects; the adapter's validator then leaves the call to
          // the server (`_validator.ts`), so a quick yes changes nothing.
          valid = true;
        }
        assert.ok(
          valid,
          `fast check accepted ${String(JSON.stringify(value))} for ${
            JSON.stringify(schema)
          }`,
        );
      }
    }
    assert.ok(sure > 5_000, `only ${sure} of ${checked} cases were accepted`);
  });

  it("settles typical tool arguments itself", () => {
    const fast = compileFastCheck({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        path: { type: "string", description: "A file" },
        head: { type: "number" },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["path"],
      additionalProperties: false,
    });
    assert.ok(fast);
    assert.equal(fast({ path: "a.txt", tags: ["x"] }), true);
    assert.equal(fast({ head: 1 }), false, "a required property is missing");
    assert.equal(fast({ path: "a", extra: 1 }), false);
  });

  it("counts a required property where JSON sends it: own and enumerable", () => {
    const fast = compileFastCheck({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path", "path", "mode"],
    });
    assert.ok(fast);
    assert.equal(fast({ path: "a", mode: 1 }), true);
    assert.equal(fast({ path: "a" }), false, "mode is missing");
    assert.equal(fast({ mode: 1 }), false, "path is missing");
    assert.equal(
      fast(Object.defineProperty({ mode: 1 }, "path", { value: "a" })),
      false,
      "a property that is not enumerable is the full validator's to judge",
    );
  });

  it("leaves schemas with other keywords to the full validator", () => {
    for (
      const schema of [
        { type: "string", pattern: "^a" },
        { $ref: "#/$defs/x", $defs: { x: {} } },
        { anyOf: [{ type: "string" }] },
        { type: "number", exclusiveMinimum: true },
        JSON.parse('{"properties": {"__proto__": {"type": "string"}}}'),
        { additionalProperties: { type: "string" } },
        // Type names that every object inherits are not types.
        { type: "constructor" },
        { type: ["string", "toString"] },
      ]
    ) {
      assert.equal(compileFastCheck(schema), undefined, JSON.stringify(schema));
    }
  });
});

function isPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

describe("compileArgumentsCheck()", () => {
  it("says yes to a plain object exactly when the fast check and the JSON test both do (100,000 random cases)", () => {
    const next = random(20261206);
    let compiled = 0;
    let yes = 0;
    for (let i = 0; i < 10_000; i++) {
      const schema = randomSchema(next, 0);
      const both = compileArgumentsCheck(schema);
      if (both === undefined) continue;
      compiled++;
      const fast = compileFastCheck(schema);
      assert.ok(fast, `no fast check for ${JSON.stringify(schema)}`);
      for (let j = 0; j < 10; j++) {
        const value = randomValue(next, 0);
        // Arguments are a plain object: nothing else gets a quick yes.
        const expected: boolean = isPlainObject(value) &&
          quickJson(value, 0) && fast(value);
        if (expected) yes++;
        assert.equal(
          both(value),
          expected,
          `${inspect(value)} for ${JSON.stringify(schema)}`,
        );
      }
    }
    assert.ok(
      compiled > 3_000 && yes > 1_500,
      `${compiled} schemas, ${yes} yes`,
    );
  });

  it("looks into what a property's schema does not make a scalar", () => {
    const check = compileArgumentsCheck({
      type: "object",
      properties: {
        path: { type: "string" },
        tags: { type: "array" },
        mode: { enum: ["a", "b"] },
        meta: {},
      },
      required: ["path"],
    });
    assert.ok(check);
    assert.equal(check({ path: "a", tags: ["x"], mode: "a", meta: 1 }), true);
    assert.equal(check({ path: "a", tags: [NaN] }), false);
    assert.equal(check({ path: "a", meta: { n: 1n } }), false);
    assert.equal(check({ path: "a", other: () => 1 }), false);
    assert.equal(check({ path: "a", other: undefined }), true);
    assert.equal(check({ path: "a", toJSON: () => ({}) }), false);
    assert.equal(check({ mode: "a" }), false, "a required property is missing");
  });

  it("leaves schemas with more than the object keywords at the top to the two checks", () => {
    for (
      const schema of [
        { type: "string" },
        { type: ["object", "null"] },
        { properties: {}, minProperties: 1 },
        { additionalProperties: { type: "string" } },
        { properties: { a: { type: "string", pattern: "^a" } } },
      ]
    ) {
      assert.equal(
        compileArgumentsCheck(schema),
        undefined,
        JSON.stringify(schema),
      );
    }
  });
});
