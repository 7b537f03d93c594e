/**
 * JSON Schema plumbing shared by the per-provider transforms: local `$ref`
 * resolution, `$ref` inlining with cycles cut, and a root that every model
 * API accepts (an object without `anyOf`/`oneOf`/`allOf`). Internal.
 *
 * @module
 */

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
    const mapped: Schema = {};
    for (const [name, child] of Object.entries(children)) {
      mapped[name] = map(child, key);
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
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll(
      "~0",
      "~",
    );
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

/** A readable name for a reference: its last pointer segment. */
export function refName(ref: string): string {
  if (ref === "#") return "the whole arguments object";
  return decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1)) || ref;
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
  const expand = (node: unknown, stack: readonly string[]): unknown => {
    if (!isSchema(node)) return node;
    if (--budget < 0) return cut(node, "the schema is too large to inline");
    const ref = node.$ref;
    if (typeof ref === "string") {
      const { $ref: _, ...siblings } = node;
      const target = resolveRef(root, ref);
      if (!isSchema(target)) {
        options.note(
          `$ref ${
            JSON.stringify(ref)
          } does not resolve locally; replaced by an unconstrained value`,
        );
        return expand(siblings, stack);
      }
      if (stack.filter((seen) => seen === ref).length > depth) {
        options.note(
          `$ref ${
            JSON.stringify(ref)
          } is recursive; cut after ${depth} level(s) of nesting`,
        );
        return cut(
          { ...target, ...siblings },
          `recursive: the same structure as ${
            refName(ref)
          }, not spelled out further`,
        );
      }
      const inner = expand(target, [...stack, ref]);
      const own = expand(siblings, stack);
      return {
        ...(isSchema(inner) ? inner : {}),
        ...(isSchema(own) ? own : {}),
      };
    }
    const { $defs: _d, definitions: _e, ...rest } = node;
    return mapChildren(rest, (child) => expand(child, stack));
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
 */
export function objectRoot(input: Schema): ObjectRoot {
  const notes: string[] = [];
  const hints: string[] = [];
  const schema: Schema = copy(input);
  delete schema.$schema;
  delete schema.$id;
  if (schema.type !== undefined && schema.type !== "object") {
    notes.push(
      `the root type ${
        JSON.stringify(schema.type)
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
      if (!isSchema(branch)) continue;
      if (isSchema(branch.properties)) {
        for (const [name, child] of Object.entries(branch.properties)) {
          if (!(name in properties)) properties[name] = child;
        }
      }
      if (Array.isArray(branch.required)) {
        for (const key of branch.required) required.add(String(key));
      }
    }
    notes.push("merged the root allOf into one object");
    delete schema.allOf;
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const shown: string[] = [];
    for (const branch of branches) {
      if (!isSchema(branch)) continue;
      if (isSchema(branch.properties)) {
        for (const [name, child] of Object.entries(branch.properties)) {
          if (!(name in properties)) properties[name] = child;
        }
      }
      shown.push(describeBranch(branch));
    }
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
  const declared = [...required].filter((key) => key in properties);
  if (declared.length > 0) schema.required = declared;
  else delete schema.required;
  const hint = hints.length > 0 ? hints.join(" ") : undefined;
  return hint === undefined ? { schema, notes } : { schema, hint, notes };
}

/** A short text for one root alternative: `requires "a", "b"` or its JSON. */
function describeBranch(branch: Schema): string {
  const keys = Object.keys(branch);
  if (keys.length === 1 && Array.isArray(branch.required)) {
    return `requires ${branch.required.map((key) => `"${key}"`).join(", ")}`;
  }
  const text = JSON.stringify(branch);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
