/**
 * Finds and loads the command line's config file. Internal.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Ask } from "./_handlers.ts";
import type { ConfigInput } from "../config/load.ts";
import { loadConfig, type ServerEntry } from "../config/load.ts";
import { errorMessage } from "../util/caught.ts";
import { CliError, USAGE } from "./_exit.ts";

/** Looked for in the working directory, in this order. */
export const CONFIG_FILES = ["mcp.yaml", "mcp.json", ".mcp.json"];

/**
 * Finds and loads the config: --config, else ./mcp.yaml & co. Without
 * either, says where it looked and how to pass one.
 */
export async function readConfig(
  explicit: string | undefined,
  options: {
    cwd: string;
    env: Record<string, string | undefined> | undefined;
    /** Asks for `${input:id}` values on a terminal; without it they must have defaults. */
    ask: Ask | undefined;
  },
): Promise<ServerEntry[]> {
  const { cwd, env, ask } = options;
  let path: string;
  if (explicit !== undefined) {
    path = resolve(cwd, explicit);
    if (!existsSync(path)) {
      throw new CliError(USAGE, `config file ${path} does not exist`);
    }
  } else {
    const candidates = CONFIG_FILES.map((name) => resolve(cwd, name));
    const found = candidates.find((file) => existsSync(file));
    if (found === undefined) {
      throw new CliError(
        USAGE,
        `no config file found: looked for ${
          candidates.join(", ")
        }; pass one with --config FILE (or write one there, see the README), or give one server inline: -- COMMAND [ARGS...] or --url URL`,
      );
    }
    path = found;
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
  return servers;
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
