/**
 * `x-mcp-header` (MCP 2026-07-28, streamable HTTP): a tool's input schema
 * may name a parameter to be mirrored into an `Mcp-Param-<Name>` header.
 * The annotations are checked once per schema object; a tool whose
 * annotations break the specification's rules is left out of the tool list
 * on HTTP. Internal.
 *
 * @module
 */

import { isRecord } from "../util/values.ts";
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
/** Schemas nest no deeper than this here; deeper annotations are not looked for. */
const MAX_DEPTH = 32;
const NONE: readonly ParamHeader[] = Object.freeze([]);

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

function collect(schema: JsonSchema): ParamHeaders {
  // Most schemas have no annotation: one scan of the text decides.
  if (!JSON.stringify(schema).includes(`"${KEY}"`)) return NONE;
  const headers: ParamHeader[] = [];
  const names = new Set<string>();
  let problem: string | undefined;
  const visit = (node: JsonSchema, path: string[]): void => {
    const properties = node.properties;
    if (!isRecord(properties) || path.length >= MAX_DEPTH) return;
    for (const [name, property] of Object.entries(properties)) {
      if (!isRecord(property)) continue;
      const at = [...path, name];
      if (Object.hasOwn(property, KEY)) {
        problem ??= checkAnnotation(property, at, names);
        if (problem === undefined) {
          const value = property[KEY] as string;
          names.add(value.toLowerCase());
          headers.push({
            path: at,
            header: `mcp-param-${value.toLowerCase()}`,
          });
        }
      }
      visit(property, at);
    }
  };
  visit(schema, []);
  if (problem !== undefined) return { problem };
  if (countAnnotations(schema, 0) !== headers.length) {
    return {
      problem:
        `an ${KEY} annotation sits where no argument reaches it statically (inside items, oneOf, anyOf, allOf, not, if/then/else or $defs); only a chain of "properties" from the root may lead to one`,
    };
  }
  return headers;
}

function checkAnnotation(
  property: JsonSchema,
  path: readonly string[],
  names: ReadonlySet<string>,
): string | undefined {
  const where = `property ${JSON.stringify(path.join("."))}`;
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
      JSON.stringify(value)
    } is used twice (names are compared ignoring case)`;
  }
  if (typeof property.type !== "string" || !PRIMITIVES.has(property.type)) {
    return `${where}: ${KEY} is only allowed on string, integer and boolean properties; got type ${
      JSON.stringify(property.type ?? null)
    }`;
  }
  return undefined;
}

/** How many `x-mcp-header` keys `node` holds anywhere (in objects of schemas). */
function countAnnotations(node: unknown, depth: number): number {
  if (depth > MAX_DEPTH || node === null || typeof node !== "object") return 0;
  let count = 0;
  if (Array.isArray(node)) {
    for (const item of node) count += countAnnotations(item, depth + 1);
    return count;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === KEY && typeof value !== "object") count++;
    else count += countAnnotations(value, depth + 1);
  }
  return count;
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
