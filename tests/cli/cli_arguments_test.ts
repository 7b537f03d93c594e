/**
 * `key=value` paths of `mcp-adapter call` (src/cli/_tool_args.ts) never walk
 * into prototypes: `__proto__`, `constructor` and `prototype` are plain own
 * keys. Node has the `Object.prototype.__proto__` accessor through which the
 * old code polluted every object; Deno hides it, so the tests put the
 * standard accessor back while they run.
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { toolArguments } from "../../src/cli/_tool_args.ts";
import type { JsonSchema } from "@cleveragents/mcp-adapter";

const OPEN: JsonSchema = { type: "object", additionalProperties: true };
const CLOSED: JsonSchema = {
  type: "object",
  properties: { message: { type: "string" } },
  additionalProperties: false,
};

describe("toolArguments(): key=value paths and prototypes", () => {
  let saved: PropertyDescriptor | undefined;
  beforeEach(() => {
    // The accessor of ECMAScript Annex B, as Node has it.
    saved = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
    Object.defineProperty(Object.prototype, "__proto__", {
      get(this: object) {
        return Object.getPrototypeOf(this);
      },
      set(this: object, proto: unknown) {
        if (typeof proto === "object" || typeof proto === "function") {
          Object.setPrototypeOf(this, proto);
        }
      },
      configurable: true,
    });
  });
  afterEach(() => {
    const proto = Object.prototype as Record<string, unknown>;
    for (const key of ["polluted", "isError", "x"]) delete proto[key];
    if (saved) Object.defineProperty(Object.prototype, "__proto__", saved);
    else delete proto["__proto__"];
  });

  it("__proto__.x=… sets an own key __proto__ and pollutes nothing", () => {
    const args = toolArguments(undefined, [
      "__proto__.polluted=yes",
      "__proto__.isError=true",
    ], OPEN);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).isError, undefined);
    assert.equal(Object.getPrototypeOf(args), Object.prototype);
    assert.deepEqual(Object.keys(args), ["__proto__"]);
    assert.equal(
      JSON.stringify(args),
      '{"__proto__":{"polluted":"yes","isError":true}}',
    );
  });

  it("constructor.prototype.x=… is a nested plain object", () => {
    const args = toolArguments(
      undefined,
      ["constructor.prototype.x=1"],
      OPEN,
    );
    assert.equal(({} as Record<string, unknown>).x, undefined);
    assert.equal(JSON.stringify(args), '{"constructor":{"prototype":{"x":1}}}');
  });

  it("--args with a __proto__ key keeps it; pairs go into it, not the prototype", () => {
    const args = toolArguments(
      '{"__proto__": {"a": 1}}',
      ["__proto__.polluted=yes"],
      OPEN,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(
      JSON.stringify(args),
      '{"__proto__":{"a":1,"polluted":"yes"}}',
    );
  });

  it("a schema that does not list __proto__ refuses it as an unknown argument", () => {
    assert.throws(
      () => toolArguments(undefined, ["__proto__.polluted=yes"], CLOSED),
      /unknown argument "__proto__" \(the tool takes: message\)/,
    );
    assert.throws(
      () => toolArguments(undefined, ["constructor=x"], CLOSED),
      /unknown argument "constructor"/,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("a schema that lists __proto__ reads its value by that property's type", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"number"}}}',
    ) as JsonSchema;
    const args = toolArguments(undefined, ["__proto__=3"], schema);
    assert.equal(JSON.stringify(args), '{"__proto__":3}');
  });
});
