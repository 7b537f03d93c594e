/**
 * Small helpers for values of unknown shape: what a parsed document, a
 * server's message or a caller's argument turned out to be. Internal.
 *
 * @module
 */

/** Whether a value is a plain object (a mapping), not a list or null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Describes a value's kind for a message without showing the value: values
 * may be secrets.
 *
 * @param value Any parsed value.
 * @returns `a string`, `a number`, `a boolean`, `a list`, `an object`, `null` or `nothing`.
 */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    case "undefined":
      return "nothing";
    default:
      return `a ${typeof value}`;
  }
}

/**
 * A server's value where text belongs, as text: a string as it is, a
 * number or boolean as written, nothing (`null`, `undefined`) as `""`,
 * and anything else as what it is, in brackets (`[an object]`, `[a list]`).
 * Never through the value's own `toString`: a parsed object can shadow it
 * (`{"toString": 1}` makes `String()` throw), and `String()` of a list
 * nested thousands deep overflows the stack.
 *
 * @param value Any parsed value.
 * @returns Text to show, still to be made safe for where it goes.
 */
export function asText(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "boolean":
      return String(value);
    case "undefined":
      return "";
    default:
      return value === null ? "" : `[${kindOf(value)}]`;
  }
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

/**
 * Sets an own, enumerable property, even one named `__proto__`.
 *
 * @param target The object.
 * @param key The property name, as written in a file.
 * @param value Its value.
 */
export function setOwn(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * `table[key]` when `key` is the table's own property, else `undefined`: a
 * key from a server or a file (`constructor`, `toString`, `__proto__`)
 * never reaches what every object inherits.
 *
 * @param table A lookup table written in the code.
 * @param key The key, as received.
 */
export function ownValue<T>(
  table: Readonly<Record<string, T>>,
  key: string,
): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * What `write()` returns, or `undefined` when the data it writes nests too
 * deeply for JSON.stringify, which recurses: a server's data can nest past
 * the stack (Node overflows at about 5,000 levels; Deno on objects with
 * index keys at 3,000-5,000, with an indent at about 10,000). Nothing is
 * walked first, so data that can be written costs only its writing. What
 * else `write()` throws (a cycle in a host's own value) is thrown on.
 */
export function unlessTooDeep<T>(write: () => T): T | undefined {
  try {
    return write();
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * Whether `value` nests more than `limit` levels of objects and lists (a
 * scalar is at level 0, `{}` at 1), counted without recursion and without
 * looking past the limit: for data whose depth a recursive walk must not
 * trust.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  // Only objects and lists are kept, in two stacks: no pair per value.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === "object" && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
