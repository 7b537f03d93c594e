/**
 * What a Deno program that imports only the root entry downloads: a fresh
 * `DENO_DIR`, a program that constructs an adapter (no OAuth, no server),
 * and the import map the published package would carry for the root
 * entry's runtime dependencies. Counts the npm packages fetched and fails
 * past {@linkcode MAX_PACKAGES}: an optional dependency (the MCP SDK, for
 * OAuth) must not be downloaded by a program that never uses it. Usage:
 * `deno run -A scripts/lean_deno.ts`.
 *
 * @module
 */

import { join } from "node:path";
import { ROOT } from "./_deps.ts";
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
    return 0;
  });
}
