/**
 * Finds and loads the command line's config file. Internal.
 *
 * @module
 */

import process from "node:process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliOutput } from "./_output.ts";
import type { Ask } from "./_handlers.ts";
import type { ConfigInput } from "../config/load.ts";
import { loadConfig, type ServerEntry } from "../config/load.ts";
import { errorMessage } from "../_util/errors.ts";
import { CliError, USAGE } from "./_errors.ts";

/** Looked for in the working directory, in this order. */
export const CONFIG_FILES = ["mcp.yaml", "mcp.json", ".mcp.json"];
/** The repository's example, used on Deno when no config file is found. */
const EXAMPLE_CONFIG = new URL("../../examples/mcp.yaml", import.meta.url);
/** The repository's root: the example config's paths are relative to it. */
const REPOSITORY = new URL("../../", import.meta.url);

/**
 * Finds and loads the config: --config, else ./mcp.yaml & co., else the
 * repo's example (Deno only).
 */
export async function readConfig(
  explicit: string | undefined,
  options: {
    cwd: string;
    env: Record<string, string | undefined> | undefined;
    stderr: CliOutput;
    /** Asks for `${input:id}` values on a terminal; without it they must have defaults. */
    ask: Ask | undefined;
  },
): Promise<ServerEntry[]> {
  const { cwd, env, stderr, ask } = options;
  let path: string;
  let example = false;
  if (explicit !== undefined) {
    path = resolve(cwd, explicit);
    if (!existsSync(path)) {
      throw new CliError(USAGE, `config file ${path} does not exist`);
    }
  } else {
    const found = CONFIG_FILES.map((name) => resolve(cwd, name)).find((file) =>
      existsSync(file)
    );
    if (found !== undefined) {
      path = found;
    } else if (
      "Deno" in globalThis && EXAMPLE_CONFIG.protocol === "file:" &&
      existsSync(EXAMPLE_CONFIG)
    ) {
      path = fileURLToPath(EXAMPLE_CONFIG);
      example = true;
      stderr.write(
        `mcp-adapter: no ${
          CONFIG_FILES.join(", ")
        } here; using the example config ${path}\n`,
      );
    } else {
      throw new CliError(
        USAGE,
        `no config file found: looked for ${
          CONFIG_FILES.map((name) => resolve(cwd, name)).join(", ")
        }; write one (see the README) or pass --config FILE`,
      );
    }
  }
  let servers: ServerEntry[];
  try {
    servers = (await loadConfig(path, {
      ...(env ? { env } : {}),
      inputs: (input) => askInput(input, ask),
    })).servers;
  } catch (error) {
    throw new CliError(USAGE, errorMessage(error));
  }
  if (servers.length === 0) {
    throw new CliError(USAGE, `${path} configures no servers`);
  }
  return example ? servers.map(runnableExample) : servers;
}

/**
 * The example config starts `deno` in the repository: use this Deno (it may
 * not be on PATH) and the repository as working directory, wherever we run.
 */
function runnableExample(entry: ServerEntry): ServerEntry {
  const config = { ...entry.config };
  if (config.command === "deno") config.command = process.execPath;
  config.cwd ??= fileURLToPath(REPOSITORY);
  return { ...entry, config };
}

/** A VS Code `${input:id}` value, asked on the terminal (hidden for a password). */
async function askInput(
  input: ConfigInput,
  ask: Ask | undefined,
): Promise<string> {
  if (ask === undefined) {
    if (input.default !== undefined) return input.default;
    throw new CliError(
      USAGE,
      `the config uses \${input:${input.id}}, which needs a value: run on a terminal to be asked, or give it a default`,
    );
  }
  const choices = input.options?.length ? ` [${input.options.join("/")}]` : "";
  const fallback = input.default === undefined
    ? ""
    : ` (default ${input.password ? "hidden" : input.default})`;
  for (;;) {
    const answer = await ask(
      `${input.description ?? input.id}${choices}${fallback}: `,
      { hidden: input.password },
    );
    if (answer === undefined) {
      throw new CliError(USAGE, `no value for \${input:${input.id}}`);
    }
    const value = answer === "" ? input.default ?? "" : answer;
    if (input.options?.length && !input.options.includes(value)) continue;
    if (value !== "") return value;
  }
}
