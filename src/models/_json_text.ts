/**
 * Values Gemini's OpenAPI form cannot declare, sent as JSON text. The API
 * refuses an `OBJECT` without properties ("properties: should be non-empty
 * for OBJECT type") and a schema without a type ("type: must be specified
 * when not using one_of, any_of or all_of fields"), so a free-form object
 * (a map, `{ type: "object" }`, `additionalProperties: true` without
 * properties) or a value of any type is declared as a `STRING` holding JSON
 * text, and the model's text is parsed back before the arguments are
 * validated and sent. Internal.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";
import { isSchema, type Schema } from "./_json_schema.ts";

/**
 * Where a JSON-text value sits in the arguments: property names, and `[]`
 * for every element of an array.
 */
export interface JsonTextPlace {
  /** The path from the arguments object. */
  path: string[];
  /**
   * What the text is parsed into: `"object"` (an object only), `"any"` (any
   * JSON value), `"structured"` (an object or an array: one alternative of
   * an `anyOf`, beside typed ones that may take a plain string).
   */
  wants: "object" | "any" | "structured";
}

/** Marks an array element in a {@linkcode JsonTextPlace} path. */
export const EVERY = "[]";

/** What a free-form node becomes: a `STRING` that says what to write. */
export function jsonTextNode(node: Schema, kind: "object" | "any"): Schema {
  const what = kind === "object"
    ? "An object of any fields, written as JSON text."
    : "Any JSON value, written as JSON text.";
  const text = typeof node.description === "string"
    ? node.description.trim()
    : "";
  const out: Schema = {
    type: "STRING",
    description: text === "" ? what : `${text} (${what})`,
  };
  if (node.nullable === true) out.nullable = true;
  if (typeof node.title === "string") out.title = node.title;
  return out;
}

/** Parses the model's JSON text back at `places`; other values are left as they are. */
export function restoreJsonText(
  places: readonly JsonTextPlace[],
): (args: Record<string, unknown>) => Record<string, unknown> {
  return (args) => {
    let out = args;
    for (const place of places) {
      out = restoreAt(out, place.path, 0, place.wants);
    }
    return out;
  };
}

function restoreAt(
  value: Record<string, unknown>,
  path: readonly string[],
  index: number,
  wants: JsonTextPlace["wants"],
): Record<string, unknown> {
  const key = path[index]!;
  if (!Object.hasOwn(value, key)) return value;
  const next = convert(value[key], path, index + 1, wants);
  if (next === value[key]) return value;
  const copy = { ...value };
  setOwn(copy, key, next);
  return copy;
}

function convert(
  value: unknown,
  path: readonly string[],
  index: number,
  wants: JsonTextPlace["wants"],
): unknown {
  if (index === path.length) return parsed(value, wants);
  if (path[index] === EVERY) {
    if (!Array.isArray(value)) return value;
    let changed = false;
    const items = value.map((item) => {
      const next = convert(item, path, index + 1, wants);
      changed ||= next !== item;
      return next;
    });
    return changed ? items : value;
  }
  return isSchema(value) ? restoreAt(value, path, index, wants) : value;
}

/** The value of JSON text, when it is what the place takes; else the value unchanged. */
function parsed(value: unknown, wants: JsonTextPlace["wants"]): unknown {
  if (typeof value !== "string") return value;
  let result: unknown;
  try {
    result = JSON.parse(value);
  } catch {
    return value;
  }
  if (wants === "any") return result;
  if (wants === "object") return isSchema(result) ? result : value;
  return typeof result === "object" && result !== null ? result : value;
}
