/**
 * A quick yes for the arguments of most tool calls. Most MCP input schemas
 * are flat objects of typed properties; checking those through the full
 * validator costs more than the rest of a call (it builds a JSON pointer for
 * every property it visits, valid or not). For a schema made only of the
 * keywords below, a predicate is compiled once that says "valid" only when
 * it is sure; any other answer goes to the full validator, which has the
 * last word and writes the error messages. So this never accepts what the
 * validator would refuse: it is conservative wherever the two could differ
 * (inherited properties, non-plain objects, string lengths near a bound).
 * No `eval`. Internal.
 *
 * @module
 */

import { quickJson } from "./_sendable.ts";

/** Says `true` only for a value the full validator accepts. */
export type FastCheck = (value: unknown) => boolean;

/** Keywords that never affect validity. */
const ANNOTATIONS = new Set([
  "$comment",
  "$id",
  "$schema",
  "default",
  "deprecated",
  "description",
  "examples",
  "readOnly",
  "title",
  "writeOnly",
]);

/** Deeper schemas are left to the full validator. */
const MAX_DEPTH = 8;

const yes: FastCheck = () => true;
const no: FastCheck = () => false;

/**
 * Compiles the fast check of a schema, or `undefined` when the schema uses
 * anything beyond `type`, `properties`, `required`, `additionalProperties`
 * (boolean), `items`, `enum` and `const` (of primitives), `minimum`,
 * `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems` and
 * annotations.
 */
export function compileFastCheck(
  schema: unknown,
  depth = 0,
): FastCheck | undefined {
  if (schema === true) return yes;
  if (schema === false) return no;
  if (
    typeof schema !== "object" || schema === null || Array.isArray(schema) ||
    depth > MAX_DEPTH
  ) return undefined;
  const checks: FastCheck[] = [];
  // The object keywords are checked together, with one object test.
  const object: ObjectRules = { required: [], closed: false, typed: false };
  for (const [keyword, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    const taken = objectKeyword(object, keyword, value, depth);
    if (taken === undefined) return undefined;
    if (taken) continue;
    const check = compileKeyword(keyword, value, depth);
    if (check === undefined) return undefined;
    checks.push(check);
  }
  if (
    object.properties !== undefined || object.closed ||
    object.required.length > 0 || object.typed
  ) checks.push(objectCheck(object));
  if (checks.length === 0) return yes;
  if (checks.length === 1) return checks[0];
  return (value) => {
    for (const check of checks) if (!check(value)) return false;
    return true;
  };
}

/**
 * Arguments, checked in one walk: a quick yes only for a plain object that
 * {@linkcode compileFastCheck} accepts and that JSON carries as it is
 * (`quickJson`), which every call's arguments must be; the two apart walk
 * the arguments twice. A property's value is checked against its schema
 * and, unless that schema allows only a string, a finite number, a boolean
 * or null, by `quickJson` too. `undefined` for a schema with more at its
 * top than the object keywords (`type: "object"`, `properties`,
 * `required`, `additionalProperties` as a boolean) and annotations: its
 * arguments take the two walks.
 */
export function compileArgumentsCheck(schema: unknown): FastCheck | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return undefined;
  }
  const rules: ObjectRules = { required: [], closed: false, typed: false };
  for (const [keyword, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    if (objectKeyword(rules, keyword, value, 0) !== true) return undefined;
  }
  const checks = new Map<string, FastCheck>();
  const declared = (schema as { properties?: Record<string, unknown> })
    .properties;
  for (const [name, check] of rules.properties ?? []) {
    checks.set(
      name,
      onlyScalars(declared![name])
        ? check
        : (value) =>
          check(value) && (value === undefined || quickJson(value, 1)),
    );
  }
  // Arguments are a plain object: nothing else gets a quick yes.
  return objectCheck({ ...rules, properties: checks, typed: true }, true);
}

/** Scalar types: a value that passed one of them is JSON as it is. */
const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * Whether the fast check of `schema` passes only a string, a finite
 * number, a boolean or null: it has a `type` of scalars only, an `enum` or
 * a `const` (the check takes those of scalars only).
 */
function onlyScalars(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const { type } = schema as { type?: unknown };
  if (typeof type === "string") return SCALARS.has(type);
  if (Array.isArray(type)) return type.every((name) => SCALARS.has(name));
  return Object.hasOwn(schema, "enum") || Object.hasOwn(schema, "const");
}

/**
 * Reads an object keyword into `rules`: `true` when `keyword` is one,
 * `false` when it is another, `undefined` when it is one the check cannot
 * take (`additionalProperties` as a schema, a `required` that is not a list
 * of names, `properties` the check cannot take).
 */
function objectKeyword(
  rules: ObjectRules,
  keyword: string,
  value: unknown,
  depth: number,
): boolean | undefined {
  switch (keyword) {
    case "properties":
      rules.properties = compileProperties(value, depth);
      return rules.properties && true;
    case "additionalProperties":
      if (typeof value !== "boolean") return undefined;
      rules.closed = !value;
      return true;
    case "required":
      if (!Array.isArray(value) || !value.every(isSafeName)) return undefined;
      rules.required = value;
      return true;
    case "type":
      if (value !== "object") return false;
      rules.typed = true;
      return true;
    default:
      return false;
  }
}

function compileKeyword(
  keyword: string,
  value: unknown,
  depth: number,
): FastCheck | undefined {
  switch (keyword) {
    case "type":
      return typeCheck(value);
    case "enum": {
      if (!Array.isArray(value) || !value.every(isPrimitive)) return undefined;
      const allowed = new Set<unknown>(value);
      return (instance) => allowed.has(instance);
    }
    case "const":
      return isPrimitive(value) ? (instance) => instance === value : undefined;
    case "minimum":
    case "maximum": {
      if (typeof value !== "number") return undefined;
      const min = keyword === "minimum";
      return (instance) =>
        typeof instance !== "number" ||
        (min ? instance >= value : instance <= value);
    }
    case "minLength":
    case "maxLength": {
      if (!Number.isInteger(value)) return undefined;
      const bound = value as number;
      // The validator counts code points: between ⌈length/2⌉ and length.
      return keyword === "minLength"
        ? (instance) =>
          typeof instance !== "string" ||
          Math.ceil(instance.length / 2) >= bound
        : (instance) =>
          typeof instance !== "string" || instance.length <= bound;
    }
    case "minItems":
    case "maxItems": {
      if (!Number.isInteger(value)) return undefined;
      const bound = value as number;
      return keyword === "minItems"
        ? (instance) => !Array.isArray(instance) || instance.length >= bound
        : (instance) => !Array.isArray(instance) || instance.length <= bound;
    }
    case "items": {
      const item = compileFastCheck(value, depth + 1);
      if (item === undefined) return undefined;
      return (instance) => !Array.isArray(instance) || instance.every(item);
    }
    default:
      return undefined;
  }
}

function compileProperties(
  value: unknown,
  depth: number,
): Map<string, FastCheck> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  const properties = new Map<string, FastCheck>();
  for (const [name, schema] of Object.entries(value)) {
    const check = isSafeName(name)
      ? compileFastCheck(schema, depth + 1)
      : undefined;
    if (check === undefined) return undefined;
    properties.set(name, check);
  }
  return properties;
}

/** The object keywords of one schema. */
interface ObjectRules {
  properties?: Map<string, FastCheck> | undefined;
  required: string[];
  /** `additionalProperties: false`. */
  closed: boolean;
  /** `type: "object"`. */
  typed: boolean;
}

/** What one property name means to an object check. */
interface PropertyRule {
  /** The check of its schema in `properties`; none for a name only `required` lists. */
  check: FastCheck | undefined;
  required: boolean;
}

/**
 * `type: "object"`, `required`, `properties` and `additionalProperties:
 * false` in one pass over the object's own enumerable keys, of plain
 * objects only. A required property is counted as the pass finds it, so
 * one that is not enumerable (`Object.hasOwn` would find it) is left to
 * the full validator. With `json`, also what `quickJson` checks of the
 * object itself and of the properties no schema names (those of
 * `properties` check their own).
 */
function objectCheck(rules: ObjectRules, json = false): FastCheck {
  const { closed, typed } = rules;
  const named = new Map<string, PropertyRule>();
  for (const [name, check] of rules.properties ?? []) {
    named.set(name, { check, required: false });
  }
  let required = 0; // names, each once
  for (const name of rules.required) {
    const rule = named.get(name) ?? { check: undefined, required: false };
    if (!rule.required) required++;
    rule.required = true;
    named.set(name, rule);
  }
  return (instance) => {
    // Object keywords do not apply to a string, an array or null; an object
    // of another kind (a Date, a class instance) is the full validator's.
    if (
      typeof instance !== "object" || instance === null ||
      Array.isArray(instance)
    ) return !typed;
    // `toJSON` is read first, whether `json` asks or not: once a property
    // was read, V8 knows the object's map and folds `Object.getPrototypeOf`
    // below, a call of its own otherwise (half of this check's time).
    const custom = typeof (instance as Plain).toJSON === "function";
    if (json && custom) return false;
    if (!plainPrototype(instance)) return false;
    let found = 0;
    for (const name in instance) {
      if (!hasOwnProperty.call(instance, name)) return false;
      const value = (instance as Plain)[name];
      const rule = named.get(name);
      const check = rule?.check;
      if (
        check === undefined
          // With `json`, JSON must carry what no schema names; an own
          // property set to undefined is left out, as JSON.stringify does.
          ? closed || (json && value !== undefined && !quickJson(value, 1))
          : !check(value)
      ) return false;
      if (rule?.required) found++;
    }
    return found === required;
  };
}

/**
 * Tells own keys from inherited ones in a `for…in` over the same object,
 * where V8 folds `hasOwnProperty.call` away (`Object.hasOwn` stays a call).
 */
const hasOwnProperty = Object.prototype.hasOwnProperty;

type Plain = Record<string, unknown>;

function typeCheck(value: unknown): FastCheck | undefined {
  const types = typeof value === "string" ? [value] : value;
  if (!Array.isArray(types) || types.length === 0) return undefined;
  const checks: FastCheck[] = [];
  for (const type of types) {
    // Own keys only: `constructor` or `toString` is no type.
    const check = Object.hasOwn(TYPES, type) ? TYPES[type] : undefined;
    if (check === undefined) return undefined;
    checks.push(check);
  }
  return checks.length === 1
    ? checks[0]
    : (instance) => checks.some((check) => check(instance));
}

const TYPES: Record<string, FastCheck> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number" && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  null: (value) => value === null,
  array: (value) => Array.isArray(value),
  object: isPlainObject,
};

function isPlainObject(value: unknown): value is Plain {
  return typeof value === "object" && value !== null &&
    !Array.isArray(value) && plainPrototype(value);
}

/** Whether an object's prototype is `Object.prototype` or null. */
function plainPrototype(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value));
}

/** A property name looked up with `in` and `[]` safely: never `__proto__`. */
function isSafeName(name: unknown): name is string {
  return typeof name === "string" && name !== "__proto__";
}
