/**
 * Node built-ins reached at call time (`process.getBuiltinModule`, Node
 * 22.3+, Deno, Bun) instead of by a static `import`, so that a module
 * which works with files only when asked (the file stores) keeps its
 * entry's module graph free of `node:` imports: the graph bundles for
 * browsers and edge runtimes, and fails only when a file is touched there.
 *
 * @module
 */

/** The part of `process` the callers read. */
interface ProcessLike {
  getBuiltinModule?: (id: string) => unknown;
  env?: Record<string, string | undefined>;
  platform?: string;
  pid?: number;
}

/** The runtime's `process`, when it has one (Node, Deno, Bun). */
export function processOf(): ProcessLike | undefined {
  return (globalThis as { process?: ProcessLike }).process;
}

/**
 * A Node built-in module, e.g. `builtin<typeof import("node:fs/promises")>("node:fs/promises")`.
 *
 * @param id The module's `node:` specifier.
 * @returns The module.
 * @throws {Error} When the runtime has no Node built-ins (a browser, an
 * edge runtime without Node compatibility), naming what needs them.
 */
export function builtin<T>(id: string): T {
  const module = processOf()?.getBuiltinModule?.(id);
  if (module === undefined) {
    throw new Error(
      `${id} is not available in this runtime; the file stores need Node.js 22+, Deno or Bun (use a RedisTokenStore or your own store elsewhere)`,
    );
  }
  return module as T;
}
