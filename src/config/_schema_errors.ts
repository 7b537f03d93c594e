/**
 * Internal: validates a parsed document against one of our JSON Schemas with
 * `@cfworker/json-schema` and turns its output into problems that name the
 * path (`servers[2].url`) and say what to write.
 *
 * Only the leaves of cfworker's error tree are reported. A schema node with
 * an `errorMessage` reports that message instead of its own errors and its
 * subschemas' (as VS Code does); `patternErrorMessage` replaces a pattern
 * failure's message; `examples[0]` becomes the "write e.g." hint. Messages
 * show the kind of a bad value, never the value: it may be a secret.
 *
 * @module
 */

import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";
import { ConfigProblem, type Path } from "../util/problem.ts";
import { isRecord, kindOf } from "../util/values.ts";
import type { JsonSchema } from "../types.ts";
import { closest } from "../util/closest.ts";

const validators = new WeakMap<JsonSchema, Validator>();

/**
 * Validates `instance` against `schema`.
 *
 * @param schema A draft-07 schema with local `$ref`s only.
 * @param instance The parsed document.
 * @returns The problems found, in cfworker's order; `[]` when valid.
 */
export function schemaProblems(
  schema: JsonSchema,
  instance: unknown,
): ConfigProblem[] {
  let validator = validators.get(schema);
  if (validator === undefined) {
    validator = new Validator(schema as Schema, "7", false);
    validators.set(schema, validator);
  }
  const { valid, errors } = validator.validate(instance);
  if (valid) return [];
  return leaves(schema, errors).flatMap((error) =>
    describeError(schema, instance, error)
  );
}

interface Located {
  error: OutputUnit;
  /** The schema node that holds the failing keyword. */
  node: JsonSchema;
  /** The keyword location of that node. */
  nodeLocation: string;
  keyword: string;
}

function leaves(schema: JsonSchema, errors: OutputUnit[]): Located[] {
  const seen = new Set<string>();
  const located: Located[] = [];
  for (const error of errors) {
    // "if" only says which branch failed, and cfworker reports
    // `additionalProperties: false` a second time as a bogus "false" schema.
    if (error.keyword === "if" || error.keyword === "false") continue;
    const id = `${error.instanceLocation} ${error.keywordLocation}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const found = schemaNodeAt(schema, error.keywordLocation);
    if (found !== undefined) located.push({ error, ...found });
  }
  // A node with an errorMessage stands for everything that failed in it and
  // under it, for the same value: keep one of its errors, drop the rest.
  const owners = new Map<string, Located>();
  for (const entry of located) {
    if (typeof entry.node.errorMessage !== "string") continue;
    const key = `${entry.nodeLocation} ${entry.error.instanceLocation}`;
    if (!owners.has(key)) owners.set(key, entry);
  }
  const kept = located.filter((entry) =>
    [...owners.values()].every((owner) =>
      owner === entry ||
      !(under(entry.error.keywordLocation, owner.nodeLocation) &&
        (entry.error.instanceLocation === owner.error.instanceLocation ||
          under(entry.error.instanceLocation, owner.error.instanceLocation)))
    )
  );
  return kept.filter((entry) =>
    !kept.some((other) =>
      other !== entry &&
      under(other.error.keywordLocation, entry.error.keywordLocation) &&
      (other.error.instanceLocation === entry.error.instanceLocation ||
        under(other.error.instanceLocation, entry.error.instanceLocation))
    )
  );
}

/** Whether pointer `inner` lies strictly below pointer `outer`. */
function under(inner: string, outer: string): boolean {
  return inner.startsWith(`${outer}/`);
}

function schemaNodeAt(
  schema: JsonSchema,
  keywordLocation: string,
): { node: JsonSchema; nodeLocation: string; keyword: string } | undefined {
  const segments = decodePointer(keywordLocation);
  const keyword = segments.pop();
  if (keyword === undefined) return undefined;
  let node: unknown = schema;
  for (const segment of segments) {
    node = segment === "$ref" && isRecord(node)
      ? resolveRef(schema, node.$ref)
      : child(node, segment);
  }
  if (!isRecord(node)) return undefined;
  const cut = keywordLocation.lastIndexOf("/");
  return { node, nodeLocation: keywordLocation.slice(0, cut), keyword };
}

function resolveRef(schema: JsonSchema, ref: unknown): unknown {
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  let node: unknown = schema;
  for (const segment of decodePointer(ref)) node = child(node, segment);
  return node;
}

/** A schema node's member: an object's property or a list's item. */
function child(node: unknown, segment: string): unknown {
  if (Array.isArray(node)) return node[Number(segment)];
  return isRecord(node) && Object.hasOwn(node, segment)
    ? node[segment]
    : undefined;
}

/** `#/servers/0/a~1b` → `["servers", "0", "a/b"]` (cfworker percent-encodes too). */
function decodePointer(pointer: string): string[] {
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (body === "") return [];
  return body.slice(1).split("/").map((segment) => {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // Not percent-encoded after all.
    }
    return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
  });
}

/** The instance path with list indexes as numbers, and the value there. */
function instanceAt(
  instance: unknown,
  location: string,
): { path: Path; value: unknown } {
  const path: (string | number)[] = [];
  let value = instance;
  for (const segment of decodePointer(location)) {
    if (Array.isArray(value)) {
      const index = Number(segment);
      path.push(index);
      value = value[index];
    } else {
      path.push(segment);
      value = isRecord(value) && Object.hasOwn(value, segment)
        ? value[segment]
        : undefined;
    }
  }
  return { path, value };
}

function describeError(
  schema: JsonSchema,
  instance: unknown,
  { error, node, keyword }: Located,
): ConfigProblem[] {
  const { path, value } = instanceAt(instance, error.instanceLocation);
  const problem = (detail: string, at: Path = path) => [
    new ConfigProblem(at, detail),
  ];
  if (typeof node.errorMessage === "string") {
    return [
      new ConfigProblem(
        path,
        node.errorMessage,
        keyword === "required" || keyword === "anyOf"
          ? { kind: "missing" }
          : {},
      ),
    ];
  }
  switch (keyword) {
    case "type": {
      const quote = node.type === "string" &&
          (typeof value === "number" || typeof value === "boolean")
        ? "; put it in quotes"
        : example(schema, node);
      return problem(
        `expected ${expected(schema, node)}, got ${kindOf(value)}${quote}`,
      );
    }
    case "enum":
    case "const":
      return problem(
        `expected ${expected(schema, node)}, got ${shortValue(value)}`,
      );
    case "required": {
      const required = Array.isArray(node.required) ? node.required : [];
      const properties = isRecord(node.properties) ? node.properties : {};
      return required.filter((name): name is string =>
        typeof name === "string" && isRecord(value) &&
        !Object.hasOwn(value, name)
      ).map((name) =>
        new ConfigProblem(
          path,
          `missing "${name}"${
            example(schema, properties[name], `${renderKey(name)}: `)
          }`,
          { kind: "missing", field: name },
        )
      );
    }
    case "additionalProperties": {
      const properties = isRecord(node.properties) ? node.properties : {};
      const known = Object.keys(properties);
      if (!isRecord(value)) return [];
      return Object.keys(value).filter((key) => !Object.hasOwn(properties, key))
        .map((key) => {
          const likely = suggest(key, known);
          return new ConfigProblem(
            [...path, key],
            `unknown field${
              likely === undefined ? "" : ` (did you mean "${likely}"?)`
            }; the fields are ${known.join(", ")}`,
            likely === undefined
              ? { kind: "unknown" }
              : { kind: "unknown", field: likely },
          );
        });
    }
    case "pattern":
      return problem(
        typeof node.patternErrorMessage === "string"
          ? node.patternErrorMessage
          : `expected text matching ${String(node.pattern)}`,
      );
    case "minLength":
      return problem(`expected ${expected(schema, node)}, got an empty string`);
    case "minItems": {
      const count = Number(node.minItems);
      return problem(
        `expected at least ${count} ${count === 1 ? "entry" : "entries"}${
          example(schema, node)
        }`,
      );
    }
    case "minimum":
      return problem(
        `expected ${expected(schema, node)}, got ${shortValue(value)}`,
      );
    default:
      return problem(error.error.replace(/\.$/, ""));
  }
}

function expected(schema: JsonSchema, node: JsonSchema): string {
  if (Array.isArray(node.enum)) {
    return `one of ${node.enum.map((item) => JSON.stringify(item)).join(", ")}`;
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  switch (node.type) {
    case "string":
      return Number(node.minLength) > 0 ? "a non-empty string" : "a string";
    case "boolean":
      return "true or false";
    case "integer":
      return typeof node.minimum === "number"
        ? `a whole number of at least ${node.minimum}`
        : "a whole number";
    case "number":
      return "a number";
    case "array": {
      const items = resolved(schema, node.items);
      return items?.type === "string" ? "a list of strings" : "a list";
    }
    case "object": {
      const values = resolved(schema, node.additionalProperties);
      return values?.type === "string"
        ? "an object of strings"
        : "an object (a mapping)";
    }
    default:
      return "a valid value";
  }
}

function resolved(schema: JsonSchema, node: unknown): JsonSchema | undefined {
  if (!isRecord(node)) return undefined;
  if (typeof node.$ref === "string") {
    const target = resolveRef(schema, node.$ref);
    return isRecord(target) ? target : undefined;
  }
  return node;
}

function example(schema: JsonSchema, node: unknown, lead = ""): string {
  const target = resolved(schema, node);
  const own = isRecord(node) && Array.isArray(node.examples)
    ? node.examples
    : undefined;
  const examples = own ??
    (Array.isArray(target?.examples) ? target.examples : undefined);
  if (examples === undefined || examples.length === 0) return "";
  return `; write e.g. ${lead}${render(examples[0])}`;
}

/** Renders an example in YAML flow style, which JSON readers also follow. */
function render(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(render).join(", ")}]`;
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([key, item]) =>
      `${renderKey(key)}: ${render(item)}`
    );
    return `{ ${entries.join(", ")} }`;
  }
  return JSON.stringify(value) ?? String(value);
}

function renderKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
}

/** Enum and number values are shown; long or other values only by kind. */
function shortValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (typeof value === "string" && value.length <= 40) {
    return JSON.stringify(value);
  }
  return kindOf(value);
}

/** The known field `key` most likely misspells, if any. */
function suggest(key: string, known: readonly string[]): string | undefined {
  return closest(key, known);
}
