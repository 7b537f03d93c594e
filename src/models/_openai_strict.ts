/**
 * The OpenAI schema dialect, shared by Chat Completions and Responses:
 * function parameters in a `strict: true` form when the schema can be made
 * strict, the plain schema otherwise, and the way back from a strict call's
 * arguments to what the server expects. Internal.
 *
 * Strict mode ("Structured Outputs") rules, as the `openai` SDK's own
 * `toStrictJsonSchema` (openai-node `src/lib/transform.ts`) and the
 * function-calling guide state them: the root is an object without a union;
 * every object sets `additionalProperties: false` and lists all its
 * properties in `required` (an optional property must then accept `null`);
 * no tuples; and the keywords in `UNSUPPORTED` below are refused. The guide
 * also limits nesting to 10 levels and 5000 properties, and string `format`
 * to the values in `FORMATS`.
 *
 * @module
 */

import {
  acceptsNull,
  copy,
  flattenAllOf,
  isSchema,
  mergeProperties,
  objectRoot,
  resolveRef,
  type Schema,
} from "./_json_schema.ts";
import { asText, setOwn } from "../util/values.ts";
import type { Dialect } from "./_codec.ts";
import type { ToolDefinitionOptions } from "./options.ts";

/**
 * Keywords that only narrow the accepted values. Strict mode refuses them;
 * dropping them loosens the schema the model sees, and the arguments are
 * still validated against the full schema before the call.
 */
const NARROWING = new Set([
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "contains",
  "minContains",
  "maxContains",
  "propertyNames",
  "dependentRequired",
  "dependencies",
  "not",
  "if",
  "then",
  "else",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
/** Keywords that change the shape in ways strict mode cannot express. */
const UNSUPPORTED = new Set([
  "prefixItems",
  "additionalItems",
  "patternProperties",
  "dependentSchemas",
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveAnchor",
  "$recursiveRef",
]);
/** String formats strict mode accepts. */
const FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);
const MAX_DEPTH = 10;
const MAX_PROPERTIES = 5000;

class NotStrict extends Error {}

/**
 * Builds a tool's OpenAI `parameters` and says whether they are strict.
 *
 * @param input The tool's `inputSchema`.
 * @param options `strict: false` sends the plain form, always.
 */
export function openaiSchema(
  input: Schema,
  options: ToolDefinitionOptions,
): Dialect {
  const root = objectRoot(input);
  const base = root.schema;
  const hint = root.hint === undefined ? {} : { hint: root.hint };
  if (!(options.strict ?? true)) {
    return {
      schema: base,
      strict: false,
      ...hint,
      notes: [...root.notes, "not strict: strict mode was turned off"],
    };
  }
  const changes: string[] = [];
  try {
    const strict = new Strictifier(base, changes).run();
    const original = objectRoot(input).schema;
    return {
      schema: strict,
      strict: true,
      ...hint,
      notes: [...root.notes, "strict", ...changes],
      restore: (args) => dropStrictNulls(original, args),
    };
  } catch (error) {
    if (!(error instanceof NotStrict)) throw error;
    return {
      schema: base,
      strict: false,
      ...hint,
      notes: [...root.notes, `not strict: ${error.message}`],
    };
  }
}

class Strictifier {
  #root: Schema;
  #changes: string[];
  #properties = 0;

  constructor(root: Schema, changes: string[]) {
    this.#root = root;
    this.#changes = changes;
  }

  run(): Schema {
    const out = this.#node(copy(this.#root), "", 0);
    for (const key of ["$defs", "definitions"] as const) {
      const defs = this.#root[key];
      if (!isSchema(defs)) continue;
      const mapped: Schema = {};
      for (const [name, def] of Object.entries(defs)) {
        setOwn(mapped, name, this.#node(copy(def), `/${key}/${name}`, 1));
      }
      out[key] = mapped;
    }
    return out;
  }

  #node(node: unknown, path: string, depth: number): Schema {
    const at = path === "" ? "the root" : path;
    if (!isSchema(node)) {
      throw new NotStrict(`${at} is a boolean schema`);
    }
    if (depth > MAX_DEPTH) {
      throw new NotStrict(`${at} is nested deeper than ${MAX_DEPTH} levels`);
    }
    for (const key of Object.keys(node)) {
      if (UNSUPPORTED.has(key)) {
        throw new NotStrict(`${at} uses ${key}, which strict mode refuses`);
      }
      if (NARROWING.has(key)) {
        this.#changes.push(`dropped ${key} at ${at}`);
        delete node[key];
      }
    }
    if (Array.isArray(node.items)) {
      throw new NotStrict(`${at} is a tuple (items is a list)`);
    }
    if ("default" in node) {
      // Strict mode has refused `default`; the model still learns it.
      node.description = withSentence(
        node.description,
        `Default: ${JSON.stringify(node.default)}.`,
      );
      delete node.default;
    }
    if (typeof node.format === "string" && !FORMATS.has(node.format)) {
      this.#changes.push(`dropped format "${node.format}" at ${at}`);
      node.description = withSentence(
        node.description,
        `Format: ${node.format}.`,
      );
      delete node.format;
    }
    if (Array.isArray(node.oneOf)) {
      this.#changes.push(`oneOf at ${at} sent as anyOf`);
      node.anyOf = [
        ...(Array.isArray(node.anyOf) ? node.anyOf : []),
        ...node.oneOf,
      ];
      delete node.oneOf;
    }
    if (Array.isArray(node.allOf)) this.#mergeAllOf(node, at);
    if (Array.isArray(node.anyOf)) {
      node.anyOf = node.anyOf.map((branch, index) =>
        this.#node(branch, `${path}/anyOf/${index}`, depth + 1)
      );
    }
    if (isSchema(node.items)) {
      node.items = this.#node(node.items, `${path}/items`, depth + 1);
    }
    if (isObjectSchema(node)) this.#object(node, path, at, depth);
    return node;
  }

  #object(node: Schema, path: string, at: string, depth: number): void {
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== false) {
      throw new NotStrict(
        `${at} allows additional properties (a map); strict mode needs additionalProperties: false`,
      );
    }
    node.additionalProperties = false;
    const properties = isSchema(node.properties) ? node.properties : {};
    const required = new Set(
      Array.isArray(node.required) ? node.required.map(asText) : [],
    );
    this.#properties += Object.keys(properties).length;
    if (this.#properties > MAX_PROPERTIES) {
      throw new NotStrict(
        `the schema has more than ${MAX_PROPERTIES} properties`,
      );
    }
    const out: Schema = {};
    for (const [name, child] of Object.entries(properties)) {
      const strict = this.#node(child, `${path}/properties/${name}`, depth + 1);
      if (required.has(name) || acceptsNull(strict)) {
        setOwn(out, name, strict);
      } else {
        setOwn(out, name, nullable(strict));
        this.#changes.push(
          `optional ${path}/properties/${name} made required and nullable (null is dropped before the call)`,
        );
      }
    }
    node.properties = out;
    node.required = Object.keys(out);
  }

  #mergeAllOf(node: Schema, at: string): void {
    const branches = flattenAllOf(node.allOf as unknown[]);
    if (
      !branches.every((branch) => isSchema(branch) && isObjectSchema(branch))
    ) {
      throw new NotStrict(`${at} uses allOf that is not a merge of objects`);
    }
    const properties: Schema = isSchema(node.properties)
      ? { ...node.properties }
      : {};
    const required = new Set(
      Array.isArray(node.required) ? node.required.map(asText) : [],
    );
    for (const branch of branches as Schema[]) {
      if (isSchema(branch.properties)) {
        mergeProperties(properties, branch.properties);
      }
      if (Array.isArray(branch.required)) {
        for (const key of branch.required) required.add(asText(key));
      }
    }
    delete node.allOf;
    node.type = "object";
    node.properties = properties;
    node.required = [...required];
    this.#changes.push(`merged allOf at ${at}`);
  }
}

function isObjectSchema(node: Schema): boolean {
  const type = node.type;
  return type === "object" ||
    (Array.isArray(type) && type.includes("object")) ||
    (type === undefined && (isSchema(node.properties) || "required" in node));
}

/** `node`, also accepting `null`. */
function nullable(node: Schema): Schema {
  const type = node.type;
  if (typeof type === "string" && !("const" in node)) {
    const out: Schema = { ...node, type: [type, "null"] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(type) && !("const" in node)) {
    const out: Schema = { ...node, type: [...type, "null"] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  if (
    Array.isArray(node.anyOf) &&
    Object.keys(node).every((key) => key === "anyOf" || key === "description")
  ) {
    return { ...node, anyOf: [...node.anyOf, { type: "null" }] };
  }
  const { description, ...rest } = node;
  return {
    ...(typeof description === "string" ? { description } : {}),
    anyOf: [rest, { type: "null" }],
  };
}

function withSentence(description: unknown, sentence: string): string {
  const text = typeof description === "string" ? description.trim() : "";
  if (text === "") return sentence;
  return /[.!?]$/.test(text) ? `${text} ${sentence}` : `${text}. ${sentence}`;
}

/**
 * Undoes the strict form on the model's arguments: removes `null` from
 * properties that were optional and do not accept `null` in `schema` (the
 * tool's original schema, after {@linkcode objectRoot}), at any depth.
 */
function dropStrictNulls(
  schema: Schema,
  args: Record<string, unknown>,
): Record<string, unknown> {
  return clean(schema, schema, args, 0) as Record<string, unknown>;
}

function clean(
  root: Schema,
  node: unknown,
  value: unknown,
  depth: number,
): unknown {
  if (depth > 64 || !isSchema(node)) return value;
  if (typeof node.$ref === "string") {
    return clean(root, resolveRef(root, node.$ref), value, depth + 1);
  }
  if (Array.isArray(value)) {
    return isSchema(node.items)
      ? value.map((item) => clean(root, node.items, item, depth + 1))
      : value;
  }
  if (!isSchema(value) || !isSchema(node.properties)) return value;
  const required = Array.isArray(node.required) ? node.required : [];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const child = Object.hasOwn(node.properties, key)
      ? node.properties[key]
      : undefined;
    if (item === null && !required.includes(key) && !acceptsNull(child)) {
      continue;
    }
    setOwn(out, key, clean(root, child, item, depth + 1));
  }
  return out;
}
