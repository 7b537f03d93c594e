/**
 * Unreachable definitions removed from an arguments schema: the `$defs` /
 * `definitions` entries that no `$ref` reached from the schema's root
 * points at, directly or through other definitions. Servers generated
 * from one OpenAPI document often send the same shared definitions with
 * every tool (Notion sends nine, most unused, with each of its 24 tools);
 * unused, they cost tokens and, when one of them is not strict-able,
 * OpenAI strict mode for a tool that never refers to it. Internal.
 *
 * The walk is iterative (no recursion, so a deep schema cannot exhaust the
 * stack), visits each definition once (a `$ref` to itself or a cycle ends
 * there), and stops at a node budget. Whenever it cannot tell what a
 * reference points at — a `$ref` that is not a local JSON pointer (remote,
 * `#anchor`), `$dynamicRef`/`$recursiveRef`, a pointer to a whole
 * definitions object, a schema past the budget — it removes nothing.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";

/** A JSON Schema node, as `_json_schema.ts` reads one. */
type Schema = { [key: string]: unknown };

/** Where definitions live at the root. */
const CONTAINERS = ["$defs", "definitions"] as const;
/** Values looked at, at most, before the walk gives up and keeps everything. */
const VALUE_BUDGET = 200_000;
/** Names listed in a note; the rest are counted. */
const LISTED = 12;

/** What {@linkcode pruneDefinitions} did. */
export interface Pruned {
  /** The schema, without the unreachable definitions (the input when none were). */
  schema: Schema;
  /** A note for the report, when something was removed. */
  note?: string;
}

/**
 * `schema` without the `$defs` / `definitions` entries its root never
 * reaches. A container left empty is removed too. The input is not changed.
 */
export function pruneDefinitions(schema: Schema): Pruned {
  const containers = CONTAINERS.filter((key) => isObject(schema[key]));
  if (containers.length === 0) return { schema };
  const reached = reachable(schema, containers);
  if (reached === undefined) return { schema };
  const out: Schema = { ...schema };
  const removed: string[] = [];
  for (const key of containers) {
    const defs = schema[key] as Schema;
    const kept: Schema = {};
    for (const [name, def] of Object.entries(defs)) {
      if (reached.has(`${key}/${name}`)) setOwn(kept, name, def);
      else removed.push(containers.length > 1 ? `${key}/${name}` : name);
    }
    if (Object.keys(kept).length > 0) out[key] = kept;
    else delete out[key];
  }
  if (removed.length === 0) return { schema };
  return { schema: out, note: noteFor(containers, removed) };
}

/**
 * The definitions reached from the root, as `container/name`; `undefined`
 * when a reference cannot be followed with certainty.
 */
function reachable(
  root: Schema,
  containers: readonly string[],
): Set<string> | undefined {
  const reached = new Set<string>();
  const rest: Schema = { ...root };
  for (const key of containers) delete rest[key];
  const pending: unknown[] = [rest];
  let budget = VALUE_BUDGET;
  while (pending.length > 0) {
    if (--budget < 0) return undefined;
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === "object" && item !== null) pending.push(item);
      }
      continue;
    }
    if (!isObject(value)) continue;
    for (const [key, child] of Object.entries(value)) {
      if (key === "$dynamicRef" || key === "$recursiveRef") return undefined;
      if (key === "$ref" && typeof child === "string") {
        const target = definitionOf(child, containers);
        if (target === undefined) return undefined;
        if (target === null || reached.has(target)) continue;
        reached.add(target);
        const slash = target.indexOf("/");
        const defs = root[target.slice(0, slash)] as Schema;
        const name = target.slice(slash + 1);
        if (Object.hasOwn(defs, name)) pending.push(defs[name]);
        continue;
      }
      if (typeof child === "object" && child !== null) pending.push(child);
    }
  }
  return reached;
}

/**
 * The definition a local reference lands in, as `container/name`; `null`
 * for a reference into the rest of the root (always kept); `undefined`
 * when it cannot be told.
 */
function definitionOf(
  ref: string,
  containers: readonly string[],
): string | null | undefined {
  if (ref === "#") return null;
  if (!ref.startsWith("#/")) return undefined;
  const segments = ref.slice(2).split("/");
  const first = decode(segments[0]!);
  if (first === undefined) return undefined;
  if (!containers.includes(first)) return null;
  if (segments.length < 2) return undefined;
  const name = decode(segments[1]!);
  return name === undefined ? undefined : `${first}/${name}`;
}

/** A JSON-pointer segment, %- and ~-decoded; `undefined` when malformed. */
function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment).replaceAll("~1", "/").replaceAll(
      "~0",
      "~",
    );
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `removed 7 unreferenced $defs (never reached by a $ref): "a", "b", …`. */
function noteFor(containers: readonly string[], removed: string[]): string {
  const shown = removed.slice(0, LISTED).map((name) =>
    JSON.stringify(name.length > 40 ? `${name.slice(0, 39)}…` : name)
  );
  const more = removed.length > LISTED ? `, … (${removed.length} in all)` : "";
  const where = containers.length > 1 ? "definitions" : containers[0];
  return `removed ${removed.length} unreferenced ${where} (no $ref reaches them): ${
    shown.join(", ")
  }${more}`;
}
