/**
 * A module (or any value) loaded on first use: the one way the library
 * defers code it may never need, so that each site reads the same and the
 * root chunk stays small. Internal.
 *
 * @module
 */

/** A value loaded on first use; see {@linkcode lazy}. */
export interface Lazy<T> {
  /**
   * The value once loaded, `undefined` before: a hot path reads it without
   * a promise, and loads only when it is missing.
   */
  readonly value: T | undefined;
  /**
   * Loads the value on the first call; later calls, concurrent ones too,
   * share that load. A load that fails is tried again by the next call.
   */
  load(): Promise<T>;
}

/**
 * Wraps `load` (typically `() => import("./module.ts")`) so that it runs
 * once, when first needed.
 *
 * @example
 * ```ts ignore
 * const apps = lazy(() => import("../apps/apps.ts"));
 * const { readUi } = apps.value ?? await apps.load();
 * ```
 *
 * @param load Produces the value; called at most once per success.
 * @returns The lazy value.
 */
export function lazy<T>(load: () => Promise<T>): Lazy<T> {
  let value: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get value() {
      return value;
    },
    load() {
      return loading ??= load().then(
        (loaded) => value = loaded,
        (error) => {
          loading = undefined;
          throw error;
        },
      );
    },
  };
}
