/**
 * A scratch Node project for running our TypeScript against the packed npm
 * package: installing the tarball beside other packages, and turning a `.ts`
 * module into a `.js` one that Node loads. Shared by `test_node.ts` and
 * `bench_node.ts`.
 *
 * @module
 */

import { join, relative } from "node:path";
import { transform } from "esbuild";
import { ROOT } from "./_deps.ts";
import { log, logError, mustRun } from "./_run.ts";

/**
 * Writes a `package.json` (`type: module`, so Node loads the transpiled
 * `.js` files as ES modules) into `dir` and installs the tarball and
 * `specs` there.
 *
 * @param dir The scratch folder.
 * @param tarball The npm tarball to install.
 * @param specs Further packages, as npm install specs (`name@range`).
 * @param timeoutMs Deadline of `npm install`.
 * @throws {Error} When npm fails or passes the deadline, saying which.
 *
 * @example
 * ```ts ignore
 * import { installPackages } from "./_node_project.ts";
 *
 * await installPackages(dir, "dist/x-0.1.0.tgz", ["zod@^4.1.0"], 300_000);
 * ```
 */
export async function installPackages(
  dir: string,
  tarball: string,
  specs: readonly string[],
  timeoutMs: number,
): Promise<void> {
  // Install scripts approved for npm (which warns about every other one):
  // `node` fetches a Node line's binary in its, esbuild checks its own.
  const manifest = {
    private: true,
    type: "module",
    allowScripts: { node: true, esbuild: true },
  };
  await Deno.writeTextFile(
    join(dir, "package.json"),
    JSON.stringify(manifest) + "\n",
  );
  log(`npm install ${relative(ROOT, tarball)} ${specs.join(" ")}`);
  const flags = [
    "--no-audit",
    "--no-fund",
    "--no-package-lock",
    "--prefer-offline",
  ];
  await mustRun("npm", ["install", ...flags, tarball, ...specs], {
    cwd: dir,
    timeoutMs,
  });
}

/**
 * Strips the types of one module with esbuild (inline source map) and
 * rewrites its relative imports with `resolve`.
 *
 * @param source The absolute path of the `.ts` file.
 * @param from Its path relative to the repository root, for messages.
 * @param resolve Maps a relative specifier (`./x.ts`, `../y.mjs`) to the
 * one the `.js` file should import.
 * @returns The JavaScript.
 *
 * @example
 * ```ts ignore
 * import { transpileModule } from "./_node_project.ts";
 *
 * const code = await transpileModule(path, "bench/x.ts", (s) => s.replace(/\.ts$/, ".js"));
 * ```
 */
export async function transpileModule(
  source: string,
  from: string,
  resolve: (specifier: string) => string,
): Promise<string> {
  const result = await transform(await Deno.readTextFile(source), {
    loader: "ts",
    format: "esm",
    target: "node20",
    sourcefile: source,
    sourcemap: "inline",
  });
  for (const warning of result.warnings) logError(`${from}: ${warning.text}`);
  return result.code.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bimport\.meta\.resolve\(\s*)(["'])(\.\.?\/[^"'\n]*)\2/g,
    (_match, lead: string, quote: string, specifier: string) =>
      `${lead}${quote}${resolve(specifier)}${quote}`,
  );
}
