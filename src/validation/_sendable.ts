/**
 * What JSON can carry of a tool's arguments. The transports send arguments
 * with `JSON.stringify`, which turns NaN and ±Infinity into null, leaves
 * functions out and throws on a BigInt, a cycle or a getter that throws;
 * here each of those is found first, with where it is, so that the call
 * fails as a validation error instead. A quick test settles plain data
 * without building any path. Internal.
 *
 * @module
 */

import { errorMessage } from "../util/caught.ts";

/** Nesting the quick JSON test follows before leaving the value to the full one. */
const QUICK_JSON_DEPTH = 32;

/**
 * Whether a value is plain JSON at a glance: finite numbers, strings,
 * booleans, null, and arrays and objects of those, without `toJSON`, a
 * few levels deep. `false` only sends the value to {@linkcode unsendable}.
 */
export function quickJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= QUICK_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!quickJson(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return false;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    // An own property set to undefined is left out, as JSON.stringify does.
    if (item !== undefined && !quickJson(item, depth + 1)) return false;
  }
  return true;
}

/**
 * The first part of `args` that JSON cannot carry as it is, as
 * `"/pointer: what"`: NaN and ±Infinity (sent as null), a BigInt, a
 * function or a symbol, undefined in a list (sent as null), a circular
 * reference, or a property whose getter throws. `undefined` when all is
 * sendable. A value with its own `toJSON` (a Date) is taken as it is.
 */
export function unsendable(args: unknown): string | undefined {
  interface Visit {
    value: unknown;
    at: string;
    inList: boolean;
  }
  const ancestors = new Set<object>();
  const stack: (Visit | { leave: object })[] = [
    { value: args, at: "", inList: false },
  ];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ("leave" in item) {
      ancestors.delete(item.leave);
      continue;
    }
    const { value, at, inList } = item;
    const where = at || "/";
    switch (typeof value) {
      case "string":
      case "boolean":
        continue;
      case "number":
        if (Number.isFinite(value)) continue;
        return `${where}: ${value} is not a JSON number (it would be sent as null)`;
      case "bigint":
        return `${where}: a BigInt cannot be sent as JSON; pass it as a number or a string`;
      case "undefined":
        if (!inList) continue; // a property set to undefined is left out
        return `${where}: undefined in a list would be sent as null`;
      case "function":
      case "symbol":
        return `${where}: a ${typeof value} cannot be sent as JSON`;
    }
    if (value === null) continue;
    const object = value as Record<string, unknown>;
    let keys: string[];
    try {
      if (typeof object.toJSON === "function") continue;
      keys = Array.isArray(object) ? [] : Object.keys(object);
    } catch (error) {
      return `${where}: reading it threw: ${safeMessage(error)}`;
    }
    if (ancestors.has(object)) {
      return `${where}: it contains itself (a circular reference), which JSON cannot carry`;
    }
    ancestors.add(object);
    stack.push({ leave: object });
    if (Array.isArray(object)) {
      for (let i = object.length - 1; i >= 0; i--) {
        stack.push({ value: object[i], at: `${at}/${i}`, inList: true });
      }
      continue;
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const path = `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      let child: unknown;
      try {
        child = object[key];
      } catch (error) {
        return `${path}: reading it threw: ${safeMessage(error)}`;
      }
      stack.push({ value: child, at: path, inList: false });
    }
  }
  return undefined;
}

/** An error's message, whatever was thrown. */
export function safeMessage(error: unknown): string {
  try {
    return errorMessage(error);
  } catch {
    return "an error that cannot be shown";
  }
}
