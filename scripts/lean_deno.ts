/**
 * What a Deno program that imports only the root entry downloads: a fresh
 * `DENO_DIR`, a program that constructs an adapter (no OAuth, no server),
 * and the import map the published package would carry for the root
 * entry's runtime dependencies. Counts the npm packages fetched and fails
 * past {@linkcode MAX_PACKAGES}: an optional dependency (the MCP SDK, for
 * OAuth) must not be downloaded by a program that never uses it. Then the
 * README's first command, the demo ({@linkcode DEMO_ARGS}), on a fresh
 * `DENO_DIR` in this checkout: it must fetch what the demo and its notes
 * server use (most of it the server's MCP SDK), not every package of
 * `deno.json` (Deno's default, eager caching); past
 * {@linkcode MAX_DEMO_PACKAGES} it fails. Usage:
 * `deno run -A scripts/lean_deno.ts`.
 *
 * @module
 */

import { join } from "node:path";
import { DEMO_ARGS, ROOT } from "./_deps.ts";
import { exitWith, log, logError, run } from "./_run.ts";

/** The root entry's runtime npm dependencies, as `deno.json` maps them. */
const RUNTIME = [
  "@cfworker/json-schema",
  "eventsource-parser",
  "redos-detector",
];
/** More than the runtime dependencies and their own: something optional leaked in. */
export const MAX_PACKAGES = 8;

const PROGRAM = `import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
const adapter = new MCPToolAdapter({ name: "x", transport: "stdio", command: "true" });
console.log(adapter.connected === false ? "ok" : "unexpected");
`;

/**
 * The demo's packages (js-yaml, jsonc-parser, the validator, redos-detector
 * and theirs) and its notes server's (the MCP SDK 1.x and its ~90), with
 * some room; eager caching fetches about 180.
 */
export const MAX_DEMO_PACKAGES = 120;

/** The npm packages a `DENO_DIR` holds, by name. */
async function cachedPackages(denoDir: string): Promise<string[]> {
  const registry = join(denoDir, "npm", "registry.npmjs.org");
  const names: string[] = [];
  for await (const entry of Deno.readDir(registry)) {
    if (!entry.name.startsWith("@")) {
      names.push(entry.name);
      continue;
    }
    for await (const scoped of Deno.readDir(join(registry, entry.name))) {
      names.push(`${entry.name}/${scoped.name}`);
    }
  }
  return names.sort();
}

/** Runs the demo as the README does, with a fresh `DENO_DIR`; returns the packages fetched. */
export async function leanDemo(): Promise<string[]> {
  const denoDir = await Deno.makeTempDir({ prefix: "mcp-adapter-demo-" });
  try {
    const code = await run(Deno.execPath(), [...DEMO_ARGS], {
      cwd: ROOT,
      env: { DENO_DIR: denoDir, NO_COLOR: "1" },
      timeoutMs: 5 * 60_000,
    });
    if (code !== 0) throw new Error(`the demo exited with ${code}`);
    return await cachedPackages(denoDir);
  } finally {
    await Deno.remove(denoDir, { recursive: true }).catch(() => {});
  }
}

/** Runs the program in a scratch folder; returns the packages fetched, by name. */
export async function leanDeno(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const imports: Record<string, string> = {
    "@cleveragents/mcp-adapter": join(ROOT, "mod.ts"),
  };
  for (const name of RUNTIME) imports[name] = config.imports[name];
  const dir = await Deno.makeTempDir({ prefix: "mcp-adapter-lean-" });
  try {
    await Deno.writeTextFile(join(dir, "main.ts"), PROGRAM);
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({ imports }),
    );
    const denoDir = join(dir, "deno-dir");
    const code = await run(Deno.execPath(), ["run", "-A", "main.ts"], {
      cwd: dir,
      env: { DENO_DIR: denoDir, NO_COLOR: "1" },
      timeoutMs: 5 * 60_000,
    });
    if (code !== 0) throw new Error(`the program exited with ${code}`);
    return await cachedPackages(denoDir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  await exitWith("lean-deno", async () => {
    const names = await leanDeno();
    log(
      `lean-deno: a root-entry program without OAuth fetched ${names.length} npm packages (${
        names.join(", ")
      })`,
    );
    if (names.length > MAX_PACKAGES) {
      logError(
        `lean-deno: more than ${MAX_PACKAGES} packages: an optional dependency is fetched by programs that never use it`,
      );
      return 1;
    }
    const demo = await leanDemo();
    log(
      `lean-deno: the demo (deno ${
        DEMO_ARGS.join(" ")
      }) on a fresh DENO_DIR fetched ${demo.length} npm packages (${
        demo.join(", ")
      })`,
    );
    if (demo.length > MAX_DEMO_PACKAGES) {
      logError(
        `lean-deno: the demo fetched more than ${MAX_DEMO_PACKAGES} packages: it lost --unstable-npm-lazy-caching (its own, or its server's in examples/), or imports more than it needs`,
      );
      return 1;
    }
    return 0;
  });
}
