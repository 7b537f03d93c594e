/**
 * Loads the process backend of the running runtime: `node:child_process`
 * with Deno's primitives under Deno (`deno_host.ts`), with Node.js's under
 * Node.js and Bun (`child_process.ts`). The
 * backends are imported with `import()` and literal specifiers, so
 * `deno pack` rewrites them and bundlers split them into lazy chunks.
 *
 * The npm build points the stdio transport's import of this module through
 * the package's `imports` map (`#stdio-process`): the `workerd`,
 * `edge-light`, `worker` and `browser` conditions resolve it to
 * `unavailable.ts` instead, so edge and browser bundles hold no `node:`
 * import at all (`scripts/build_npm.ts`). Internal: never exported.
 *
 * @module
 */

import type { ProcessBackend } from "./backend.ts";

/**
 * Loads the backend of the running runtime.
 *
 * @returns The backend.
 * @throws {Error} On a runtime that has neither `Deno` nor Node.js's
 * `process` (a browser, a Worker): it cannot start processes.
 */
export async function loadBackend(): Promise<ProcessBackend> {
  const global = globalThis as {
    Deno?: unknown;
    process?: { versions?: { node?: unknown } };
  };
  if (global.Deno !== undefined) {
    return await (await import("./deno_host.ts")).load();
  }
  if (global.process?.versions?.node !== undefined) {
    return await (await import("./child_process.ts")).load();
  }
  return await (await import("./unavailable.ts")).loadBackend();
}
