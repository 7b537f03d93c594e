/**
 * The server config is described twice: as JSON Schema (`CONFIG_SCHEMA`,
 * what editors validate a file with, shipped as
 * `schema/mcp-config.schema.json`) and as the check the adapter and the
 * loader run (`serverConfigProblems()`). Property: on every server entry of
 * a file without `${…}` references (whose values the check sees as they
 * are), both find problems in the same fields, so an editor never flags a
 * field the library accepts, nor passes one it refuses. The one difference
 * by design: a file's server name may not hold "/" (it is the tool
 * namespace), which an `MCPServerConfig`'s may; the names here have none.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "../fuzz/_fuzz.ts";
import { CONFIG_SCHEMA } from "../../src/config/schema.ts";
import { schemaProblems } from "../../src/config/_schema_errors.ts";
import { serverConfigProblems } from "../../src/server_config.ts";
import type { JsonSchema } from "../../src/types.ts";

type Entry = Record<string, unknown>;

/** A field's value: mostly right, sometimes wrong in each way the check knows. */
function field(
  right: fc.Arbitrary<unknown>,
  wrong: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: right },
    { weight: 1, arbitrary: wrong },
  );
}

const NOT_TEXT = fc.constantFrom(3, null, true, [], {});
const TEXT = fc.constantFrom(
  "npx",
  "x",
  "-y",
  "/opt/server",
  "C:/tools/s.exe",
  "a b",
);
const TEXT_WRONG = fc.oneof(
  NOT_TEXT,
  fc.constantFrom("C:\tools", "a\nb", "\u0007", "x\u007f"),
);
const NAME = fc.constantFrom("files", "github", "a", "my server");
const URL_RIGHT = fc.constantFrom(
  "https://example.com/mcp",
  "http://localhost:3000/mcp",
  "HTTPS://a.b/c?d=e",
  "http://127.0.0.1:9",
);
const URL_WRONG = fc.oneof(
  NOT_TEXT,
  fc.constantFrom("ftp://x", "https://", "example.com/mcp", "", "mcp"),
);
const HEADER = fc.constantFrom("Authorization", "X-Api-Key", "x-trace");
const HEADERS_WRONG = fc.oneof(
  NOT_TEXT,
  fc.constant({ "bad header": "x" }),
  fc.constant({ "Ünicode": "x" }),
  fc.constant({ Authorization: "a\r\nb" }),
  fc.constant({ Authorization: 3 }),
);
const INHERIT = fc.constantFrom("PATH", "HOME", "AWS_*", "X_(Y)");
const INHERIT_WRONG = fc.oneof(
  NOT_TEXT,
  fc.constantFrom(["*"], ["1X"], ["A-B"], [3], ["PATH", ""]),
);
const PROTOCOL = fc.constantFrom("auto", "modern", "legacy", "2025-11-25");
const PROTOCOL_WRONG = fc.oneof(NOT_TEXT, fc.constantFrom("", "2024-01-01"));

/** The fields of `fields`, each absent or drawn from its arbitrary. */
function entryOf(fields: Record<string, fc.Arbitrary<unknown>>) {
  return fc.record(
    Object.fromEntries(
      Object.entries(fields).map((
        [key, value],
      ) => [key, fc.option(value, { nil: undefined })]),
    ),
  ).map((entry) =>
    Object.fromEntries(
      Object.entries(entry).filter(([, value]) => value !== undefined),
    ) as Entry
  );
}

/** A stray field of the other kind of server, now and then. */
const STRAY = {
  url: fc.option(URL_RIGHT, { nil: undefined, freq: 10 }),
  command: fc.option(TEXT, { nil: undefined, freq: 10 }),
};

const STDIO = fc.tuple(
  NAME,
  field(fc.constant("stdio"), fc.constantFrom("http", "", 3)),
  field(TEXT, fc.oneof(TEXT_WRONG, fc.constantFrom("", "  "))),
  entryOf({
    args: field(
      fc.array(TEXT, { maxLength: 3 }),
      fc.oneof(NOT_TEXT, fc.constant(["a\tb"])),
    ),
    env: field(
      fc.dictionary(INHERIT, TEXT, { maxKeys: 2 }),
      fc.oneof(NOT_TEXT, fc.constant({ A: 3 })),
    ),
    inheritEnv: field(fc.array(INHERIT, { maxLength: 2 }), INHERIT_WRONG),
    cwd: field(TEXT, TEXT_WRONG),
    protocol: field(PROTOCOL, PROTOCOL_WRONG),
    headers: fc.option(fc.dictionary(HEADER, TEXT, { maxKeys: 1 }), {
      nil: undefined,
      freq: 10,
    }),
    fallback: fc.option(fc.boolean(), { nil: undefined, freq: 10 }),
    url: STRAY.url,
  }),
).map(([name, transport, command, rest]) => ({
  name,
  transport,
  command,
  ...rest,
}));

const REMOTE = fc.tuple(
  NAME,
  field(fc.constantFrom("sse", "streamable-http"), fc.constantFrom("http", 3)),
  field(URL_RIGHT, URL_WRONG),
  entryOf({
    headers: field(fc.dictionary(HEADER, TEXT, { maxKeys: 2 }), HEADERS_WRONG),
    fallback: field(fc.boolean(), NOT_TEXT),
    protocol: field(PROTOCOL, PROTOCOL_WRONG),
    args: fc.option(fc.array(TEXT, { maxLength: 1 }), {
      nil: undefined,
      freq: 10,
    }),
    cwd: fc.option(TEXT, { nil: undefined, freq: 10 }),
    command: STRAY.command,
  }),
).map(([name, transport, url, rest]) => ({ name, transport, url, ...rest }));

/** The entry's fields the schema finds a problem in. */
function schemaFields(schema: JsonSchema, entry: Entry): string[] {
  const found = schemaProblems(schema, { servers: [entry] })
    .map((problem) => String(problem.path[2] ?? "(entry)"));
  return [...new Set(found)].sort();
}

/** The entry's fields the check finds a problem in. */
function checkFields(entry: Entry): string[] {
  const found = serverConfigProblems(entry)
    .map((problem) => String(problem.path[0] ?? "(entry)"));
  return [...new Set(found)].sort();
}

/**
 * Both find problems in the same fields. Past an unknown transport the
 * check stops (which fields apply is unknown): then both name the transport.
 */
function sameFields(schema: JsonSchema, entry: Entry): void {
  const checked = checkFields(entry);
  const fields = schemaFields(schema, entry);
  if (checked.includes("transport")) assert.ok(fields.includes("transport"));
  else assert.deepEqual(fields, checked);
}

describe("the config schema and the server-config check", () => {
  it("find problems in the same fields of every server entry without references", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof(STDIO, REMOTE), (entry) => {
        if (checkFields(entry).length === 0) valid++;
        sameFields(CONFIG_SCHEMA, entry);
      }),
      fuzzParameters("schema pin"),
    );
    assert.ok(valid > 0, "some entries are valid");
  });

  it("would catch a schema that drifted from the check (the rules of each transport dropped)", () => {
    const drifted = structuredClone(CONFIG_SCHEMA);
    const server = (drifted.definitions as Record<string, JsonSchema>).server!;
    server.allOf = (server.allOf as JsonSchema[]).slice(0, 2);
    const run = fc.check(
      fc.property(
        fc.oneof(STDIO, REMOTE),
        (entry) => sameFields(drifted, entry),
      ),
      { numRuns: 2000, seed: 1 },
    );
    assert.ok(run.failed, "a stray field of the other transport is found");
  });
});
