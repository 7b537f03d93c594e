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

/**
 * Quotes a value for an error message: JSON where possible, shortened to
 * `maxLength` characters.
 *
 * @param value Any value a user may have written.
 * @param maxLength Longest text returned; longer text ends in `…`.
 * @returns A short, readable rendering of `value`.
 *
 * @example
 * ```ts ignore
 * describeValue("echo"); // "\"echo\""
 * describeValue("x".repeat(100), 10); // "\"xxxxxxxx…"
 * ```
 */
export function describeValue(value: unknown, maxLength = 60): string {
  let text: string;
  switch (typeof value) {
    case "undefined":
      text = "undefined";
      break;
    case "function":
      text = "a function";
      break;
    case "bigint":
      text = `${value}n`;
      break;
    case "symbol":
      text = value.toString();
      break;
    default:
      try {
        text = JSON.stringify(value) ?? String(value);
      } catch {
        text = Object.prototype.toString.call(value);
      }
  }
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

function escapeRegExp(text: string): string {
  return text.replace(REGEXP_SPECIAL, "\\$&");
}
