/**
 * What three ways of writing the same check or object cost on V8 (the
 * engine of Deno, Node and Chromium; measured here on Deno): the facts
 * behind the shape of the quick argument check
 * (`src/validation/_fast_check.ts`) and of a call's `ToolCall`
 * (`src/adapter/_invoke.ts`), kept here so that a later V8 that changes
 * them shows. Each entry runs over 1,024 objects made in advance, one
 * shape, as a tool's arguments are.
 *
 * - "prototype": `Object.getPrototypeOf(o) === Object.prototype`, alone
 *   and after a read of a property of `o`, both behind the `typeof` test
 *   the check has: once V8 knows the object's map from a read, it folds the
 *   prototype to a constant; alone, it is a call. (Without the `typeof`
 *   test before them, Deno 2.9.6 folds neither.)
 * - "own keys": a `for…in` over `o` that tells own keys from inherited
 *   ones with `Object.hasOwn(o, key)` (a call per key), with
 *   `Object.prototype.hasOwnProperty.call(o, key)` (folded away in a
 *   `for…in` over the same object), and with no test at all (the floor).
 * - "construct": `new` of a class whose fields come partly from a base
 *   class, and of one with the same fields all its own: a derived class's
 *   `super()` is a construct call of its own, whatever the fields.
 *
 * Run it with `deno bench bench/v8_idioms_bench.ts`. Only the ratios to
 * each group's baseline mean anything; absolute times depend on the
 * machine's load.
 *
 * @module
 */

const SIZE = 1024;
const objects = Array.from({ length: SIZE }, (_, i) => ({ text: `m${i}` }));
let next = 0;
let sink = 0;
const taken = (): Record<string, unknown> => objects[next++ & (SIZE - 1)]!;

Deno.bench({
  name: "getPrototypeOf alone",
  group: "prototype",
  baseline: true,
  fn() {
    const o: unknown = taken();
    if (
      typeof o === "object" && o !== null &&
      Object.getPrototypeOf(o) === Object.prototype
    ) sink++;
  },
});

Deno.bench({
  name: "getPrototypeOf after reading o.toJSON",
  group: "prototype",
  fn() {
    const o: unknown = taken();
    if (
      typeof o === "object" && o !== null &&
      typeof (o as { toJSON?: unknown }).toJSON !== "function" &&
      Object.getPrototypeOf(o) === Object.prototype
    ) sink++;
  },
});

const hasOwnProperty = Object.prototype.hasOwnProperty;

Deno.bench({
  name: "for…in with Object.hasOwn",
  group: "own keys",
  baseline: true,
  fn() {
    const o = taken();
    for (const key in o) if (Object.hasOwn(o, key)) sink++;
  },
});

Deno.bench({
  name: "for…in with hasOwnProperty.call",
  group: "own keys",
  fn() {
    const o = taken();
    for (const key in o) if (hasOwnProperty.call(o, key)) sink++;
  },
});

Deno.bench({
  name: "for…in alone (inherited keys too)",
  group: "own keys",
  fn() {
    const o = taken();
    for (const _key in o) sink++;
  },
});

/** Fields from a base class, as `ToolCall` had the session's. */
abstract class Base {
  id = 0;
  method = "";
  deadline = 0;
  abstract resolve(result: unknown): void;
}

class Derived extends Base {
  readonly name: string;

  constructor(name: string) {
    super();
    this.name = name;
  }

  resolve(): void {}
}

/** The same fields, all its own, as `ToolCall` has them now. */
class Flat {
  id = 0;
  method = "";
  deadline = 0;
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  resolve(): void {}
}

/** Where the made objects go, so that none is optimised away. */
const kept: unknown[] = new Array(SIZE);

Deno.bench({
  name: "new of a class with 3 of its 4 fields from a base",
  group: "construct",
  baseline: true,
  fn() {
    kept[next++ & (SIZE - 1)] = new Derived("echo");
  },
});

Deno.bench({
  name: "new of a class with all 4 its own",
  group: "construct",
  fn() {
    kept[next++ & (SIZE - 1)] = new Flat("echo");
  },
});

globalThis.addEventListener("unload", () => {
  if (sink < 0) throw new Error("unreachable: keeps the checks' results live");
});
