import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { headerValue } from "../../src/util/header_value.ts";
import {
  headerProblem,
  paramHeadersOf,
  paramHeaderValues,
} from "../../src/protocol/param_headers.ts";

describe("MCP header values (2026-07-28)", () => {
  it("keeps safe text plain and Base64-encodes the rest, as the specification's examples", () => {
    assert.equal(headerValue("us-west1"), "us-west1");
    assert.equal(headerValue("inside spaces"), "inside spaces");
    assert.equal(headerValue(""), "");
    assert.equal(headerValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    assert.equal(headerValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert.equal(headerValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert.equal(
      headerValue("=?base64?literal?="),
      "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
    );
    assert.equal(headerValue("\ttab"), "=?base64?CXRhYg==?=");
  });
});

describe("x-mcp-header annotations", () => {
  const object = (properties: Record<string, unknown>) => ({
    type: "object",
    properties,
  });

  it("finds statically reachable annotations, nested ones included, and mirrors their values", () => {
    const schema = object({
      region: { type: "string", "x-mcp-header": "Region" },
      n: { type: "integer", "x-mcp-header": "N" },
      flag: { type: "boolean", "x-mcp-header": "Flag" },
      nested: object({ id: { type: "string", "x-mcp-header": "Id" } }),
    });
    assert.equal(headerProblem(schema), undefined);
    assert.deepEqual(
      paramHeaderValues(schema, {
        region: "Hello, 世界",
        n: 42,
        flag: false,
        nested: { id: "x1" },
      }),
      {
        "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "mcp-param-n": "42",
        "mcp-param-flag": "false",
        "mcp-param-id": "x1",
      },
    );
    assert.deepEqual(
      paramHeaderValues(schema, { region: null, nested: "not an object" }),
      undefined,
      "null or absent values send no header",
    );
  });

  it("gives the same answer for the same schema object without recomputing", () => {
    const schema = object({ a: { type: "string", "x-mcp-header": "A" } });
    assert.equal(paramHeadersOf(schema), paramHeadersOf(schema));
    assert.deepEqual(paramHeadersOf(object({ a: { type: "string" } })), []);
  });

  it("one walk decides: an annotation 25 levels down is found and kept", () => {
    let deep: Record<string, unknown> = {
      type: "string",
      "x-mcp-header": "Deep",
    };
    for (let i = 0; i < 25; i++) deep = object({ next: deep });
    const schema = object({ root: deep });
    assert.equal(headerProblem(schema), undefined);
    let args: Record<string, unknown> = { next: "x" };
    for (let i = 0; i < 24; i++) args = { next: args };
    assert.deepEqual(paramHeaderValues(schema, { root: args }), {
      "mcp-param-deep": "x",
    });
  });

  it("one walk decides: x-mcp-header inside a default or examples value is data, not an annotation", () => {
    const schema = object({
      region: { type: "string", "x-mcp-header": "Region" },
      mode: {
        type: "object",
        default: { "x-mcp-header": "NotAHeader" },
        examples: [{ "x-mcp-header": "Nor" }],
      },
    });
    assert.equal(headerProblem(schema), undefined);
    assert.deepEqual(paramHeaderValues(schema, { region: "eu" }), {
      "mcp-param-region": "eu",
    });
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    [
      "empty",
      object({ v: { type: "string", "x-mcp-header": "" } }),
      /non-empty/,
    ],
    [
      "a space",
      object({ v: { type: "string", "x-mcp-header": "My Region" } }),
      /header name/,
    ],
    [
      "a colon",
      object({ v: { type: "string", "x-mcp-header": "A:B" } }),
      /header name/,
    ],
    [
      "non-ASCII",
      object({ v: { type: "string", "x-mcp-header": "Région" } }),
      /header name/,
    ],
    [
      "a control character",
      object({ v: { type: "string", "x-mcp-header": "A\tB" } }),
      /header name/,
    ],
    [
      "a number type",
      object({ v: { type: "number", "x-mcp-header": "V" } }),
      /string, integer and boolean/,
    ],
    [
      "an object type",
      object({ v: { type: "object", "x-mcp-header": "V" } }),
      /string, integer and boolean/,
    ],
    [
      "a duplicate in another case",
      object({
        a: { type: "string", "x-mcp-header": "MyField" },
        b: { type: "string", "x-mcp-header": "myfield" },
      }),
      /used twice/,
    ],
    [
      "a place no property chain reaches",
      {
        type: "object",
        properties: {
          list: {
            type: "array",
            items: { type: "string", "x-mcp-header": "Item" },
          },
        },
      },
      /statically/,
    ],
    [
      "a null annotation under items",
      {
        type: "object",
        properties: {
          list: {
            type: "array",
            items: { type: "string", "x-mcp-header": null },
          },
        },
      },
      /statically/,
    ],
    [
      "an object annotation in $defs",
      {
        type: "object",
        $defs: { d: { type: "string", "x-mcp-header": { name: "X" } } },
      },
      /statically/,
    ],
    [
      "an annotation on the root",
      { type: "object", "x-mcp-header": "Root" },
      /root/,
    ],
  ];
  it("refuses an annotation whose type nests 100,000 deep, naming what it is", () => {
    // JSON.stringify overflows the stack on {"0":{"0":…}} this deep.
    let type: Record<string, unknown> = {};
    for (let level = 1; level < 100_000; level++) type = { 0: type };
    const schema = {
      type: "object",
      properties: { region: { type, "x-mcp-header": "Region" } },
    };
    assert.match(
      headerProblem(schema) ?? "(valid)",
      /only allowed on string, integer and boolean properties; got type an object$/,
    );
  });

  for (const [what, schema, problem] of invalid) {
    it(`refuses ${what}`, () => {
      assert.match(headerProblem(schema) ?? "(valid)", problem);
      assert.equal(paramHeaderValues(schema, { v: "x" }), undefined);
    });
  }
});
