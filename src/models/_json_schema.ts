/**
 * JSON Schema plumbing shared by the per-provider transforms: local `$ref`
 * resolution, `$ref` inlining with cycles cut, and a root that every model
 * API accepts (an object without `anyOf`/`oneOf`/`allOf`). Internal.
 *
 * @module
 */

import { asText, describeValue, setOwn } from "../util/values.ts";
import { pruneDefinitions } from "./_prune.ts";

/** A JSON Schema node (boolean schemas are handled where they can occur). */
export type Schema = { [key: string]: unknown };

/** Keywords whose value is one schema. */
const SINGLE = [
  "items",
  "additionalProperties",
  "additionalItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
/** Keywords whose value is a list of schemas. */
const LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
/** Keywords whose value maps names to schemas. */
const MAPS = ["properties", "patternProperties", "dependentSchemas"] as const;

/** Whether `value` is a plain JSON object. */
export function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Applies `map` to every direct subschema of `node` (properties, items,
 * combinators, …) and returns a new node; definitions (`$defs`,
 * `definitions`) are copied unchanged.
 */
export function mapChildren(
  node: Schema,
  map: (child: unknown, key: string) => unknown,
): Schema {
  const out: Schema = { ...node };
  for (const key of SINGLE) {
    if (key in node) out[key] = map(node[key], key);
  }
  for (const key of LISTS) {
    const list = node[key];
    if (Array.isArray(list)) out[key] = list.map((child) => map(child, key));
  }
  // Draft-07 tuple form: `items` is a list.
  if (Array.isArray(node.items)) {
    out.items = node.items.map((child) => map(child, "items"));
  }
  for (const key of MAPS) {
    const children = node[key];
    if (!isSchema(children)) continue;
    // Property names are data: `__proto__` and `constructor` are names too.
    const mapped: Schema = {};
    for (const [name, child] of Object.entries(children)) {
      setOwn(mapped, name, map(child, key));
    }
    out[key] = mapped;
  }
  return out;
}

/**
 * Resolves a local reference (`#`, `#/$defs/Name`, any JSON pointer into
 * the document) against `root`.
 *
 * @returns The target, or `undefined` for remote or dangling references.
 */
export function resolveRef(root: Schema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const decoded = decodeSegment(raw);
    if (decoded === undefined) return undefined;
    const key = decoded.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A readable name for a reference: its last pointer segment. */
export function refName(ref: string): string {
  if (ref === "#") return "the whole arguments object";
  const name = decodeSegment(ref.slice(ref.lastIndexOf("/") + 1)) || ref;
  return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}

/** A pointer segment with its %-escapes decoded; `undefined` when malformed. */
function decodeSegment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** A reference, quoted and shortened, for a note. */
function quoteRef(ref: string): string {
  return describeValue(ref, 80);
}

/** Options of {@linkcode inlineRefs}. */
export interface InlineOptions {
  /** How often one reference may be expanded inside itself. Default 1. */
  recursionDepth?: number;
  /** Receives a note for every cut cycle or unresolvable reference. */
  note(message: string): void;
}

/** Inlined nodes beyond this count are cut like cycles (exponential DAGs). */
const NODE_BUDGET = 5_000;
/**
 * How deeply a schema may nest, in levels of JSON objects and lists: the
 * transforms recurse on it, so a tool's schema is refused past it, and
 * inlining `$ref`s never nests deeper.
 */
export const MAX_SCHEMA_DEPTH = 128;

/**
 * Replaces every local `$ref` by a copy of its target and drops `$defs` /
 * `definitions`. A reference met again inside its own expansion more than
 * `recursionDepth` times is cut: it becomes `{ type, description }` of its
 * target, the description saying that the structure repeats and is not
 * spelled out further (a model can still send such a value; the arguments
 * are validated against the original schema before the call).
 */
export function inlineRefs(root: Schema, options: InlineOptions): Schema {
  const depth = options.recursionDepth ?? 1;
  let budget = NODE_BUDGET;
  let overBudget = false;
  let tooDeep = false;
  const expand = (
    node: unknown,
    stack: readonly string[],
    level = 0,
  ): unknown => {
    if (!isSchema(node)) return node;
    if (level > MAX_SCHEMA_DEPTH / 2) {
      // A chain of references nests deeper than any schema may.
      if (!tooDeep) {
        tooDeep = true;
        options.note(
          `inlining $ref nested the schema past ${
            MAX_SCHEMA_DEPTH / 2
          } levels; the rest is cut to its types (the arguments are still validated against the whole schema)`,
        );
      }
      return cut(node, "nested too deeply to spell out");
    }
    if (--budget < 0) {
      if (!overBudget) {
        overBudget = true;
        options.note(
          `inlining $ref grew the schema past ${NODE_BUDGET} nodes; the rest is cut to its types (the arguments are still validated against the whole schema)`,
        );
      }
      return cut(node, "the schema is too large to inline");
    }
    const ref = node.$ref;
    if (typeof ref === "string") {
      const { $ref: _, ...siblings } = node;
      const target = resolveRef(root, ref);
      if (!isSchema(target)) {
        options.note(
          `$ref ${
            quoteRef(ref)
          } does not resolve locally; replaced by an unconstrained value`,
        );
        return expand(siblings, stack, level);
      }
      if (stack.filter((seen) => seen === ref).length > depth) {
        options.note(
          `$ref ${
            quoteRef(ref)
          } is recursive; cut after ${depth} level(s) of nesting`,
        );
        return cut(
          { ...target, ...siblings },
          `recursive: the same structure as ${
            refName(ref)
          }, not spelled out further`,
        );
      }
      const inner = expand(target, [...stack, ref], level);
      const own = expand(siblings, stack, level);
      return {
        ...(isSchema(inner) ? inner : {}),
        ...(isSchema(own) ? own : {}),
      };
    }
    const { $defs: _d, definitions: _e, ...rest } = node;
    return mapChildren(rest, (child) => expand(child, stack, level + 1));
  };
  const result = expand(root, []);
  return isSchema(result) ? result : {};
}

/** The type and description of `node`, with `why` added: what a cut reference leaves. */
function cut(node: Schema, why: string): Schema {
  const out: Schema = {};
  if (typeof node.type === "string" || Array.isArray(node.type)) {
    out.type = node.type;
  }
  const description = typeof node.description === "string"
    ? node.description.trim()
    : "";
  out.description = description === "" ? `(${why})` : `${description} (${why})`;
  return out;
}

/** Whether a schema accepts `null`. */
export function acceptsNull(node: unknown): boolean {
  if (!isSchema(node)) return node === true;
  const type = node.type;
  if (type === "null") return true;
  if (Array.isArray(type) && type.includes("null")) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if ("const" in node && node.const === null) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = node[key];
    if (Array.isArray(list) && list.some(acceptsNull)) return true;
  }
  return false;
}

/** The result of {@linkcode objectRoot}. */
export interface ObjectRoot {
  /** The schema, rooted at a `type: "object"` without combinators. */
  schema: Schema;
  /** For the model: what the dropped root constraints required, if any. */
  hint?: string;
  /** For people: what was changed. */
  notes: string[];
}

/**
 * Makes the root of an arguments schema what every model API accepts: a
 * `type: "object"` with `properties`, and no `anyOf`/`oneOf`/`allOf`/`not`
 * at the root (Anthropic: "input_schema does not support oneOf, allOf, or
 * anyOf at the top level"; OpenAI and Gemini refuse them too). `allOf`
 * branches are merged; `anyOf`/`oneOf` branches lend their properties and
 * the alternatives are described in `hint`. The server still validates the
 * original schema, so nothing is lost but the model's view of the rule.
 * Definitions no `$ref` reaches are removed (`_prune.ts`), for every API.
 */
export function objectRoot(input: Schema): ObjectRoot {
  const notes: string[] = [];
  const hints: string[] = [];
  let schema: Schema = copy(input);
  delete schema.$schema;
  delete schema.$id;
  if (typeof schema.$ref === "string") {
    // E.g. Pydantic's `{ $ref: "#/$defs/Model", $defs }`: the target is the root.
    schema = derefTop(schema, schema);
    delete schema.$ref;
    notes.push("inlined the root $ref");
  }
  if (schema.type !== undefined && schema.type !== "object") {
    notes.push(
      `the root type ${
        describeValue(schema.type, 80)
      } is not "object"; declared as an object`,
    );
  }
  schema.type = "object";
  const properties: Schema = isSchema(schema.properties)
    ? { ...schema.properties }
    : {};
  const required = new Set(
    Array.isArray(schema.required)
      ? schema.required.filter((key) => typeof key === "string")
      : [],
  );
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf) {
      absorb(schema, branch, properties, required);
    }
    notes.push("merged the root allOf into one object");
    delete schema.allOf;
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const shown: string[] = [];
    let more = 0;
    for (const branch of branches) {
      if (!isSchema(branch)) continue;
      absorb(schema, branch, properties, undefined);
      if (shown.length < HINT_BRANCHES) shown.push(describeBranch(branch));
      else more++;
    }
    if (more > 0) shown.push(`${more.toLocaleString("en-US")} more`);
    const kind = key === "anyOf" ? "at least one" : "exactly one";
    hints.push(`Arguments must satisfy ${kind} of: ${shown.join("; ")}.`);
    notes.push(
      `the root ${key} is not allowed by model APIs; removed, its alternatives described in the tool description`,
    );
    delete schema[key];
  }
  for (const key of ["not", "if", "then", "else", "enum", "const"] as const) {
    if (key in schema) {
      notes.push(`removed the root ${key}`);
      delete schema[key];
    }
  }
  schema.properties = properties;
  const declared = [...required].filter((key) =>
    Object.hasOwn(properties, key)
  );
  if (declared.length > 0) schema.required = declared;
  else delete schema.required;
  // Before any dialect judges or copies them (strictness, inlining).
  const pruned = pruneDefinitions(schema);
  if (pruned.note !== undefined) notes.push(pruned.note);
  schema = pruned.schema;
  const hint = hints.length > 0 ? clip(hints.join(" "), HINT_CHARS) : undefined;
  return hint === undefined ? { schema, notes } : { schema, hint, notes };
}

/** Levels of `$ref` and nested `allOf` followed at the root. */
const ROOT_LEVELS = 8;

/** `node` with a local `$ref` at its top replaced by its target (its siblings win). */
function derefTop(root: Schema, node: Schema): Schema {
  let out = node;
  for (let level = 0; level < ROOT_LEVELS; level++) {
    if (typeof out.$ref !== "string") break;
    const target = resolveRef(root, out.$ref);
    const { $ref: _, ...siblings } = out;
    out = isSchema(target) ? { ...target, ...siblings } : siblings;
  }
  return out;
}

/**
 * Adds what a root branch declares — its properties, and for `allOf` its
 * required names — following its `$ref` and its own `allOf`.
 */
function absorb(
  root: Schema,
  branch: unknown,
  properties: Schema,
  required: Set<string> | undefined,
  level = 0,
): void {
  if (!isSchema(branch) || level > ROOT_LEVELS) return;
  const node = derefTop(root, branch);
  if (isSchema(node.properties)) mergeProperties(properties, node.properties);
  if (required !== undefined && Array.isArray(node.required)) {
    for (const key of node.required) required.add(asText(key));
  }
  if (Array.isArray(node.allOf)) {
    for (const inner of node.allOf) {
      absorb(root, inner, properties, required, level + 1);
    }
  }
}

/**
 * The branches of an `allOf`, with the `allOf` inside them spread out (a
 * branch that is nothing but an `allOf` leaves no empty branch behind), so
 * that a merge sees every one.
 */
export function flattenAllOf(
  branches: readonly unknown[],
  level = 0,
): unknown[] {
  const out: unknown[] = [];
  for (const branch of branches) {
    if (
      !isSchema(branch) || !Array.isArray(branch.allOf) || level >= ROOT_LEVELS
    ) {
      out.push(branch);
      continue;
    }
    const { allOf, ...rest } = branch;
    if (Object.keys(rest).length > 0) out.push(rest);
    out.push(...flattenAllOf(allOf, level + 1));
  }
  return out;
}

/**
 * Adds the properties of `from` that `into` does not have yet (own names
 * only, so `constructor` or `__proto__` are properties like any other).
 */
export function mergeProperties(into: Schema, from: Schema): void {
  for (const [name, child] of Object.entries(from)) {
    if (!Object.hasOwn(into, name)) setOwn(into, name, child);
  }
}

/**
 * `required` of an object node, keeping only names of its own `properties`
 * (model APIs refuse a required property that is not declared).
 */
export function existingRequired(
  required: unknown,
  properties: unknown,
): string[] {
  if (!Array.isArray(required) || !isSchema(properties)) return [];
  return [...new Set(required)].filter((name): name is string =>
    typeof name === "string" && Object.hasOwn(properties, name)
  );
}

/** Root alternatives the hint describes; the others are counted. */
const HINT_BRANCHES = 8;
/** Required names one alternative's text lists; the others are counted. */
const HINT_KEYS = 8;
/** The most one alternative's text (and one name in it) takes, in UTF-16 units. */
const BRANCH_CHARS = 200;
/** The most the whole hint takes, in UTF-16 units. */
const HINT_CHARS = 1_000;

/**
 * A short text for one root alternative: `requires "a", "b"` (names as
 * JSON strings, line breaks escaped too, at most `HINT_KEYS`) or its JSON,
 * within `BRANCH_CHARS`.
 */
function describeBranch(branch: Schema): string {
  const keys = Object.keys(branch);
  if (keys.length === 1 && Array.isArray(branch.required)) {
    const names = branch.required.slice(0, HINT_KEYS).map((key) =>
      clip(
        JSON.stringify(asText(key)).replace(
          /[\u0085\u2028\u2029]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        ),
        BRANCH_CHARS / 4,
      )
    );
    const more = branch.required.length - names.length;
    if (more > 0) names.push(`${more.toLocaleString("en-US")} more`);
    return clip(`requires ${names.join(", ")}`, BRANCH_CHARS);
  }
  return clip(JSON.stringify(branch), BRANCH_CHARS);
}

/** `text` within `max` UTF-16 units, `...` at the end when cut; never half a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 3;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}...`;
}
