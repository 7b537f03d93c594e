/**
 * A tool's arguments from the command line: `--args JSON` taken literally,
 * then `key=value` pairs read by the tool's input schema, so that
 * `content=123` stays the string "123" for a string property and `n=3`
 * becomes a number for a number property. Internal.
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";
import { didYouMean } from "../util/closest.ts";
import { errorMessage } from "../util/caught.ts";
import { isRecord, setOwn } from "../util/values.ts";

import { ArgumentError, UsageError } from "./_exit.ts";

/**
 * The arguments of a call: `json` (an object), then each `key=value` pair
 * over it. A key may be nested (`a.b=1`). A value is read by the type the
 * schema gives its property: a string stays as written; a number, integer
 * or boolean is parsed (and refused when it is not one); an array or object
 * is parsed as JSON. Without a type (or with several), a value is JSON when
 * it parses, else a string. A key the schema's `properties` do not list is
 * refused as a likely typo, unless `additionalProperties` welcomes others
 * (`--args` stays literal for free-form objects). Keys are own properties
 * only: `__proto__`, `constructor` and `prototype` are plain keys like any
 * other, so a path never reaches `Object.prototype`.
 *
 * @throws {UsageError} On bad `--args` JSON or a malformed pair.
 * @throws {ArgumentError} On a value of the wrong type, or a key the tool
 * does not take (with a did-you-mean).
 */
export function toolArguments(
  json: string | undefined,
  pairs: readonly string[],
  schema: JsonSchema,
): Record<string, unknown> {
  const args = json === undefined ? {} : parseJsonObject(json);
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) {
      throw new UsageError(
        `expected key=value, got ${JSON.stringify(pair)}`,
      );
    }
    const path = pair.slice(0, equals).split(".");
    if (path.some((key) => key === "")) {
      throw new UsageError(
        `${
          JSON.stringify(pair.slice(0, equals))
        } is not a valid key; write key=value or a.b=value`,
      );
    }
    const property = propertySchema(schema, path);
    set(args, path, valueOf(path.join("."), pair.slice(equals + 1), property));
  }
  return args;
}

function parseJsonObject(json: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new UsageError(
      `--args is not valid JSON (${
        errorMessage(error)
      }); write an object, e.g. --args '{"query":"milk"}'`,
    );
  }
  if (!isRecord(parsed)) {
    throw new UsageError(
      `--args must be a JSON object of named arguments, e.g. '{"query":"milk"}'`,
    );
  }
  return parsed;
}

/** The schema of the property at `path`; refuses a key the schema closes. */
function propertySchema(
  schema: JsonSchema,
  path: readonly string[],
): JsonSchema | undefined {
  let node: JsonSchema | undefined = schema;
  for (const [index, key] of path.entries()) {
    const properties: Record<string, unknown> | undefined =
      isRecord(node?.properties) ? node.properties : undefined;
    const next: unknown = properties === undefined
      ? undefined
      : ownValue(properties, key);
    if (isRecord(next)) {
      node = next;
      continue;
    }
    // A key the schema does not list is taken for a typo unless the schema
    // says other keys are welcome; --args passes anything literally.
    const open = node?.additionalProperties === true ||
      isRecord(node?.additionalProperties);
    if (properties !== undefined && !open) {
      const at = path.slice(0, index + 1).join(".");
      throw new ArgumentError(
        `unknown argument ${JSON.stringify(at)}${
          didYouMean(key, Object.keys(properties))
        } (the tool takes: ${Object.keys(properties).join(", ")})`,
      );
    }
    return undefined;
  }
  return node;
}

function valueOf(
  key: string,
  text: string,
  schema: JsonSchema | undefined,
): unknown {
  const types = typeof schema?.type === "string"
    ? [schema.type]
    : Array.isArray(schema?.type)
    ? schema.type as string[]
    : [];
  const only = types.filter((type) => type !== "null");
  if (only.length !== 1) return jsonOrString(text);
  switch (only[0]) {
    case "string":
      return text;
    case "number":
    case "integer": {
      const number = text.trim() === "" ? NaN : Number(text);
      if (
        !Number.isFinite(number) ||
        (only[0] === "integer" && !Number.isInteger(number))
      ) {
        throw new ArgumentError(
          `${key} must be ${
            only[0] === "integer" ? "a whole number" : "a number"
          }, got ${JSON.stringify(text)}`,
        );
      }
      return number;
    }
    case "boolean":
      if (text === "true") return true;
      if (text === "false") return false;
      throw new ArgumentError(
        `${key} must be true or false, got ${JSON.stringify(text)}`,
      );
    case "array":
    case "object": {
      try {
        return JSON.parse(text);
      } catch {
        throw new ArgumentError(
          `${key} must be a JSON ${only[0]}, e.g. ${key}=${
            only[0] === "array" ? `'["a","b"]'` : `'{"k":1}'`
          }; got ${JSON.stringify(text.slice(0, 40))}`,
        );
      }
    }
    default:
      return jsonOrString(text);
  }
}

function jsonOrString(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function set(
  target: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const existing = ownValue(node, key);
    const next = isRecord(existing) ? existing : {};
    if (next !== existing) setOwn(node, key, next);
    node = next;
  }
  setOwn(node, path.at(-1)!, value);
}

/**
 * The value of `key` if `target` has it as its own property: `__proto__`
 * reads the prototype and `constructor` the class, which are no arguments.
 */
function ownValue(target: Record<string, unknown>, key: string): unknown {
  return Object.getOwnPropertyDescriptor(target, key)?.value;
}
