/**
 * What the lexical ranker reads of a tool: its text, field by field, read
 * with bounds because every field but the id comes from a server. Internal.
 *
 * @module
 */

import { analyse, pushTerms as pushText, terms } from "./_analyze.ts";
import type { ToolSearchEntry } from "./types.ts";

/** The fields of a tool's text, in the order of {@linkcode FieldTerms}. */
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

/** A tool's terms, one list per field, in the order of {@linkcode FIELDS}. */
export type FieldTerms = string[][];

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

/** Union keywords whose branches describe the same parameter. */
const BRANCHES = ["anyOf", "oneOf", "allOf"] as const;

/**
 * How many distinct words a name has, its whole forms left out: the
 * denominator of name coverage, the same for `create_collection` and
 * `createCollection`.
 */
export function nameWords(name: unknown): number {
  const parts = new Set<string>();
  for (const word of analyse(text(name), LIMITS.nameChars, 64)) {
    for (const part of word.parts) parts.add(part);
  }
  return parts.size;
}

/** The terms of an entry, field by field; absent fields have none. */
export function fieldTerms(entry: ToolSearchEntry): FieldTerms {
  const name = text(entry.name);
  const title = [text(entry.title), text(entry.annotations?.title)]
    .filter((part) => part !== "").join(" ");
  const parameters: string[] = [];
  const parameterText: string[] = [];
  readSchema(entry.inputSchema, parameters, parameterText);
  return [
    terms(name, LIMITS.nameChars, 64),
    terms(title, LIMITS.nameChars * 2, 64),
    terms(
      text(entry.description),
      LIMITS.descriptionChars,
      LIMITS.descriptionTerms,
    ),
    parameters,
    parameterText,
    terms(text(entry.server), LIMITS.nameChars, 16),
  ];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Collects parameter names and their descriptions and enum values, walking
 * the schema without recursion, to {@linkcode LIMITS.schemaDepth} levels and
 * {@linkcode LIMITS.schemaNodes} nodes.
 */
function readSchema(
  schema: unknown,
  names: string[],
  prose: string[],
): void {
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
        pushTerms(names, key, LIMITS.nameChars);
        const child = properties[key];
        if (!isObject(child)) continue;
        pushTerms(prose, text(child.description), LIMITS.parameterChars);
        readEnum(child.enum, prose);
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

function readEnum(values: unknown, prose: string[]): void {
  if (!Array.isArray(values)) return;
  for (let i = 0; i < values.length && i < LIMITS.enumValues; i++) {
    const value = values[i];
    if (typeof value === "string") pushTerms(prose, value, LIMITS.enumChars);
  }
}

function pushTerms(out: string[], source: string, maxChars: number): void {
  pushText(out, source, maxChars, LIMITS.parameterTerms);
}
