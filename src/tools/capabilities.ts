/**
 * Work out what a tool may do to the world (`{ readOnly, writes }`) from its
 * name, then from the server's annotations, then from user overrides.
 *
 * @module
 */

import { globToRegExp, isGlob } from "../util/glob.ts";
import { describeValue } from "../util/values.ts";
import { MCPConfigError } from "../errors.ts";
import type { ToolAnnotations, ToolCapability } from "../types.ts";

/**
 * Capability overrides keyed by tool name or `*` glob. Globs apply first, in
 * insertion order; the exact name applies last, so the most specific entry
 * wins.
 *
 * @example
 * ```ts
 * import type { CapabilityOverrides } from "@cleveragents/mcp-adapter";
 *
 * const overrides: CapabilityOverrides = {
 *   "*_preview": { readOnly: true },
 *   "set_preview": { writes: true },
 * };
 * ```
 */
export type CapabilityOverrides = Record<string, Partial<ToolCapability>>;

const READ_KEYWORDS: ReadonlySet<string> = new Set([
  "read",
  "get",
  "list",
  "search",
  "find",
]);
const WRITE_KEYWORDS: ReadonlySet<string> = new Set([
  "write",
  "create",
  "update",
  "delete",
  "set",
]);
// Bounds of the keyword lengths, checked before a word is sliced out.
const SHORTEST_KEYWORD = 3;
const LONGEST_KEYWORD = 6;

// Character classes of the word scanner.
const SEPARATOR = 0;
const LOWER = 1; // also uncased letters, digits of other scripts, marks
const UPPER = 2;
const DIGIT = 3;

const NON_ASCII_UPPER = /\p{Lu}/u;
const NON_ASCII_WORD = /[\p{L}\p{M}\p{N}]/u;

// Keyword kinds found in a word.
const NONE = 0;
const READS = 1;
const WRITES = 2;

const OVERRIDE_KEYS: ReadonlySet<string> = new Set(["readOnly", "writes"]);
const GLOB_CACHE_LIMIT = 256;
const globCache = new Map<string, RegExp>();

/**
 * Infers a tool's capability from the words of its name.
 *
 * Words are split on `_`, `-`, `.`, `/`, whitespace and other punctuation, on
 * camelCase and PascalCase boundaries (`HTTPGetRequest` is `http get
 * request`), and between letters and digits, then compared in lower case. A
 * name with `read`, `get`, `list`, `search` or `find` is read-only; one with
 * `write`, `create`, `update`, `delete` or `set` writes, even if it also has a
 * read word. A keyword inside a longer word (`settings`, `reset`, `target`)
 * does not count.
 *
 * @param toolName The tool's name as the server exposes it.
 * @returns A new capability object.
 *
 * @example Read, write, both and neither
 * ```ts
 * import { inferCapabilities } from "@cleveragents/mcp-adapter";
 *
 * console.log(inferCapabilities("getUser")); // { readOnly: true, writes: false }
 * console.log(inferCapabilities("delete_file")); // { readOnly: false, writes: true }
 * console.log(inferCapabilities("read_and_update")); // { readOnly: false, writes: true }
 * console.log(inferCapabilities("get_settings")); // { readOnly: true, writes: false }
 * console.log(inferCapabilities("echo")); // { readOnly: false, writes: false }
 * ```
 */
export function inferCapabilities(toolName: string): ToolCapability {
  const length = toolName.length;
  let readOnly = false;
  let start = 0;
  let previous = SEPARATOR;
  for (let index = 0; index <= length; index++) {
    const current = index < length
      ? charClass(toolName.charCodeAt(index))
      : SEPARATOR;
    if (previous === SEPARATOR) {
      start = index;
    } else if (
      current === SEPARATOR ||
      (previous === DIGIT) !== (current === DIGIT) ||
      (previous === LOWER && current === UPPER) ||
      // The last capital of a run starts the next word: HTTP|Get.
      (previous === UPPER && current === UPPER && index + 1 < length &&
        charClass(toolName.charCodeAt(index + 1)) === LOWER)
    ) {
      const kind = keywordKind(toolName, start, index);
      if (kind === WRITES) return { readOnly: false, writes: true };
      if (kind === READS) readOnly = true;
      start = index;
    }
    previous = current;
  }
  return { readOnly, writes: false };
}

/**
 * Resolves a tool's capability from its name, the server's annotations and
 * user overrides, in that order.
 *
 * The name decides when it has a keyword (see {@linkcode inferCapabilities}).
 * When it has none, `annotations.readOnlyHint: true` makes the tool read-only
 * and `readOnlyHint: false` makes it write. `destructiveHint: true` always
 * makes it write. Overrides apply last (see
 * {@linkcode applyCapabilityOverrides}).
 *
 * @param toolName The tool's name as the server exposes it.
 * @param options `annotations`: the server's hints for the tool, which fill in
 * only where the name is silent; `overrides`: user overrides, applied last.
 * @returns A new capability object.
 * @throws {MCPConfigError} If an override that applies to `toolName` is
 * invalid.
 *
 * @example A silent name takes the server's hint; overrides have the last word
 * ```ts
 * import { resolveCapability } from "@cleveragents/mcp-adapter";
 *
 * const annotations = { readOnlyHint: true };
 * console.log(resolveCapability("echo", { annotations }));
 * // { readOnly: true, writes: false }
 * console.log(resolveCapability("echo", { annotations, overrides: { echo: { writes: true } } }));
 * // { readOnly: false, writes: true }
 * ```
 */
export function resolveCapability(
  toolName: string,
  options: {
    annotations?: ToolAnnotations;
    overrides?: CapabilityOverrides;
  } = {},
): ToolCapability {
  let capability = inferCapabilities(toolName);
  const annotations = options.annotations;
  if (annotations !== undefined) {
    if (!capability.readOnly && !capability.writes) {
      if (annotations.readOnlyHint === true) {
        capability = { readOnly: true, writes: false };
      } else if (annotations.readOnlyHint === false) {
        capability = { readOnly: false, writes: true };
      }
    }
    if (annotations.destructiveHint === true) {
      capability = { readOnly: false, writes: true };
    }
  }
  if (options.overrides === undefined) return capability;
  return applyCapabilityOverrides(toolName, capability, options.overrides);
}

/**
 * Applies the overrides that match `toolName` to a capability.
 *
 * Glob keys apply first, in insertion order, then the exact-name key, so the
 * most specific entry wins. Setting one field to `true` sets the other to
 * `false` unless the entry gives both: `{ readOnly: true }` means
 * `writes: false` and `{ writes: true }` means `readOnly: false`. Setting a
 * field to `false` changes only that field.
 *
 * @param toolName The tool's name as the server exposes it.
 * @param capability The capability so far; not modified.
 * @param overrides Overrides keyed by tool name or `*` glob.
 * @returns A new capability object.
 * @throws {MCPConfigError} If a matching entry is not an object, has a key
 * other than `readOnly` and `writes`, has a non-boolean value, or sets both
 * fields to `true` (`field` is `"overrides"`).
 *
 * @example The exact name beats a glob
 * ```ts
 * import { applyCapabilityOverrides } from "@cleveragents/mcp-adapter";
 *
 * const overrides = { "*_preview": { readOnly: true }, set_preview: { writes: true } };
 * const inferred = { readOnly: false, writes: false };
 * console.log(applyCapabilityOverrides("get_preview", inferred, overrides));
 * // { readOnly: true, writes: false }
 * console.log(applyCapabilityOverrides("set_preview", inferred, overrides));
 * // { readOnly: false, writes: true }
 * ```
 */
export function applyCapabilityOverrides(
  toolName: string,
  capability: ToolCapability,
  overrides: CapabilityOverrides,
): ToolCapability {
  const result = { readOnly: capability.readOnly, writes: capability.writes };
  for (const pattern in overrides) {
    if (
      Object.hasOwn(overrides, pattern) && pattern !== toolName &&
      isGlob(pattern) && compiledGlob(pattern).test(toolName)
    ) {
      applyOverride(result, pattern, overrides[pattern]);
    }
  }
  if (Object.hasOwn(overrides, toolName)) {
    applyOverride(result, toolName, overrides[toolName]);
  }
  return result;
}

function charClass(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code < 128) return SEPARATOR;
  const char = String.fromCharCode(code);
  if (NON_ASCII_UPPER.test(char)) return UPPER;
  return NON_ASCII_WORD.test(char) ? LOWER : SEPARATOR;
}

function keywordKind(name: string, start: number, end: number): number {
  const length = end - start;
  if (length < SHORTEST_KEYWORD || length > LONGEST_KEYWORD) return NONE;
  const word = name.slice(start, end).toLowerCase();
  if (WRITE_KEYWORDS.has(word)) return WRITES;
  return READ_KEYWORDS.has(word) ? READS : NONE;
}

function compiledGlob(pattern: string): RegExp {
  let regExp = globCache.get(pattern);
  if (regExp === undefined) {
    regExp = globToRegExp(pattern);
    if (globCache.size >= GLOB_CACHE_LIMIT) {
      const oldest = globCache.keys().next();
      if (!oldest.done) globCache.delete(oldest.value);
    }
    globCache.set(pattern, regExp);
  }
  return regExp;
}

function applyOverride(
  capability: ToolCapability,
  key: string,
  override: unknown,
): void {
  const entry = `overrides[${describeValue(key)}]`;
  if (
    typeof override !== "object" || override === null ||
    Array.isArray(override)
  ) {
    throw new MCPConfigError(
      "overrides",
      `${entry} must be an object, got ${
        describeValue(override)
      }; write { readOnly: true } or { writes: true }`,
    );
  }
  for (const field of Object.keys(override)) {
    if (!OVERRIDE_KEYS.has(field)) {
      throw new MCPConfigError(
        "overrides",
        `${entry} has an unknown key ${
          describeValue(field)
        }; write readOnly and/or writes`,
      );
    }
  }
  const { readOnly, writes } = override as Partial<Record<string, unknown>>;
  checkFlag(entry, "readOnly", readOnly);
  checkFlag(entry, "writes", writes);
  if (readOnly === true && writes === true) {
    throw new MCPConfigError(
      "overrides",
      `${entry} sets both readOnly and writes to true, but a tool that writes is not read-only; keep one of them`,
    );
  }
  if (typeof readOnly === "boolean") {
    capability.readOnly = readOnly;
    if (readOnly && writes === undefined) capability.writes = false;
  }
  if (typeof writes === "boolean") {
    capability.writes = writes;
    if (writes && readOnly === undefined) capability.readOnly = false;
  }
}

function checkFlag(entry: string, field: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new MCPConfigError(
      "overrides",
      `${entry}.${field} must be true or false, got ${
        describeValue(value)
      }; write true or false without quotes`,
    );
  }
}
