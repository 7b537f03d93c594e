/**
 * Property: a config document generated from the config schema (valid and
 * nearly valid), then mutated — a value replaced by any JSON value, a
 * `null`, a deep nest or a `__proto__` key; the text cut short, spliced or
 * wrapped in brackets — never makes `parseConfig()` or `loadConfig()` throw
 * anything but `MCPConfigFileError`.
 *
 * Bounded in time (`FUZZ_TIME_MS`, default 3 s per property) and seeded:
 * the seed is printed, and `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import { dump } from "js-yaml";
import {
  CONFIG_SCHEMA,
  loadConfig,
  MCPConfigFileError,
  parseConfig,
} from "@cleveragents/mcp-adapter/config";

type Json = Record<string, unknown>;

/** Strings a config field may hold: references of every kind, URLs, paths, junk. */
const STRING = fc.oneof(
  fc.constantFrom(
    "x",
    "",
    "srv",
    "${A}",
    "${A:-d}",
    "${UNSET}",
    "${env:A}",
    "$${A}",
    "${",
    "${workspaceFolder}/.env",
    "${userHome}",
    "${input:i}",
    "${input:missing}",
    "${command:pick}",
    "https://example.com/mcp",
    "ftp://x",
    "/dev/zero",
    ".",
    "missing.env",
    "__proto__",
    "constructor",
    "a/b",
    "delete_*",
    "stdio",
    "sse",
    "http",
    "streamable-http",
    "oauth",
    "auto",
  ),
  fc.string({ maxLength: 8 }),
);
const KEY = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "toString", "a", "b", "", "x/y"),
  fc.string({ maxLength: 6 }),
);

/** A plain object with own properties (`__proto__` included), as JSON.parse makes. */
function own(entries: [string, unknown][]): Json {
  const object: Json = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

function resolve(node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  const name = ref.slice("#/definitions/".length);
  return {
    ...(CONFIG_SCHEMA.definitions as Record<string, Json>)[name],
    ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref")),
  };
}

/** Values the schema node describes, loosely: every field optional, a little noise. */
function fromSchema(input: unknown, depth: number): fc.Arbitrary<unknown> {
  if (typeof input !== "object" || input === null || depth > 6) {
    return fc.jsonValue({ maxDepth: 2 });
  }
  const node = resolve(input as Json);
  if (node.if !== undefined && (node.then || node.else)) {
    return fc.oneof(
      fromSchema(node.then, depth + 1),
      fromSchema(node.else, depth + 1),
    );
  }
  if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum);
  if ("const" in node) return fc.constant(node.const);
  switch (node.type) {
    case "string":
      return STRING;
    case "integer":
      return fc.oneof(fc.integer({ min: -1, max: 100_000 }), fc.constant(0));
    case "number":
      return fc.double();
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(fromSchema(node.items, depth + 1), { maxLength: 3 });
  }
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(properties);
  const known = fc.subarray(names).chain((chosen) =>
    fc.tuple(
      ...chosen.map((name) =>
        fromSchema(properties[name], depth + 1).map((
          value,
        ): [string, unknown] => [name, value])
      ),
    )
  );
  const extra = typeof node.additionalProperties === "object"
    ? fc.array(
      fc.tuple(KEY, fromSchema(node.additionalProperties, depth + 1)),
      { maxLength: 3 },
    )
    : fc.constant([] as [string, unknown][]);
  if (names.length === 0 && node.additionalProperties === undefined) {
    return fc.jsonValue({ maxDepth: 2 });
  }
  return fc.tuple(known, extra).map(([a, b]) => own([...a, ...b]));
}

/** One change to a document: which node (counted depth-first), and what goes there. */
const MUTATION = fc.record({
  at: fc.nat(),
  value: fc.oneof(
    fc.constant(null),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(
      [] as unknown,
      {},
      own([["__proto__", { command: "x" }]]),
      own([["constructor", null]]),
    ),
    fc.integer({ min: 99, max: 200 }).map((depth) => {
      let value: unknown = "leaf";
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    }),
  ),
});

function mutate(
  root: unknown,
  mutation: { at: number; value: unknown },
): unknown {
  const slots: { parent: Json | unknown[]; key: string | number }[] = [];
  const walk = (value: unknown) => {
    if (typeof value !== "object" || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      slots.push({
        parent: value as Json,
        key: Array.isArray(value) ? Number(key) : key,
      });
      walk(child);
    }
  };
  walk(root);
  if (slots.length === 0) return mutation.value;
  const { parent, key } = slots[mutation.at % slots.length]!;
  Object.defineProperty(parent, key, {
    value: mutation.value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return root;
}

interface TextChange {
  kind: "none" | "cut" | "splice" | "wrap";
  at?: number;
  text?: string;
  depth?: number;
}

/** The document as text, maybe damaged. */
const TEXT_CHANGE: fc.Arbitrary<TextChange> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" as const }) },
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("splice" as const),
    at: fc.nat(),
    text: fc.constantFrom(
      "[",
      "{",
      "]",
      '"',
      "'",
      "\n- ",
      ": ",
      "\\",
      "&a ",
      "*a",
      "#",
    ),
  }),
  fc.record({
    kind: fc.constant("wrap" as const),
    depth: fc.integer({ min: 90, max: 3_000 }),
  }),
);

function render(
  document: unknown,
  format: "json" | "yaml",
  change: TextChange,
): string {
  let text = format === "json"
    ? JSON.stringify(document) ?? "null"
    : dump(document, { noRefs: true });
  switch (change.kind) {
    case "cut":
      text = text.slice(0, change.at! % (text.length + 1));
      break;
    case "splice": {
      const at = change.at! % (text.length + 1);
      text = text.slice(0, at) + change.text + text.slice(at);
      break;
    }
    case "wrap":
      text = `${"[".repeat(change.depth!)}${text}${"]".repeat(change.depth!)}`;
      break;
  }
  return text;
}

const DOCUMENT = fc.tuple(
  fromSchema(CONFIG_SCHEMA, 0),
  fc.array(MUTATION, { maxLength: 2 }),
).map(([document, mutations]) =>
  // Generated values are fast-check's (it shrinks them): change copies.
  mutations.reduce(
    (value, mutation) =>
      mutate(value, {
        at: mutation.at,
        value: structuredClone(mutation.value),
      }),
    structuredClone(document),
  )
);
const CASE = fc.record({
  document: DOCUMENT,
  format: fc.constantFrom("json" as const, "yaml" as const),
  change: TEXT_CHANGE,
});

function onlyConfigErrors(error: unknown, text: string): void {
  if (error instanceof MCPConfigFileError) return;
  assert.fail(
    `threw ${
      error instanceof Error ? error.stack : String(error)
    }\nfor the text ${JSON.stringify(text.slice(0, 2_000))}`,
  );
}

describe("fuzz: config documents", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-config-fuzz-"));
    await writeFile(join(dir, ".env"), "A=1\nB='2'\n");
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const options = {
    env: { A: "a", EMPTY: "" },
    userHome: "/home/u",
    inputs: { i: "value" },
  };

  it("config documents generated from the config schema with mutations never throw anything but the config error (parseConfig)", () => {
    let runs = 0;
    let accepted = 0;
    fc.assert(
      fc.property(CASE, ({ document, format, change }) => {
        runs++;
        const text = render(document, format, change);
        try {
          parseConfig(text, format, { ...options, workspaceFolder: dir });
          accepted++;
        } catch (error) {
          onlyConfigErrors(error, text);
        }
      }),
      fuzzParameters("parseConfig"),
    );
    // deno-lint-ignore no-console
    console.log(`parseConfig: ${runs} documents, ${accepted} accepted`);
    assert.ok(accepted > 0, "the generator made no valid document");
  });

  it("config documents generated from the config schema with mutations never throw anything but the config error (loadConfig, env files read)", async () => {
    await fc.assert(
      fc.asyncProperty(CASE, async ({ document, format, change }) => {
        const text = render(document, format, change);
        try {
          await loadConfig({ text, format }, {
            ...options,
            workspaceFolder: dir,
          });
        } catch (error) {
          onlyConfigErrors(error, text);
        }
      }),
      fuzzParameters("loadConfig"),
    );
  });
});
