/**
 * Takes keywords out of a schema so that its local check only ever gets
 * looser, never stricter: what the validator must not run here (a pattern
 * that may backtrack, a check whose cost grows too fast) is left to the
 * server, and what this client refuses, the full schema refuses too.
 *
 * Removing a constraint loosens a subschema, and so the whole schema only
 * where the subschema counts positively. Under `not` it tightens; under an
 * `if`, inside a `oneOf` or a `contains` with `maxContains` it can do either.
 * So a keyword is removed where it stands only when the subschema holding it
 * is reached through positive keywords alone (`properties`, `items`,
 * `allOf`, `anyOf`, `then`, `$ref`, …); otherwise the first keyword on the
 * way that is not positive (`not`, `if` with its `then` and `else`, `oneOf`,
 * `contains` with its bounds) is removed whole from the subschema above it,
 * which is positive. A subschema whose evaluation changed also loses its
 * `unevaluatedProperties` and `unevaluatedItems`: they would see fewer
 * evaluated properties and refuse more. So do those below it that the
 * validator hands what it evaluated (through `allOf`, `anyOf`, `oneOf`,
 * `then`, `else`, `dependentSchemas` and `$ref`), and that change
 * travels up again like any other. `$ref`s are followed when they are
 * JSON pointers into the schema along keywords this module never removes; a
 * `$ref` it cannot follow (an anchor, a nested `$id`, `$recursiveRef`) may
 * lead anywhere, so in a schema that loses anything it is removed like the
 * keywords above (with draft-04/07, where `$ref` overrides its siblings,
 * the subschema becomes empty). Internal.
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";
import { isRecord } from "../util/values.ts";

/**
 * Whether `schema[keyword]` is to be left to the server: `true` takes the
 * keyword out; `{ keep }` keeps a looser value instead (part of a
 * `required` list).
 */
export type Hazard = (
  schema: Record<string, unknown>,
  keyword: string,
) => boolean | { keep: unknown };

type Node = Record<string, unknown>;

/** Keywords of one subschema (`items` also takes a list). */
const SINGLE = new Set([
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
/** Keywords of a list of subschemas. */
const LIST = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
/** Keywords of a map of subschemas. */
const MAP = new Set([
  "properties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "$defs",
  "definitions",
]);
/** Keywords whose values are data, never subschemas. */
const DATA = new Set([
  "const",
  "enum",
  "default",
  "examples",
  "dependentRequired",
  "$vocabulary",
]);
/**
 * Keywords whose subschemas see the annotations their parent gathered: the
 * validator (`@cfworker/json-schema`) hands them the parent's evaluated
 * items and properties, so an `unevaluatedItems` or
 * `unevaluatedProperties` below counts what the parent evaluated (a
 * `$ref`'s target too). `not` and `if` start afresh.
 */
const INHERITING = new Set([
  "allOf",
  "anyOf",
  "oneOf",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
]);
/** Containers: what they hold is reached through `$ref` only. */
const DEFINITIONS = new Set(["$defs", "definitions"]);
/** Keywords this module may remove: a `$ref` through them cannot be followed. */
const REMOVABLE = new Set([
  "not",
  "if",
  "then",
  "else",
  "oneOf",
  "contains",
  "additionalProperties",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
/** What goes with a keyword that is not positive when it is removed. */
const GROUPS: Record<string, readonly string[]> = {
  not: ["not"],
  if: ["if", "then", "else"],
  oneOf: ["oneOf"],
  contains: ["contains", "minContains", "maxContains"],
};

/** A `$ref` that may lead anywhere in the schema. */
const ANYWHERE = Symbol("anywhere");

/** How a subschema hangs below its parent. */
type Edge = "positive" | "mixed" | "container";

interface Facts {
  /** The subschemas directly below, by the keyword holding them. */
  children: { keyword: string; node: Node; edge: Edge }[];
  /** Where its `$ref` leads, when inside the schema. */
  ref?: Node;
  /** Whether it has a `$ref` or `$recursiveRef` that may lead anywhere. */
  anywhere?: boolean;
}

/**
 * `schema` with every keyword `hazard` names taken out, and whatever else
 * that takes to keep the check from getting stricter. Subschemas that need
 * no change are shared with the input; the input is not modified. Returns
 * the input itself when nothing is hazardous.
 *
 * @param schema The schema as the server sent it.
 * @param hazard Which keywords to leave to the server.
 * @param refOverrides Whether `$ref` overrides its siblings (draft-04 and -07).
 */
export function loosen(
  schema: JsonSchema,
  hazard: Hazard,
  refOverrides = false,
): JsonSchema {
  const facts = new Map<Node, Facts>();
  const hazardous: Node[] = [];
  const unresolved: Node[] = [];
  const resolveRef = refResolver(schema, refOverrides);
  const stack: Node[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (facts.has(node)) continue;
    const found: Facts = { children: [] };
    facts.set(node, found);
    const bounded = node.maxContains !== undefined;
    for (const [keyword, value] of Object.entries(node)) {
      if (hazard(node, keyword)) hazardous.push(node);
      if (keyword === "$ref" || keyword === "$recursiveRef") {
        if (typeof value !== "string") continue;
        const target = keyword === "$ref" ? resolveRef(value) : ANYWHERE;
        if (target === ANYWHERE) {
          found.anywhere = true;
          unresolved.push(node);
        } else if (target !== undefined) found.ref = target;
        continue;
      }
      if (DATA.has(keyword)) continue;
      const edge: Edge = Object.hasOwn(GROUPS, keyword) &&
          (keyword !== "contains" || bounded)
        ? "mixed"
        : DEFINITIONS.has(keyword) ||
            !(SINGLE.has(keyword) || LIST.has(keyword) || MAP.has(keyword))
        ? "container"
        : "positive";
      for (const child of subschemas(keyword, value)) {
        found.children.push({ keyword, node: child, edge });
        stack.push(child);
      }
    }
  }
  if (hazardous.length === 0) return schema;

  // Whose evaluation involves a hazard: through applicators and $refs.
  const evaluatedBy = new Map<Node, Node[]>();
  const heldBy = new Map<Node, Node[]>();
  const inheritedBy = new Map<Node, Node[]>();
  const link = (map: Map<Node, Node[]>, from: Node, to: Node) => {
    const linked = map.get(from);
    if (linked === undefined) map.set(from, [to]);
    else linked.push(to);
  };
  for (const [node, { children, ref }] of facts) {
    for (const child of children) {
      link(heldBy, child.node, node);
      if (child.edge !== "container") link(evaluatedBy, child.node, node);
      if (INHERITING.has(child.keyword)) link(inheritedBy, node, child.node);
    }
    if (ref !== undefined && facts.has(ref)) {
      link(evaluatedBy, ref, node);
      link(inheritedBy, node, ref);
    }
  }
  let changed = closure([...hazardous, ...unresolved], evaluatedBy);
  // A change also reaches down: an unevaluated* keyword below a changed
  // subschema, through the keywords that hand it the annotations gathered
  // above, sees fewer evaluated items or properties, and goes too (which
  // changes its own subschema, and what evaluates that).
  for (;;) {
    const below = [...closure([...changed], inheritedBy)].filter((node) =>
      !changed.has(node) &&
      (node.unevaluatedItems !== undefined ||
        node.unevaluatedProperties !== undefined)
    );
    if (below.length === 0) break;
    changed = closure([...changed, ...below], evaluatedBy);
  }
  // What holds a changed subschema anywhere below it, so must be copied.
  const copied = closure([...changed], heldBy);

  const copies = new Map<Node, Node>();
  const rewrite = (node: Node): Node => {
    if (!copied.has(node)) return node;
    const known = copies.get(node);
    if (known !== undefined) return known;
    const copy: Node = {};
    copies.set(node, copy);
    const { children, anywhere } = facts.get(node)!;
    const drop = new Set<string>();
    const kept = new Map<string, unknown>();
    for (const keyword of Object.keys(node)) {
      const verdict = hazard(node, keyword);
      if (typeof verdict === "object") kept.set(keyword, verdict.keep);
      else if (verdict) {
        drop.add(keyword);
        // Properties it no longer covers would fall to additionalProperties.
        if (keyword === "patternProperties") drop.add("additionalProperties");
      }
    }
    for (const child of children) {
      if (child.edge === "mixed" && changed.has(child.node)) {
        for (const keyword of GROUPS[child.keyword]!) drop.add(keyword);
      }
    }
    if (changed.has(node)) {
      drop.add("unevaluatedProperties");
      drop.add("unevaluatedItems");
    }
    const lostRef = anywhere === true;
    if (lostRef) {
      drop.add("$ref");
      drop.add("$recursiveRef");
    }
    for (const [keyword, value] of Object.entries(node)) {
      if (drop.has(keyword)) continue;
      // With draft-04/07 the siblings of $ref never counted: keep only what $refs reach.
      if (lostRef && refOverrides && !DEFINITIONS.has(keyword)) continue;
      copy[keyword] = kept.has(keyword)
        ? kept.get(keyword)
        : DATA.has(keyword)
        ? value
        : rewriteValue(value);
    }
    return copy;
  };
  const rewriteValue = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      return value.map((item) => isRecord(item) ? rewrite(item) : item);
    }
    if (!isRecord(value)) return value;
    if (facts.has(value)) return rewrite(value);
    // A map of subschemas (properties, $defs, …).
    const map: Node = {};
    for (const [name, item] of Object.entries(value)) {
      map[name] = isRecord(item) ? rewrite(item) : item;
    }
    return map;
  };
  return rewrite(schema);
}

/** The subschemas a keyword's value holds. */
function subschemas(keyword: string, value: unknown): Node[] {
  if (Array.isArray(value)) {
    return LIST.has(keyword) ? value.filter(isRecord) : [];
  }
  if (!isRecord(value)) return [];
  return MAP.has(keyword) ? Object.values(value).filter(isRecord) : [value];
}

/** `start` and everything reached from it through `links`. */
function closure(start: Node[], links: Map<Node, Node[]>): Set<Node> {
  const reached = new Set<Node>(start);
  const queue = [...reached];
  while (queue.length > 0) {
    for (const next of links.get(queue.pop()!) ?? []) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  return reached;
}

/**
 * Resolves a `$ref` as the validator does, for the JSON pointers it can
 * follow: the subschema, {@linkcode ANYWHERE} when it cannot tell, or
 * `undefined` for a `$ref` that leads outside the schema or nowhere (the
 * validator refuses or skips it either way, with or without removals).
 */
function refResolver(
  root: JsonSchema,
  refOverrides: boolean,
): (ref: string) => Node | typeof ANYWHERE | undefined {
  const { ids, bases } = identifiers(root);
  return (ref) => {
    if (!ref.startsWith("#")) return ids ? ANYWHERE : undefined;
    if (bases) return ANYWHERE;
    if (ref === "#") return root;
    if (!ref.startsWith("#/")) return undefined;
    let segments: string[];
    try {
      segments = ref.slice(2).split("/").map((segment) =>
        decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~")
      );
    } catch {
      return ANYWHERE;
    }
    let node: unknown = root;
    for (let i = 0; i < segments.length; i++) {
      if (!isRecord(node)) return undefined;
      const keyword = segments[i]!;
      if (REMOVABLE.has(keyword)) return ANYWHERE;
      if (
        refOverrides && node.$ref !== undefined && !DEFINITIONS.has(keyword)
      ) {
        return ANYWHERE;
      }
      if (DATA.has(keyword) || !Object.hasOwn(node, keyword)) return undefined;
      let value = node[keyword];
      if (
        (Array.isArray(value) && LIST.has(keyword)) ||
        (isRecord(value) && MAP.has(keyword))
      ) {
        const name = segments[++i];
        if (name === undefined || !Object.hasOwn(value as object, name)) {
          return undefined;
        }
        value = (value as Record<string, unknown>)[name];
      }
      node = value;
    }
    return isRecord(node) ? node : undefined;
  };
}

/**
 * Whether any subschema has an `$id` (a `$ref` that is a URI may then lead
 * inside), and whether a `#` reference may resolve against anything but
 * the root: an `$id` below the root, or an anchor.
 */
function identifiers(root: JsonSchema): { ids: boolean; bases: boolean } {
  let ids = false;
  let bases = false;
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const record = node as Node;
    if (typeof record.$id === "string" || typeof record.id === "string") {
      ids = true;
      if (node !== root) bases = true;
    }
    if (
      typeof record.$anchor === "string" ||
      typeof record.$dynamicAnchor === "string" ||
      record.$recursiveAnchor === true
    ) bases = true;
    for (const [key, value] of Object.entries(record)) {
      if (!DATA.has(key)) stack.push(value);
    }
  }
  return { ids, bases };
}
