/**
 * Property: for random input schemas with `x-mcp-header` annotations at
 * random places — down chains of `properties` up to 40 levels deep, under
 * `items`, `anyOf`, `additionalProperties`, `$defs`, or inside `default`
 * and `examples` values (data, not annotations) — with values valid or not
 * by shape (a name, a bad name, null, an object, a list) on properties of
 * any type, one rule decides: a schema is valid exactly when every
 * annotation is reached from the root through `properties` alone, names a
 * header, sits on a string, integer or boolean property and is unique
 * (ignoring case); and then the headers mirrored are exactly those.
 *
 * Bounded in time (`FUZZ_TIME_MS`, default 3 s) and seeded: the seed is
 * printed, and `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import {
  headerProblem,
  paramHeaderValues,
} from "../../src/protocol/param_headers.ts";

type Json = Record<string, unknown>;
const KEY = "x-mcp-header";
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** One step from a node: a property, or a keyword no property chain passes. */
type Step =
  | { prop: string }
  | { via: "items" | "anyOf" | "additionalProperties" | "$defs" }
  | { data: "default" | "examples" };

interface Placement {
  route: Step[];
  value: unknown;
  type: string | undefined;
}

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("a", "b", "constructor", "toString").map((
      prop,
    ) => ({ prop })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "items",
      "anyOf",
      "additionalProperties",
      "$defs",
    )
      .map((via) => ({ via }) as Step),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("default", "examples").map((data) =>
      ({ data }) as Step
    ),
  },
);

const placement: fc.Arbitrary<Placement> = fc.record({
  route: fc.array(step, { maxLength: 40 }),
  value: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom("Region", "Tenant", "X-Id", "region", "A.b"),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "My Region",
        "A:B",
        "Région",
        null,
        {},
        [],
        7,
        true,
      ),
    },
  ),
  type: fc.constantFrom(
    "string",
    "integer",
    "boolean",
    "number",
    "object",
    undefined,
  ),
});

/** The node at the end of `route` from `root`, made as needed. */
function reach(root: Json, route: Step[]): Json {
  let node = root;
  for (const at of route) {
    let next: unknown;
    if ("prop" in at) {
      const properties = (node.properties ??= {}) as Json;
      if (!Object.hasOwn(properties, at.prop)) properties[at.prop] = {};
      next = properties[at.prop];
    } else if ("via" in at) {
      if (at.via === "anyOf") next = ((node.anyOf ??= [{}]) as Json[])[0];
      else if (at.via === "$defs") {
        next = ((node.$defs ??= { d: {} }) as Json).d;
      } else next = node[at.via] ??= {};
    } else if (at.data === "examples") {
      next = ((node.examples ??= [{}]) as Json[])[0];
    } else next = node.default ??= {};
    node = next as Json;
  }
  return node;
}

describe("x-mcp-header annotations (property)", () => {
  it("what is validated is exactly what the headers are built from", () => {
    fc.assert(
      fc.property(
        fc.array(placement, { maxLength: 6 }),
        fc.boolean(),
        (placements, onRoot) => {
          const schema: Json = { type: "object" };
          const expected: Record<string, string> = {};
          const args: Json = {};
          const names = new Set<string>();
          let valid = !onRoot;
          if (onRoot) schema[KEY] = "Root";
          placements.forEach(({ route, value, type }, i) => {
            // A property of its own at the end: no two placements share a node.
            const full: Step[] = [...route, { prop: `p${i}` }];
            const node = reach(schema, full);
            node[KEY] = value;
            if (type !== undefined) node.type = type;
            if (full.some((at) => "data" in at)) return; // data: no annotation
            const reachable = full.every((at) => "prop" in at);
            const named = typeof value === "string" && TOKEN.test(value);
            const primitive = type === "string" || type === "integer" ||
              type === "boolean";
            const name = named ? (value as string).toLowerCase() : "";
            if (!reachable || !named || !primitive || names.has(name)) {
              valid = false;
              return;
            }
            names.add(name);
            expected[`mcp-param-${name}`] = `v${i}`;
            let holder = args;
            const path = full.map((at) => (at as { prop: string }).prop);
            for (const part of path.slice(0, -1)) {
              if (!Object.hasOwn(holder, part)) holder[part] = {};
              holder = holder[part] as Json;
            }
            holder[path.at(-1)!] = `v${i}`;
          });
          const text = JSON.stringify(schema);
          // Parsed as a server's JSON: every key its own.
          const problem = headerProblem(JSON.parse(text));
          assert.equal(problem === undefined, valid, `${problem}\n${text}`);
          if (!valid) return;
          assert.deepEqual(
            paramHeaderValues(JSON.parse(text), args) ?? {},
            expected,
            text,
          );
        },
      ),
      fuzzParameters("x-mcp-header"),
    );
  });
});
