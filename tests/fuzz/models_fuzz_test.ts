/**
 * Property: for random tool schemas — property names from `Object.prototype`
 * (`__proto__`, `constructor`, …) among others, root and nested
 * `allOf`/`anyOf`/`oneOf`, `$defs` with (recursive) `$ref`s, tuples, enums,
 * formats, maps — the definitions of every provider keep every property and
 * stay within that provider's rules, and building them never throws.
 *
 * Schemas are made as JSON text and parsed, so `__proto__` is an own key as
 * in a server's JSON. Bounded in time (`FUZZ_TIME_MS`, default 3 s) and
 * seeded: the seed is printed, and `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import { checkRules } from "../models/_rules.ts";
import {
  type MCPToolDescriptor,
  type RegisteredTool,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
} from "@cleveragents/mcp-adapter/models";

type Json = Record<string, unknown>;

const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];

// ---------------------------------------------------------------- schemas

/** A schema as entries, so that any key (even `__proto__`) becomes JSON text. */
type Node = { entries: [string, Value][] };
type Value = Node | Value[] | string | number | boolean | null;

const NAME = fc.constantFrom(
  "__proto__",
  "constructor",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "a",
  "b",
  "c",
  "name",
  "items",
  "type",
  "$ref",
  "x-y",
  "ünï",
);
const DEF_NAMES = ["Node", "__proto__", "constructor", "A/B", "%E0"] as const;
const DEF = fc.constantFrom(...DEF_NAMES);
const pointer = (name: string) =>
  `#/$defs/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;

const node = (...entries: [string, Value][]): Node => ({ entries });

const LEAF: fc.Arbitrary<Node> = fc.oneof(
  fc.constantFrom(
    node(["type", "string"]),
    node(["type", "string"], ["format", "uri"]),
    node(["type", "string"], ["format", "date-time"]),
    node(["type", "integer"], ["minimum", 0], ["exclusiveMaximum", 10]),
    node(["type", "number"], ["exclusiveMinimum", true], ["minimum", 1]),
    node(["type", ["string", "null"]]),
    node(["type", "boolean"], ["default", true]),
    node(["enum", ["a", "b", 1, null]]),
    node(["enum", ["x", "y"]]),
    node(["const", "fixed"]),
    node(["type", "null"]),
    node(["not", node(["type", "string"])]),
    node(["$ref", "#/$defs/missing"]),
    node(["$ref", "https://example.com/remote.json"]),
    node(),
  ),
  DEF.map((name) => node(["$ref", pointer(name)])),
);

const { schema: SCHEMA } = fc.letrec<{ schema: Node }>((tie) => {
  const child = () => fc.oneof({ depthSize: "small" }, LEAF, tie("schema"));
  const properties = fc.uniqueArray(fc.tuple(NAME, child()), {
    maxLength: 5,
    selector: ([name]) => name,
  });
  const object = fc.record({
    properties,
    required: fc.array(NAME, { maxLength: 4 }),
    additional: fc.constantFrom(undefined, false, true),
  }).map(({ properties, required, additional }): Node => {
    const entries: [string, Value][] = [
      ["type", "object"],
      ["properties", node(...properties)],
    ];
    if (required.length > 0) entries.push(["required", required]);
    if (additional !== undefined) {
      entries.push(["additionalProperties", additional]);
    }
    return { entries };
  });
  const branches = (key: string) =>
    fc.array(child(), { minLength: 1, maxLength: 3 }).map((list): Node =>
      node([key, list])
    );
  return {
    schema: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      object,
      object,
      branches("allOf"),
      branches("anyOf"),
      branches("oneOf"),
      fc.tuple(object, branches("allOf")).map(([a, b]): Node => ({
        entries: [...a.entries, ...b.entries],
      })),
      child().map((items): Node => node(["type", "array"], ["items", items])),
      fc.array(child(), { minLength: 1, maxLength: 3 }).map((items): Node =>
        node(["type", "array"], ["items", items])
      ),
      child().map((map): Node =>
        node(["type", "object"], ["additionalProperties", map])
      ),
      DEF.map((name): Node => node(["$ref", pointer(name)])),
    ),
  };
});
/** A tool's input schema: a root, and `$defs` its references may point into. */
const INPUT = fc.record({
  root: SCHEMA,
  defs: fc.array(fc.tuple(DEF, SCHEMA), { maxLength: 3 }),
}).map(({ root, defs }) => {
  const seen = new Set<string>();
  const unique = defs.filter(([name]) => !seen.has(name) && seen.add(name));
  const entries = [...root.entries];
  if (unique.length > 0) entries.push(["$defs", node(...unique)]);
  return JSON.parse(toJson({ entries })) as Json;
});

function toJson(value: Value): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
  // A later entry with the same key wins, as JSON.parse does.
  return `{${
    value.entries.map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`)
      .join(",")
  }}`;
}

// -------------------------------------------------------------- the checks

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function resolve(root: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (!isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/**
 * The property names a node declares: its own `properties` and those of its
 * `allOf` branches (which every provider either keeps or merges).
 * `$ref`s are followed; `root` combinators (`anyOf`/`oneOf`) count too at the
 * root, which the providers merge.
 */
function declared(
  root: Json,
  value: unknown,
  atRoot: boolean,
  depth = 0,
): Set<string> {
  const names = new Set<string>();
  if (!isObject(value) || depth > 8) return names;
  if (typeof value.$ref === "string") {
    for (
      const name of declared(root, resolve(root, value.$ref), atRoot, depth + 1)
    ) {
      names.add(name);
    }
  }
  if (isObject(value.properties)) {
    for (const name of Object.keys(value.properties)) names.add(name);
  }
  const lists = atRoot ? ["allOf", "anyOf", "oneOf"] : ["allOf"];
  for (const key of lists) {
    const list = value[key];
    if (!Array.isArray(list)) continue;
    for (const branch of list) {
      for (const name of declared(root, branch, false, depth + 1)) {
        names.add(name);
      }
    }
  }
  return names;
}

/** The schema each provider received for the one tool, after a JSON round trip. */
function sent(provider: ModelProvider, definitions: unknown): Json | undefined {
  const json = JSON.parse(JSON.stringify(definitions));
  switch (provider) {
    case "openai-chat":
      return json[0].function.parameters;
    case "openai-responses":
      return json[0].parameters;
    case "anthropic":
      return json[0].input_schema;
    case "gemini":
      return json[0].functionDeclarations[0].parametersJsonSchema;
    case "gemini-openapi":
      return json[0].functionDeclarations[0].parameters;
    case "ai-sdk":
      return json.t__tool.inputSchema.jsonSchema;
  }
}

/** The node at the same place: through `properties`, `$ref`s, a strict nullable `anyOf`. */
function counterpart(
  root: Json,
  value: unknown,
  name: string,
  depth = 0,
  throughAnyOf = true,
): unknown {
  if (depth > 8) return undefined;
  for (const candidate of alternatives(root, value, 0, throughAnyOf)) {
    if (
      isObject(candidate.properties) &&
      Object.hasOwn(candidate.properties, name)
    ) {
      return candidate.properties[name];
    }
    for (
      const branch of Array.isArray(candidate.allOf) ? candidate.allOf : []
    ) {
      const found = counterpart(root, branch, name, depth + 1, throughAnyOf);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function* alternatives(
  root: Json,
  value: unknown,
  depth = 0,
  throughAnyOf = true,
): Generator<Json> {
  if (!isObject(value) || depth > 8) return;
  yield value;
  if (typeof value.$ref === "string") {
    yield* alternatives(
      root,
      resolve(root, value.$ref),
      depth + 1,
      throughAnyOf,
    );
  }
  if (throughAnyOf && Array.isArray(value.anyOf)) {
    for (const branch of value.anyOf) {
      yield* alternatives(root, branch, depth + 1, throughAnyOf);
    }
  }
}

/** Whether a node was cut on purpose (Gemini's inlining of recursive or huge `$ref`s). */
function isCut(value: unknown): boolean {
  return isObject(value) && typeof value.description === "string" &&
    /not spelled out further|too large to inline/.test(value.description);
}

/** Every property the input declares at `input` is declared at `output`, recursively. */
function checkProperties(
  inputRoot: Json,
  input: unknown,
  outputRoot: Json,
  output: unknown,
  path: string,
  atRoot: boolean,
  budget: { left: number },
): void {
  if (--budget.left < 0 || isCut(output)) return;
  const want = declared(inputRoot, input, atRoot);
  if (want.size === 0) return;
  const have = new Set<string>();
  for (const candidate of alternatives(outputRoot, output)) {
    for (const name of declared(outputRoot, candidate, false)) have.add(name);
  }
  for (const name of want) {
    assert.ok(
      have.has(name),
      `${path || "/"}: property ${JSON.stringify(name)} is missing (has ${
        [...have].map((n) => JSON.stringify(n)).join(", ") || "none"
      })`,
    );
    // The same place when there is one; else through an `anyOf` (the
    // nullable wrapper of OpenAI's strict form).
    const outer = counterpart(outputRoot, output, name, 0, false) ??
      counterpart(outputRoot, output, name);
    // Only what the input declares for sure is followed: not the shapes of
    // alternatives (`anyOf`), of which the providers keep the first. A name
    // declared again by another `allOf` branch, with another schema, keeps
    // one of its declarations (merging keeps the first it meets, and a
    // recursive `$ref` is followed to a bounded depth): the output must keep
    // every property of one of them.
    const failures: unknown[] = [];
    const inners = declarations(inputRoot, input, name);
    for (const inner of inners) {
      try {
        checkProperties(
          inputRoot,
          inner,
          outputRoot,
          outer,
          `${path}/${name}`,
          false,
          budget,
        );
        break;
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length === inners.length && failures.length > 0) {
      throw failures[0];
    }
  }
}

/** Every schema `value` declares for property `name`: through `$ref`s and `allOf` branches, at most 8 deep. */
function declarations(
  root: Json,
  value: unknown,
  name: string,
  depth = 0,
  found: unknown[] = [],
): unknown[] {
  if (!isObject(value) || depth > 8 || found.length >= 8) return found;
  if (isObject(value.properties) && Object.hasOwn(value.properties, name)) {
    found.push(value.properties[name]);
  }
  if (typeof value.$ref === "string") {
    declarations(root, resolve(root, value.$ref), name, depth + 1, found);
  }
  for (const branch of Array.isArray(value.allOf) ? value.allOf : []) {
    declarations(root, branch, name, depth + 1, found);
  }
  return found;
}

function registryWith(inputSchema: Json): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    {
      name: "t/tool",
      description: "",
      inputSchema: inputSchema as MCPToolDescriptor["inputSchema"],
      capability: { readOnly: true, writes: false },
      checkpointable: false,
      source: "mcp",
      sourceMetadata: { server: "t" },
      invoke: () =>
        Promise.resolve({
          success: true,
          data: {},
          error: null,
          durationMs: 0,
        }),
    } satisfies RegisteredTool,
  );
  return registry;
}

describe("fuzz: model tool definitions", () => {
  it("provider definitions keep every property and stay within each provider's rules", () => {
    let runs = 0;
    fc.assert(
      fc.property(INPUT, fc.constantFrom(...PROVIDERS), (input, provider) => {
        runs++;
        // The definitions themselves: a schema large enough would otherwise
        // be deferred behind tool search (FUZZ_SEED=606 found one).
        const tools = modelTools(registryWith(input), provider, {
          toolSearch: { when: "never" },
        });
        const schema = sent(provider, tools.definitions);
        const [report] = tools.report;
        for (const note of report!.notes) {
          assert.ok(
            note.length <= 1_000,
            `a note of ${note.length} characters`,
          );
        }
        if (schema === undefined) {
          // gemini-openapi: a tool without parameters sends none.
          assert.equal(provider, "gemini-openapi");
          assert.equal(declared(input, input, true).size, 0);
          return;
        }
        checkRules(provider, schema, report!.strict);
        checkProperties(input, input, schema, schema, "", true, { left: 500 });
      }),
      fuzzParameters("model tool definitions"),
    );
    // deno-lint-ignore no-console
    console.log(`model tool definitions: ${runs} schemas`);
  });
});
