/**
 * Tool-name aliases for model APIs that only accept `^[a-zA-Z0-9_-]{1,64}$`
 * as a function name: `github/get_issue` becomes `github__get_issue`.
 *
 * @module
 */

/**
 * The alphabet and length limit of function names in common model APIs;
 * every alias {@linkcode toolAlias} returns matches it.
 *
 * @example
 * ```ts
 * import { TOOL_ALIAS_PATTERN, toolAlias } from "@cleveragents/mcp-adapter";
 *
 * console.log(TOOL_ALIAS_PATTERN.test(toolAlias("my server/get item"))); // true
 * ```
 */
export const TOOL_ALIAS_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const HASH_SUFFIX_LENGTH = 9; // "_" + 8 hex digits
const ALLOWED = /^[a-zA-Z0-9_-]$/;
// What a hashed alias ends with. A plain alias never does (such names get a
// hash too), so a plain alias cannot equal another name's hashed alias.
const HASH_ENDING = /_[0-9a-f]{8}$/;
const encoder = new TextEncoder();

/**
 * Maps a tool name to a stable alias matching `^[a-zA-Z0-9_-]{1,64}$`.
 *
 * The first `/` becomes `__` and every other character outside the alphabet
 * becomes `_`. When that loses information (a character was replaced, the
 * namespace contains `__` or ends with `_`, so the `__` separator would be
 * ambiguous), or the result is longer than 64 characters, the alias is cut
 * to 55 characters and gets `_` plus 8 hex digits of the FNV-1a (32-bit) hash
 * of the name's UTF-8 bytes. So `a.b/x` and `a_b/x` get different aliases,
 * and plain aliases (`ns__tool`) decode to exactly one name.
 *
 * @param name A tool name, normally `{namespace}/{tool}`.
 * @returns The alias; the same name always gives the same alias.
 *
 * @example
 * ```ts
 * import { toolAlias } from "@cleveragents/mcp-adapter";
 *
 * console.log(toolAlias("github/get_issue")); // "github__get_issue"
 * console.log(toolAlias("files/read.file")); // "files__read_file_" + 8 hex digits
 * ```
 */
export function toolAlias(name: string): string {
  const slash = name.indexOf("/");
  const namespace = slash === -1 ? name : name.slice(0, slash);
  let lossy = false;
  const sanitize = (part: string) => {
    let out = "";
    for (const char of part) {
      if (ALLOWED.test(char)) {
        out += char;
      } else {
        out += "_";
        lossy = true;
      }
    }
    return out;
  };
  let alias = sanitize(namespace);
  if (slash === -1) {
    // Would read as `ns__tool`.
    if (alias.includes("__")) lossy = true;
  } else {
    // The first `__` of a plain alias must be the separator.
    if (alias.includes("__") || alias.endsWith("_")) lossy = true;
    alias += `__${sanitize(name.slice(slash + 1))}`;
  }
  if (
    !lossy && alias.length > 0 && alias.length <= MAX_LENGTH &&
    !HASH_ENDING.test(alias)
  ) {
    return alias;
  }
  return `${alias.slice(0, MAX_LENGTH - HASH_SUFFIX_LENGTH)}_${
    fnv1a32Hex(name)
  }`;
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`, as 8 lower-case hex digits. */
function fnv1a32Hex(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
