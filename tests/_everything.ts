/**
 * How a test starts `@modelcontextprotocol/server-everything`, the reference
 * MCP server, on the runtime it runs on.
 *
 * Its version is written once, in `deno.json` `imports`. Under Deno the
 * server runs from that pinned `npm:` specifier, read from `deno.json` (not
 * through `import.meta.resolve`, which returns a cache path once the package
 * is cached), with `--config deno.json`, so `deno.lock` resolves it in any
 * working directory and nothing is fetched again; under Node, `scripts/test_node.ts` installs the same version
 * beside the tests.
 *
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";

const PACKAGE = "@modelcontextprotocol/server-everything";

/** The transports server-everything serves (HTTP modes read `PORT`, default 3001). */
export type EverythingMode = "stdio" | "sse" | "streamableHttp";

/** An executable and its arguments. */
export interface EverythingCommand {
  /** The runtime's own executable. */
  command: string;
  /** Arguments that start the server in the requested mode. */
  args: string[];
}

/**
 * The command that starts server-everything in `mode` on the current
 * runtime: `deno run -A npm:@modelcontextprotocol/server-everything@<pinned>`
 * under Deno, `node <package>/dist/index.js` under Node.
 *
 * @param mode The transport to serve.
 * @returns The command and its arguments.
 *
 * @example
 * ```ts
 * import { everythingCommand } from "./_everything.ts";
 *
 * const { command, args } = everythingCommand("stdio");
 * ```
 */
export function everythingCommand(mode: EverythingMode): EverythingCommand {
  return npmServerCommand(PACKAGE, [mode]);
}

/**
 * The command that starts the `bin` of a server package that `deno.json`
 * pins (and `scripts/_deps.ts` lists for the Node run), with `args`.
 *
 * @param name The package name, e.g. `@modelcontextprotocol/server-pdf`.
 * @param args The server's arguments.
 * @returns The command and its arguments.
 *
 * @example
 * ```ts
 * import { npmServerCommand } from "./_everything.ts";
 *
 * const { command, args } = npmServerCommand("@modelcontextprotocol/server-pdf", ["--stdio"]);
 * ```
 */
export function npmServerCommand(
  name: string,
  args: readonly string[],
): EverythingCommand {
  if ("Deno" in globalThis) {
    // The project's config, so its lockfile resolves the package wherever
    // the server runs (a test may start it in a scratch folder): the tests'
    // first `deno` command cached it, and without the lockfile Deno would
    // fetch the registry's metadata again.
    const config = fileURLToPath(new URL("../deno.json", import.meta.url));
    return {
      command: Deno.execPath(),
      args: ["run", "-A", `--config=${config}`, pinnedSpecifier(name), ...args],
    };
  }
  return { command: process.execPath, args: [nodeEntry(name), ...args] };
}

/** An adapter named "everything" to server-everything over stdio, not yet connected. */
export function everythingStdioAdapter(
  options?: MCPToolAdapterOptions,
): MCPToolAdapter {
  const { command, args } = everythingCommand("stdio");
  return new MCPToolAdapter({
    name: "everything",
    transport: "stdio",
    command,
    args,
  }, options);
}

/** The `npm:` specifier `deno.json` maps the package name to. */
function pinnedSpecifier(name: string): string {
  const path = new URL("../deno.json", import.meta.url);
  const config = JSON.parse(Deno.readTextFileSync(path));
  const specifier: unknown = config.imports?.[name];
  if (typeof specifier !== "string" || !specifier.startsWith("npm:")) {
    throw new Error(`${path} must map "${name}" to a pinned npm: specifier`);
  }
  return specifier;
}

/** The server's `bin` script inside the installed package. */
function nodeEntry(name: string): string {
  let manifestPath: string;
  try {
    manifestPath = fileURLToPath(import.meta.resolve(`${name}/package.json`));
  } catch {
    // A package whose `exports` leave package.json out (server-pdf): walk
    // up from its main module.
    let folder = dirname(fileURLToPath(import.meta.resolve(name)));
    while (
      !existsSync(join(folder, "package.json")) && dirname(folder) !== folder
    ) folder = dirname(folder);
    manifestPath = join(folder, "package.json");
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const bin: unknown = typeof manifest.bin === "string"
    ? manifest.bin
    : Object.values(manifest.bin ?? {})[0];
  if (typeof bin !== "string") {
    throw new Error(`${manifestPath} declares no bin script`);
  }
  return join(dirname(manifestPath), bin);
}
