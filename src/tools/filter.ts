/**
 * Choose which of a server's tools to expose: exact names or `*` globs, with
 * `exclude` winning over `include`.
 *
 * @module
 */

import { globSource, isGlob } from "../util/glob.ts";
import { describeValue } from "../util/values.ts";
import { MCPConfigError } from "../errors.ts";
import type { MCPToolFilter } from "../types.ts";

type ListKey = "include" | "exclude";

/** Matches a name against one validated pattern list. */
type Matcher = (name: string) => boolean;

const FILTER_KEYS: ReadonlySet<string> = new Set(["include", "exclude"]);

function includeAll(_name: string): boolean {
  return true;
}

/**
 * Compiles a tool filter into a predicate on tool names, validating it once.
 *
 * Patterns are exact tool names or globs in which `*` matches any run of
 * characters (including none); every other character is literal, so `a.b`
 * matches only `a.b`. A name matching `exclude` is always dropped. Without an
 * `include` list every other name is kept; an empty `include` list keeps
 * nothing.
 *
 * @param filter The filter; `undefined` keeps every tool.
 * @returns A predicate that is `true` for the names to keep.
 * @throws {MCPConfigError} If `filter` is not an object with only `include`
 * and `exclude` keys (`field` is `"filter"`), or if either list is not an
 * array of non-empty strings (`field` is `"filter.include"` or
 * `"filter.exclude"`).
 *
 * @example Keep the read tools, but never the admin ones
 * ```ts
 * import { compileToolFilter } from "@cleveragents/mcp-adapter";
 *
 * const keep = compileToolFilter({ include: ["get_*", "list_*"], exclude: ["*_admin"] });
 * console.log(keep("get_user")); // true
 * console.log(keep("get_admin")); // false
 * console.log(keep("delete_user")); // false
 * ```
 */
export function compileToolFilter(
  filter?: MCPToolFilter,
): (name: string) => boolean {
  if (filter === undefined) return includeAll;
  if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
    throw new MCPConfigError(
      "filter",
      `filter must be an object with include and/or exclude lists, got ${
        describeValue(filter)
      }; write { include: ["tool_name", "get_*"] } or leave it out to keep every tool`,
    );
  }
  for (const key of Object.keys(filter)) {
    if (!FILTER_KEYS.has(key)) {
      throw new MCPConfigError(
        "filter",
        `filter has an unknown key ${
          describeValue(key)
        }; write include and/or exclude`,
      );
    }
  }
  const include = compileList(filter, "include");
  const exclude = compileList(filter, "exclude");
  if (exclude === undefined) return include ?? includeAll;
  if (include === undefined) return (name) => !exclude(name);
  return (name) => !exclude(name) && include(name);
}

/**
 * Returns the tools whose names pass `filter`, in their original order.
 *
 * @typeParam T Anything with a `name`, such as an `MCPToolDescriptor`.
 * @param tools The tools to filter; not modified.
 * @param filter The filter; `undefined` keeps every tool.
 * @returns A new array with the kept tools.
 * @throws {MCPConfigError} If `filter` is invalid (see {@linkcode compileToolFilter}).
 *
 * @example Drop one tool by name
 * ```ts
 * import { applyToolFilter } from "@cleveragents/mcp-adapter";
 *
 * const tools = [{ name: "echo" }, { name: "get_sum" }, { name: "delete_all" }];
 * const kept = applyToolFilter(tools, { exclude: ["delete_all"] });
 * console.log(kept.map((tool) => tool.name)); // ["echo", "get_sum"]
 * ```
 */
export function applyToolFilter<T extends { name: string }>(
  tools: readonly T[],
  filter?: MCPToolFilter,
): T[] {
  if (filter === undefined) return tools.slice();
  const keep = compileToolFilter(filter);
  return tools.filter((tool) => keep(tool.name));
}

function compileList(
  filter: MCPToolFilter,
  key: ListKey,
): Matcher | undefined {
  const list: unknown = filter[key];
  if (list === undefined) return undefined;
  const field = `filter.${key}`;
  const expected = `${field} must be an array of tool names or "*" globs`;
  if (!Array.isArray(list)) {
    throw new MCPConfigError(
      field,
      `${expected}, got ${describeValue(list)}; ${listFix(key, list)}`,
    );
  }
  const exact = new Set<string>();
  const globs: string[] = [];
  for (let index = 0; index < list.length; index++) {
    const pattern: unknown = list[index];
    if (typeof pattern !== "string") {
      throw new MCPConfigError(
        field,
        `${expected}, got ${describeValue(pattern)} at index ${index}; ${
          entryFix(pattern)
        }`,
      );
    }
    if (pattern === "") {
      throw new MCPConfigError(
        field,
        `${expected}, got an empty string at index ${index}, which matches no tool; write a tool name or a "*" glob`,
      );
    }
    if (isGlob(pattern)) globs.push(globSource(pattern));
    else exact.add(pattern);
  }
  if (globs.length === 0) return (name) => exact.has(name);
  // One alternation keeps a match to a single RegExp test however many globs.
  const anyGlob = new RegExp(`^(?:${globs.join("|")})$`, "s");
  return (name) => exact.has(name) || anyGlob.test(name);
}

function listFix(key: ListKey, list: unknown): string {
  if (typeof list === "string") return `write [${describeValue(list)}]`;
  if (list === null) {
    return key === "include"
      ? "write [] to keep no tool, or leave include out to keep every tool"
      : "write [] or leave exclude out to drop no tool";
  }
  return `write a list such as ["echo", "get_*"]`;
}

function entryFix(entry: unknown): string {
  if (typeof entry === "number" || typeof entry === "boolean") {
    return `write it as a string: "${entry}"`;
  }
  return `write each entry as a string such as "echo" or "get_*"`;
}
