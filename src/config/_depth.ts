/**
 * Internal: how deeply a config or skill document may nest, checked
 * without recursion — on JSON text before it is parsed (`jsonc-parser`
 * recurses once per level and overflows the stack on text nested some
 * thousands deep), and on a loaded YAML value, whose aliases can nest it
 * deeper than its text does (js-yaml limits the depth of the text itself).
 *
 * @module
 */

import type { Path } from "../util/problem.ts";

/** How deeply values may nest (the root is at depth 0). */
export const MAX_DEPTH = 100;

/** The problem's text. */
export const TOO_DEEP = `is nested more than ${MAX_DEPTH} levels deep`;

/**
 * The path of a value nested deeper than {@linkcode MAX_DEPTH}, if there is
 * one. Counted without recursion, each shared (aliased) value once; a
 * cycle counts as too deep.
 */
export function tooDeepPath(root: unknown): Path | undefined {
  const limit = MAX_DEPTH + 1;
  const heights = new Map<object, number>();
  const childrenOf = (node: object): unknown[] => Object.values(node);
  const heightOf = (node: unknown): number =>
    typeof node === "object" && node !== null ? heights.get(node) ?? 0 : 0;
  if (typeof root !== "object" || root === null) return undefined;
  const stack: { node: object; expanded: boolean }[] = [{
    node: root,
    expanded: false,
  }];
  const open = new Set<object>();
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.expanded) {
      stack.pop();
      open.delete(top.node);
      let height = 0;
      for (const child of childrenOf(top.node)) {
        height = Math.max(height, heightOf(child) + 1);
      }
      heights.set(top.node, Math.min(height, limit));
      continue;
    }
    if (heights.has(top.node)) {
      stack.pop();
      continue;
    }
    top.expanded = true;
    open.add(top.node);
    for (const child of childrenOf(top.node)) {
      if (typeof child !== "object" || child === null) continue;
      if (open.has(child)) heights.set(child, limit); // a cycle
      else if (!heights.has(child)) {
        stack.push({ node: child, expanded: false });
      }
    }
  }
  if (heightOf(root) < limit) return undefined;
  // Follow the deepest child down to the first value past the limit.
  const path: (string | number)[] = [];
  let node: unknown = root;
  while (path.length < limit && typeof node === "object" && node !== null) {
    let next: [string | number, unknown] | undefined;
    for (const [key, child] of Object.entries(node)) {
      if (next === undefined || heightOf(child) > heightOf(next[1])) {
        next = [Array.isArray(node) ? Number(key) : key, child];
      }
    }
    if (next === undefined) break;
    path.push(next[0]);
    node = next[1];
  }
  return path;
}

/**
 * The offset of the first bracket nested deeper than {@linkcode MAX_DEPTH}
 * in JSON (or JSONC) text, strings and comments skipped; `undefined` when
 * there is none. Malformed text is left to the parser.
 */
export function tooDeepJson(text: string): number | undefined {
  let depth = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const char = text[index];
    if (char === '"') {
      for (index++; index < length; index++) {
        const inner = text[index];
        if (inner === "\\") index++;
        else if (inner === '"' || inner === "\n") break;
      }
    } else if (char === "/" && text[index + 1] === "/") {
      const end = text.indexOf("\n", index);
      index = end === -1 ? length : end;
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end === -1 ? length : end + 1;
    } else if (char === "[" || char === "{") {
      // The container at bracket depth d is at value depth d - 1.
      if (++depth > MAX_DEPTH + 1) return index;
    } else if ((char === "]" || char === "}") && depth > 0) {
      depth--;
    }
  }
  return undefined;
}
