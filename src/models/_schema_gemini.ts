/**
 * Gemini function parameters, in the two forms the API takes. Internal.
 *
 * - `parametersJsonSchema` (current endpoints): JSON Schema, but `$ref` into
 *   `$defs` fails ("reference to undefined schema at properties.x.anyOf.1",
 *   gemini-cli #13326; "$ref … was set alongside unsupported fields",
 *   opencode #12295) and recursive schemas are refused (gemini-cli #11393).
 *   So references are inlined, cycles cut, and only the keywords Gemini
 *   documents for JSON Schema are kept.
 * - `parameters` (older endpoints, Vertex AI): the OpenAPI 3.0 subset of the
 *   `Schema` message — `type` in upper case, `nullable` instead of a `null`
 *   type, string-only `enum`, int64 limits as strings — and any other field
 *   is refused ("Unknown name \"additionalProperties\"", "\"$schema\"",
 *   promptfoo #6902, #4200; "Proto field is not repeating" for a type list).
 *   The field list is `Schema` in `@google/genai`.
 *
 * @module
 */

import {
  existingRequired,
  flattenAllOf,
  inlineRefs,
  isSchema,
  mapChildren,
  mergeProperties,
  objectRoot,
  type Schema,
} from "./_json_schema.ts";
import { setOwn } from "../_util/values.ts";

/** A Gemini parameters schema and what was changed to get it. */
export interface GeminiParameters {
  /** The schema; `undefined` for a tool without parameters (OpenAPI form). */
  schema: Schema | undefined;
  /** For the model: root constraints that could not be expressed. */
  hint?: string;
  /** For people: what was changed. */
  notes: string[];
}

/** JSON Schema keywords Gemini documents for `parametersJsonSchema`. */
const JSON_KEYWORDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "enum",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "properties",
  "additionalProperties",
  "required",
  "propertyOrdering",
  "default",
]);

/** Fields of the `Schema` message that hold an int64 (sent as strings). */
const INT64 = new Set([
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
]);
/** Fields of the `Schema` message copied as they are. */
const OPENAPI_PLAIN = new Set([
  "description",
  "title",
  "pattern",
  "minimum",
  "maximum",
  "default",
  "example",
]);
const OPENAPI_TYPES = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "array",
  "object",
]);
/** `format` values the OpenAPI form keeps, per type. */
const OPENAPI_FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(["date-time", "enum"]),
  number: new Set(["float", "double"]),
  integer: new Set(["int32", "int64"]),
};

/** Builds `parametersJsonSchema`. */
export function geminiJsonSchema(input: Schema): GeminiParameters {
  const { schema, hint, notes } = prepare(input);
  const dropped = new Set<string>();
  const walk = (input: unknown): unknown => {
    if (!isSchema(input)) return {};
    const node = Array.isArray(input.allOf) ? mergeAllOf(input) : input;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "oneOf" && Array.isArray(value)) {
        out.anyOf = [...(Array.isArray(out.anyOf) ? out.anyOf : []), ...value];
      } else if (key === "const") {
        out.enum = [value];
      } else if (key === "examples" && Array.isArray(value)) {
        continue;
      } else if (JSON_KEYWORDS.has(key)) {
        out[key] = value;
      } else {
        dropped.add(key);
      }
    }
    if (Array.isArray(node.anyOf) && Array.isArray(node.oneOf)) {
      out.anyOf = [...node.anyOf, ...node.oneOf];
    }
    if (Object.hasOwn(out, "required")) {
      // Gemini refuses a required property that is not declared.
      const required = existingRequired(out.required, out.properties);
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    return mapChildren(out, walk);
  };
  const result = walk(schema) as Schema;
  if (dropped.size > 0) {
    notes.push(
      `removed unsupported keywords: ${[...dropped].sort().join(", ")}`,
    );
  }
  return withHint({ schema: result, notes }, hint);
}

/** Builds `parameters` (OpenAPI 3.0 subset). */
export function geminiOpenApiSchema(input: Schema): GeminiParameters {
  const { schema, hint, notes } = prepare(input);
  const dropped = new Set<string>();
  const result = toOpenApi(schema, dropped);
  if (dropped.size > 0) {
    notes.push(
      `removed unsupported keywords: ${[...dropped].sort().join(", ")}`,
    );
  }
  // The API refuses an OBJECT without properties; a tool without
  // parameters leaves `parameters` unset.
  const empty = !isSchema(result.properties) ||
    Object.keys(result.properties).length === 0;
  return withHint({ schema: empty ? undefined : result, notes }, hint);
}

function prepare(
  input: Schema,
): { schema: Schema; hint?: string; notes: string[] } {
  const root = objectRoot(input);
  const notes = [...root.notes];
  const schema = inlineRefs(root.schema, { note: (text) => notes.push(text) });
  return root.hint === undefined
    ? { schema, notes }
    : { schema, hint: root.hint, notes };
}

function withHint(
  parameters: GeminiParameters,
  hint: string | undefined,
): GeminiParameters {
  return hint === undefined ? parameters : { ...parameters, hint };
}

function toOpenApi(node: unknown, dropped: Set<string>): Schema {
  if (!isSchema(node)) return {};
  const out: Schema = {};
  const described: string[] = [];
  let types = typeList(node.type);
  if (types.includes("null")) out.nullable = true;
  types = types.filter((type) => type !== "null");
  // Alternatives: a null branch becomes `nullable`; one branch left is merged.
  let branches = [
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...(Array.isArray(node.oneOf) ? node.oneOf : []),
  ].filter(isSchema);
  if (branches.some((branch) => branch.type === "null")) {
    out.nullable = true;
    branches = branches.filter((branch) => branch.type !== "null");
  }
  let source: Schema = node;
  if (branches.length === 1) {
    const { anyOf: _a, oneOf: _o, ...rest } = node;
    source = { ...branches[0], ...rest };
    types = typeList(source.type).filter((type) => type !== "null");
    branches = [];
  }
  if (Array.isArray(source.allOf)) {
    source = mergeAllOf(source);
    types = typeList(source.type).filter((type) => type !== "null");
  }
  if (branches.length > 1) {
    // The API refuses `type` beside `anyOf`.
    out.anyOf = branches.map((branch) => toOpenApi(branch, dropped));
  } else if (types.length > 1) {
    out.anyOf = types.map((type) => ({ type: type.toUpperCase() }));
  } else if (types.length === 1 && OPENAPI_TYPES.has(types[0]!)) {
    out.type = types[0]!.toUpperCase();
  } else if (isSchema(source.properties)) {
    out.type = "OBJECT";
  }
  const type = types.length === 1 ? types[0]! : undefined;
  for (const [key, value] of Object.entries(source)) {
    if (OPENAPI_PLAIN.has(key)) {
      out[key] = value;
    } else if (INT64.has(key) && typeof value === "number") {
      out[key] = String(value);
    } else if (key === "format" && typeof value === "string") {
      if (type !== undefined && OPENAPI_FORMATS[type]?.has(value)) {
        out.format = value;
      } else {
        described.push(`Format: ${value}.`);
      }
    } else if (key === "enum" || key === "const") {
      const values = key === "enum" && Array.isArray(value) ? value : [value];
      if (values.every((item) => typeof item === "string")) {
        out.enum = values;
        if (out.type === undefined) out.type = "STRING";
        out.format = "enum";
      } else {
        described.push(
          `One of: ${values.map((item) => JSON.stringify(item)).join(", ")}.`,
        );
      }
    } else if (key === "exclusiveMinimum" || key === "exclusiveMaximum") {
      // Draft-04 writes `exclusiveMinimum: true` beside `minimum`.
      const bound = value === true
        ? source[key === "exclusiveMinimum" ? "minimum" : "maximum"]
        : value;
      if (typeof bound === "number") {
        described.push(
          `${key === "exclusiveMinimum" ? "Greater" : "Less"} than ${bound}.`,
        );
      }
    } else if (key === "examples" && Array.isArray(value)) {
      if (value.length > 0) out.example = value[0];
    } else if (!STRUCTURE.has(key)) {
      dropped.add(key);
    }
  }
  if (isSchema(source.properties)) {
    const properties: Schema = {};
    for (const [name, child] of Object.entries(source.properties)) {
      setOwn(properties, name, toOpenApi(child, dropped));
    }
    out.properties = properties;
    const required = existingRequired(source.required, properties);
    if (required.length > 0) out.required = required;
  }
  if (isSchema(source.items)) {
    out.items = toOpenApi(source.items, dropped);
  } else if (Array.isArray(source.items) || Array.isArray(source.prefixItems)) {
    const tuple = (Array.isArray(source.items)
      ? source.items
      : source.prefixItems) as unknown[];
    out.items = tuple.length === 1 ? toOpenApi(tuple[0], dropped) : {
      anyOf: tuple.map((item) =>
        toOpenApi(item, dropped)
      ),
    };
    described.push(`A list of ${tuple.length} items in this order.`);
  }
  if (described.length > 0) {
    const text = typeof out.description === "string"
      ? out.description.trim()
      : "";
    out.description = [text, ...described].filter((part) => part !== "").join(
      " ",
    );
  }
  return out;
}

/** Keywords `toOpenApi` handles as structure rather than copying. */
const STRUCTURE = new Set([
  "type",
  "anyOf",
  "oneOf",
  "allOf",
  "properties",
  "required",
  "items",
  "prefixItems",
]);

function typeList(type: unknown): string[] {
  if (typeof type === "string") return [type];
  return Array.isArray(type)
    ? type.filter((item) => typeof item === "string")
    : [];
}

/** Merges object branches of `allOf` into `node`; other branches are ignored. */
function mergeAllOf(node: Schema): Schema {
  const { allOf, ...rest } = node;
  const properties: Schema = isSchema(rest.properties)
    ? { ...rest.properties }
    : {};
  const required = new Set(Array.isArray(rest.required) ? rest.required : []);
  let type = rest.type;
  for (const branch of flattenAllOf(allOf as unknown[])) {
    if (!isSchema(branch)) continue;
    if (isSchema(branch.properties)) {
      mergeProperties(properties, branch.properties);
    }
    if (Array.isArray(branch.required)) {
      for (const key of branch.required) required.add(key);
    }
    type ??= branch.type;
    for (const [key, value] of Object.entries(branch)) {
      if (!Object.hasOwn(rest, key) && !STRUCTURE.has(key)) {
        setOwn(rest, key, value);
      }
    }
  }
  const out: Schema = { ...rest };
  if (type !== undefined) out.type = type;
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return out;
}
