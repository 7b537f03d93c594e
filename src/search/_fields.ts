/**
 * What the lexical ranker reads of a tool: its text, field by field, read
 * with bounds because every field but the id comes from a server. Internal.
 *
 * @module
 */

import type { ToolSearchEntry } from "./types.ts";

/** The fields of a tool's text. */
export const FIELDS = [
  "name",
  "title",
  "description",
  "parameters",
  "parameterText",
  "server",
] as const;

/** One of {@linkcode FIELDS}. */
export type Field = typeof FIELDS[number];

/** The field numbers, in the order of {@linkcode FIELDS}. */
export const NAME = 0;
export const TITLE = 1;
export const DESCRIPTION = 2;
export const PARAMETERS = 3;
export const PARAMETER_TEXT = 4;
export const SERVER = 5;

/** Bounds on what is read of one tool. */
export const LIMITS = {
  /** Characters read of a name, a title or a server name. */
  nameChars: 256,
  /** Characters read of a description: its purpose comes first. */
  descriptionChars: 4_096,
  /** Terms kept of a description. */
  descriptionTerms: 768,
  /** Nesting followed into an input schema (objects, items, unions). */
  schemaDepth: 2,
  /** Schema nodes visited per tool. */
  schemaNodes: 256,
  /** Characters read of a parameter's description. */
  parameterChars: 200,
  /** Values read of an `enum`, and characters of each. */
  enumValues: 32,
  enumChars: 64,
  /** Terms kept of all parameter names, and of all parameter text. */
  parameterTerms: 256,
} as const;

/**
 * Most terms kept per field, by field number: a name, a title and a server
 * name are short; a description and the parameters are long.
 */
export const FIELD_TERMS: readonly number[] = [
  64,
  64,
  LIMITS.descriptionTerms,
  LIMITS.parameterTerms,
  LIMITS.parameterTerms,
  16,
];

/**
 * Receives a tool's text, piece by piece: `field` is a field number, and
 * `text` is read up to `maxChars`.
 */
export type FieldSink = (field: number, text: string, maxChars: number) => void;

/** Union keywords whose branches describe the same parameter. */
const BRANCHES = ["anyOf", "oneOf", "allOf"] as const;

/**
 * Hands the text of an entry to `sink`, field by field (absent fields give
 * nothing), each with its bound. Throws what the entry's getters throw.
 */
export function readFields(entry: ToolSearchEntry, sink: FieldSink): void {
  sink(NAME, text(entry.name), LIMITS.nameChars);
  sink(TITLE, text(entry.title), LIMITS.nameChars);
  sink(TITLE, text(entry.annotations?.title), LIMITS.nameChars);
  sink(DESCRIPTION, text(entry.description), LIMITS.descriptionChars);
  readSchema(entry.inputSchema, sink);
  sink(SERVER, text(entry.server), LIMITS.nameChars);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads parameter names and their descriptions and enum values, walking
 * the schema without recursion, to {@linkcode LIMITS.schemaDepth} levels and
 * {@linkcode LIMITS.schemaNodes} nodes.
 */
function readSchema(schema: unknown, sink: FieldSink): void {
  const stack: { node: unknown; depth: number }[] = [{
    node: schema,
    depth: 0,
  }];
  let visited = 0;
  while (stack.length > 0 && visited < LIMITS.schemaNodes) {
    const { node, depth } = stack.pop()!;
    if (!isObject(node)) continue;
    visited++;
    const deeper = depth < LIMITS.schemaDepth;
    const properties = node.properties;
    if (isObject(properties)) {
      let count = 0;
      for (const key in properties) {
        if (!Object.hasOwn(properties, key)) continue;
        if (++count > LIMITS.schemaNodes) break;
        sink(PARAMETERS, key, LIMITS.nameChars);
        const child = properties[key];
        if (!isObject(child)) continue;
        sink(PARAMETER_TEXT, text(child.description), LIMITS.parameterChars);
        readEnum(child.enum, sink);
        if (deeper) stack.push({ node: child, depth: depth + 1 });
      }
    }
    if (!deeper) continue;
    if (isObject(node.items)) {
      stack.push({ node: node.items, depth: depth + 1 });
    }
    for (const keyword of BRANCHES) {
      const branches = node[keyword];
      if (!Array.isArray(branches)) continue;
      for (let i = 0; i < branches.length && i < 16; i++) {
        stack.push({ node: branches[i], depth: depth + 1 });
      }
    }
  }
}

function readEnum(values: unknown, sink: FieldSink): void {
  if (!Array.isArray(values)) return;
  for (let i = 0; i < values.length && i < LIMITS.enumValues; i++) {
    const value = values[i];
    if (typeof value === "string") {
      sink(PARAMETER_TEXT, value, LIMITS.enumChars);
    }
  }
}
