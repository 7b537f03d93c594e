/**
 * Gemini with OpenAPI-subset `parameters` (older endpoints, Vertex AI): the
 * same API as `_gemini.ts` (whose call and result forms it shares), but
 * parameters are the OpenAPI 3.0 subset of the `Schema` message — `type` in
 * upper case, `nullable` instead of a `null` type, string-only `enum`,
 * int64 limits as strings — and any other field is refused ("Unknown name
 * \"additionalProperties\"", "\"$schema\"", promptfoo #6902, #4200; "Proto
 * field is not repeating" for a type list). The field list is `Schema` in
 * `@google/genai`. Internal.
 *
 * @module
 */

import { existingRequired, isSchema, type Schema } from "./_json_schema.ts";
import {
  EVERY,
  jsonTextNode,
  type JsonTextPlace,
  restoreJsonText,
} from "./_json_text.ts";
import { ownValue, setOwn } from "../util/values.ts";
import { type Codec, type Dialect, nameAndDescription } from "./_codec.ts";
import {
  geminiCalls,
  geminiContext,
  mergeAllOf,
  prepare,
  STRUCTURE,
  withHint,
} from "./_gemini.ts";
import type { GeminiSchema } from "./types.ts";

/** The OpenAPI `parameters` codec. */
export const geminiOpenApi: Codec<"gemini-openapi"> = {
  ...geminiCalls,
  context: geminiContext,
  schema: openApiSchema,
  definitions: (entries) => [{
    functionDeclarations: entries.map((entry) => ({
      ...nameAndDescription(entry),
      ...(entry.schema === undefined
        ? {}
        : { parameters: entry.schema as GeminiSchema }),
    })),
  }],
};

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

/** What one conversion collects beside the schema. */
interface Walk {
  /** Keywords removed. */
  dropped: Set<string>;
  /** Values declared as JSON text (`_json_text.ts`). */
  places: JsonTextPlace[];
}

/** Builds `parameters` (OpenAPI 3.0 subset). */
function openApiSchema(input: Schema): Dialect {
  const { schema, hint, notes } = prepare(input);
  const walk: Walk = { dropped: new Set(), places: [] };
  const result = toOpenApi(schema, walk, undefined, false);
  if (walk.dropped.size > 0) {
    notes.push(
      `removed unsupported keywords: ${[...walk.dropped].sort().join(", ")}`,
    );
  }
  // The API refuses an OBJECT without properties; a tool without
  // parameters leaves `parameters` unset.
  const empty = !isSchema(result.properties) ||
    Object.keys(result.properties).length === 0;
  const dialect: Dialect = { schema: empty ? undefined : result, notes };
  if (!empty && walk.places.length > 0) {
    notes.push(describePlaces(walk.places));
    dialect.restore = restoreJsonText(walk.places);
  }
  return withHint(dialect, hint);
}

/**
 * One node in the OpenAPI subset. `path` is where it sits in the
 * arguments (`undefined` at the root); `inAnyOf` says it is one
 * alternative of several.
 */
function toOpenApi(
  node: unknown,
  walk: Walk,
  path: string[] | undefined,
  inAnyOf: boolean,
): Schema {
  const out = convertNode(node, walk, path ?? [], inAnyOf);
  if (path === undefined) return out;
  const free = out.type === "OBJECT" &&
      !(isSchema(out.properties) && Object.keys(out.properties).length > 0)
    ? "object"
    : out.type === undefined && out.anyOf === undefined
    ? "any"
    : undefined;
  if (free === undefined) return out;
  walk.places.push({ path, wants: inAnyOf ? "structured" : free });
  return jsonTextNode(out, free);
}

function convertNode(
  node: unknown,
  walk: Walk,
  path: string[],
  inAnyOf: boolean,
): Schema {
  const { dropped } = walk;
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
    out.anyOf = branches.map((branch) => toOpenApi(branch, walk, path, true));
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
      if (type !== undefined && ownValue(OPENAPI_FORMATS, type)?.has(value)) {
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
      setOwn(
        properties,
        name,
        toOpenApi(child, walk, [...path, name], inAnyOf),
      );
    }
    out.properties = properties;
    const required = existingRequired(source.required, properties);
    if (required.length > 0) out.required = required;
  }
  const items = [...path, EVERY];
  if (isSchema(source.items)) {
    out.items = toOpenApi(source.items, walk, items, inAnyOf);
  } else if (Array.isArray(source.items) || Array.isArray(source.prefixItems)) {
    const tuple = (Array.isArray(source.items)
      ? source.items
      : source.prefixItems) as unknown[];
    out.items = tuple.length === 1
      ? toOpenApi(tuple[0], walk, items, inAnyOf)
      : {
        anyOf: tuple.map((item) =>
          toOpenApi(item, walk, items, true)
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

/** The report's note on the values sent as JSON text. */
function describePlaces(places: readonly JsonTextPlace[]): string {
  const names = [...new Set(places.map((place) => placeName(place.path)))];
  const shown = names.slice(0, 8).join(", ");
  return `declared as JSON text, parsed back before the call (the API refuses an OBJECT without properties and a schema without a type): ${shown}${
    names.length > 8 ? `, … (${names.length} in all)` : ""
  }`;
}

/** `filters[].value`: a place as a reader writes it, cut to 80 characters. */
function placeName(path: readonly string[]): string {
  const name = path.map((part, index) =>
    part === EVERY ? "[]" : index === 0 ? part : `.${part}`
  ).join("");
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 79)}…` : name);
}

function typeList(type: unknown): string[] {
  if (typeof type === "string") return [type];
  return Array.isArray(type)
    ? type.filter((item) => typeof item === "string")
    : [];
}
