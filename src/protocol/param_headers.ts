/**
 * `x-mcp-header` (MCP 2026-07-28, streamable HTTP): a tool's input schema
 * may name a parameter to be mirrored into an `Mcp-Param-<Name>` header.
 * The annotations are checked once per schema object; a tool whose
 * annotations break the specification's rules is left out of the tool list
 * on HTTP. Internal.
 *
 * @module
 */

import { isRecord, kindOf, unlessTooDeep } from "../util/values.ts";
import { headerValue } from "../util/header_value.ts";
import type { JsonSchema } from "../types.ts";

/** One mirrored parameter: where it is in the arguments, and its header. */
interface ParamHeader {
  /** Property names from the root of the arguments. */
  path: readonly string[];
  /** The header's name, `mcp-param-<name>` in lower case. */
  header: string;
}

/** A schema's mirrored parameters, or why its annotations are invalid. */
export type ParamHeaders = readonly ParamHeader[] | { problem: string };

const KEY = "x-mcp-header";
/** RFC 9110 `token`: what a header name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PRIMITIVES = new Set(["string", "integer", "boolean"]);
/**
 * Keywords whose value is a subschema, a list of them, or (`MAPS`) names
 * to subschemas, that no chain of `properties` reaches through: an
 * annotation under one of them is invalid. What is not a schema keyword
 * (`default`, `examples`, `const`, `enum`, …) holds data, never one.
 */
const ELSEWHERE = [
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
] as const;
const MAPS = new Set([
  "patternProperties",
  "dependentSchemas",
  "$defs",
  "definitions",
]);
const NONE: readonly ParamHeader[] = Object.freeze([]);

/** Where a subschema is: the root (`null`), a property of a chain from it, or elsewhere (`undefined`). */
type Place = { name: string; parent: Place } | null | undefined;

const cache = new WeakMap<JsonSchema, ParamHeaders>();

/** The mirrored parameters of `schema`, checked once per schema object. */
export function paramHeadersOf(schema: JsonSchema): ParamHeaders {
  let found = cache.get(schema);
  if (found === undefined) {
    found = collect(schema);
    cache.set(schema, found);
  }
  return found;
}

/**
 * One walk over every subschema, without recursion (a schema of any depth
 * costs its size): the annotations it finds are exactly the headers and
 * exactly what is checked. Only one reached from the root through a chain
 * of `properties` is valid.
 */
function collect(schema: JsonSchema): ParamHeaders {
  const headers: ParamHeader[] = [];
  const names = new Set<string>();
  const seen = new Set<object>();
  const stack: [unknown, Place][] = [[schema, null]];
  while (stack.length > 0) {
    const [node, place] = stack.pop()!;
    if (!isRecord(node) || seen.has(node)) continue;
    seen.add(node);
    if (Object.hasOwn(node, KEY)) {
      if (!place) {
        return {
          problem: place === null
            ? `an ${KEY} annotation sits on the root of the arguments, which is not a property`
            : `an ${KEY} annotation sits where no argument reaches it statically (inside items, oneOf, anyOf, allOf, not, if/then/else or $defs); only a chain of "properties" from the root may lead to one`,
        };
      }
      const path = pathOf(place);
      const problem = checkAnnotation(node, path, names);
      if (problem !== undefined) return { problem };
      const value = (node[KEY] as string).toLowerCase();
      names.add(value);
      headers.push({ path, header: `mcp-param-${value}` });
    }
    // Pushed last first, so that the walk keeps the schema's order.
    const next: [unknown, Place][] = [];
    if (isRecord(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        next.push([
          child,
          place === undefined ? undefined : { name, parent: place },
        ]);
      }
    }
    for (const key of ELSEWHERE) {
      const sub = node[key];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : MAPS.has(key) && isRecord(sub)
        ? Object.values(sub)
        : [sub];
      for (const branch of branches) next.push([branch, undefined]);
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return headers.length === 0 ? NONE : headers;
}

/** The property names from the root to `place`. */
function pathOf(place: NonNullable<Place>): string[] {
  const path: string[] = [];
  for (let at: Place = place; at; at = at.parent) path.push(at.name);
  return path.reverse();
}

function checkAnnotation(
  property: JsonSchema,
  path: readonly string[],
  names: ReadonlySet<string>,
): string | undefined {
  const where = `property ${JSON.stringify(path.join(".").slice(0, 200))}`;
  const value = property[KEY];
  if (typeof value !== "string" || value === "") {
    return `${where}: ${KEY} must be a non-empty header name`;
  }
  if (!TOKEN.test(value)) {
    return `${where}: ${KEY} ${
      JSON.stringify(value.slice(0, 40))
    } is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~- only)`;
  }
  if (names.has(value.toLowerCase())) {
    return `${where}: ${KEY} ${
      JSON.stringify(value.slice(0, 40))
    } is used twice (names are compared ignoring case)`;
  }
  if (typeof property.type !== "string" || !PRIMITIVES.has(property.type)) {
    return `${where}: ${KEY} is only allowed on string, integer and boolean properties; got type ${
      unlessTooDeep(() => JSON.stringify(property.type ?? null))?.slice(
        0,
        40,
      ) ??
        kindOf(property.type)
    }`;
  }
  return undefined;
}

/** Why `schema`'s `x-mcp-header` annotations are invalid, or `undefined` when they are not. */
export function headerProblem(schema: JsonSchema): string | undefined {
  const headers = paramHeadersOf(schema);
  return Array.isArray(headers)
    ? undefined
    : (headers as { problem: string }).problem;
}

/**
 * The `Mcp-Param-*` headers of one call of a tool with input schema
 * `schema`; `undefined` when none applies. An argument that is absent or
 * `null` sends no header.
 */
export function paramHeaderValues(
  schema: JsonSchema,
  args: Record<string, unknown>,
): Record<string, string> | undefined {
  const headers = paramHeadersOf(schema);
  if (!Array.isArray(headers)) return undefined;
  let values: Record<string, string> | undefined;
  for (const { path, header } of headers as readonly ParamHeader[]) {
    let value: unknown = args;
    for (const name of path) {
      value = isRecord(value) && Object.hasOwn(value, name)
        ? value[name]
        : undefined;
    }
    let text: string;
    if (typeof value === "string") text = headerValue(value);
    else if (typeof value === "boolean") text = value ? "true" : "false";
    else if (typeof value === "number" && Number.isSafeInteger(value)) {
      text = String(value);
    } else continue;
    (values ??= {})[header] = text;
  }
  return values;
}
