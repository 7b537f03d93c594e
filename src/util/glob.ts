/**
 * Internal helpers for the pattern lists in user configuration (tool filters,
 * capability overrides): the one glob implementation, and the way error
 * messages quote an offending value. Not exported from `mod.ts`.
 *
 * @module
 */

// Every character RegExp treats specially outside a character class.
const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/]/g;
const STARS = /\*+/;

/**
 * Returns whether `pattern` contains a `*` wildcard.
 *
 * @param pattern A tool name or glob.
 * @returns `true` when `pattern` is a glob rather than an exact name.
 *
 * @example
 * ```ts ignore
 * isGlob("get_*"); // true
 * isGlob("a.b"); // false
 * ```
 */
export function isGlob(pattern: string): boolean {
  return pattern.includes("*");
}

/**
 * Returns the unanchored RegExp source of a glob: `*` matches any run of
 * characters (including none, and including `/`); every other character is
 * literal. Runs of `*` collapse into one, so `a**b` costs no more than `a*b`.
 * Compile with the `s` flag so `*` also matches line breaks.
 *
 * @param pattern A tool name or glob.
 * @returns RegExp source to embed in a larger pattern.
 *
 * @example
 * ```ts ignore
 * globSource("a.b*"); // "a\\.b.*"
 * ```
 */
export function globSource(pattern: string): string {
  return pattern.split(STARS).map(escapeRegExp).join(".*");
}

/**
 * Compiles a glob to an anchored RegExp (see {@linkcode globSource}).
 *
 * @param pattern A tool name or glob.
 * @returns A RegExp that matches whole names only.
 *
 * @example
 * ```ts ignore
 * globToRegExp("get_*").test("get_user"); // true
 * globToRegExp("a.b").test("aXb"); // false
 * ```
 */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${globSource(pattern)}$`, "s");
}

function escapeRegExp(text: string): string {
  return text.replace(REGEXP_SPECIAL, "\\$&");
}
