/**
 * A server given on the command line instead of in a config file:
 * `-- npx -y @modelcontextprotocol/server-memory` (stdio, with `--env K=V`
 * and `--cwd DIR`), or `--url URL` (remote, with `--header K:V` and
 * `--transport sse|streamable-http`). Internal.
 *
 * @module
 */

import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { ServerEntry } from "../config/load.ts";
import {
  type MCPProtocolChoice,
  type MCPServerConfig,
  PROTOCOL_CHOICES,
  validateServerConfig,
} from "../server_config.ts";
import { MCPConfigError } from "../errors.ts";
import type { Options } from "./_command_line.ts";
import { UsageError } from "./_exit.ts";
import { isRecord, setOwn } from "../util/values.ts";

/**
 * The inline server of a command line, or `undefined` when it names none.
 * `cwd` is where a relative `--cwd` and script path are read from.
 */
export function inlineServer(
  options: Options,
  command: readonly string[],
  { cwd = "." }: { cwd?: string } = {},
): ServerEntry | undefined {
  const remote = options.url !== undefined;
  if (!remote && command.length === 0) {
    for (
      const option of [
        "header",
        "transport",
        "env",
        "cwd",
        "name",
        "protocol",
      ] as const
    ) {
      if (options[option] !== undefined) {
        throw new UsageError(
          `--${option} describes an inline server: give one with --url URL or after "--" (e.g. -- npx -y @modelcontextprotocol/server-memory)`,
        );
      }
    }
    return undefined;
  }
  if (remote && command.length > 0) {
    throw new UsageError(
      `give either --url or a command after "--", not both`,
    );
  }
  if (options.config !== undefined) {
    throw new UsageError(
      `--config and an inline server exclude each other; drop one`,
    );
  }
  let config: MCPServerConfig;
  if (remote) {
    for (const option of ["env", "cwd"] as const) {
      if (options[option] !== undefined) {
        throw new UsageError(`--${option} is for a stdio server, not --url`);
      }
    }
    const transport = options.transport ?? "streamable-http";
    if (transport !== "sse" && transport !== "streamable-http") {
      throw new UsageError(
        `--transport must be sse or streamable-http, got ${
          JSON.stringify(transport)
        }`,
      );
    }
    config = {
      name: options.name ?? nameOfUrl(options.url!),
      transport,
      url: options.url!,
      ...(options.header
        ? { headers: pairs(options.header, ":", "--header") }
        : {}),
    };
  } else {
    if (options.header !== undefined || options.transport !== undefined) {
      throw new UsageError(
        `--header and --transport are for --url, not a command after "--"`,
      );
    }
    const [program, ...args] = command;
    config = {
      name: options.name ??
        nameOfCommand(command, resolve(cwd, options.cwd ?? ".")),
      transport: "stdio",
      command: program!,
      args,
      ...(options.env ? { env: pairs(options.env, "=", "--env") } : {}),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    };
  }
  if (options.protocol !== undefined) {
    if (!PROTOCOL_CHOICES.includes(options.protocol)) {
      throw new UsageError(
        `--protocol must be one of ${PROTOCOL_CHOICES.join(", ")}; got ${
          JSON.stringify(options.protocol)
        }`,
      );
    }
    config.protocol = options.protocol as MCPProtocolChoice;
  }
  try {
    validateServerConfig(config);
  } catch (error) {
    if (error instanceof MCPConfigError) throw new UsageError(error.message);
    throw error;
  }
  return { config, namespace: config.name, enabled: true };
}

/** `K=V` / `K: V` items into a record; a value may contain the separator. */
function pairs(
  items: readonly string[],
  separator: string,
  option: string,
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0) {
      throw new UsageError(
        `${option} expects NAME${separator}VALUE, got an item without "${separator}"`,
      );
    }
    // Defined, not assigned: `--env __proto__=x` is a variable like any other.
    setOwn(record, item.slice(0, at).trim(), item.slice(at + 1).trim());
  }
  return record;
}

/**
 * The namespace of an inline stdio server: its package or script name
 * (`@modelcontextprotocol/server-memory@1.2` → `server-memory`), else the
 * program's name. A script on disk is named by the package it is the entry
 * of (`…/server-everything/dist/index.js` → `server-everything`), else by
 * its file name.
 */
function nameOfCommand(command: readonly string[], cwd: string): string {
  const candidates = command.slice(1).filter((arg) => !arg.startsWith("-"));
  const script = candidates.map((arg) => fileAt(resolve(cwd, arg)))
    .find((file) => file !== undefined);
  if (script !== undefined) return sanitize(nameOfScript(script));
  // A package or a script names the server; "run", "exec" and the like do not.
  const target =
    candidates.find((arg) => /[/@.]/.test(arg) && /[a-z]/i.test(arg)) ??
      candidates.find((arg) => /[a-z]/i.test(arg) && !RUNNER_WORDS.has(arg)) ??
      command[0]!;
  const base = target.replace(/\\/g, "/").split("/").filter(Boolean).at(-1) ??
    target;
  return sanitize(base.replace(/@[^@]*$/, "").replace(/\.[cm]?[jt]s$/, ""));
}

/** The real path of a file, or `undefined` if `path` is not one. */
function fileAt(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** File names that say nothing about the server, and folders that hold them. */
const GENERIC_SCRIPTS = new Set(["index", "main", "cli", "server", "mod"]);
const GENERIC_FOLDERS = new Set(["dist", "build", "lib", "src", "bin", "out"]);
/** How far up from a script its package.json is looked for. */
const PACKAGE_LEVELS = 6;

/**
 * A script's name: its package's (without the scope) when it is the
 * package's `bin` or `main`, or is called `index.js` and the like; else the
 * file's name, or for `index.js` without a package, its folder's.
 */
function nameOfScript(file: string): string {
  const stem = basename(file).replace(/\.[cm]?[jt]sx?$/, "");
  const generic = GENERIC_SCRIPTS.has(stem.toLowerCase());
  const owner = packageOf(file);
  if (owner !== undefined && (generic || owner.entries.includes(file))) {
    return owner.name.split("/").at(-1)!;
  }
  if (!generic) return stem;
  let folder = dirname(file);
  while (GENERIC_FOLDERS.has(basename(folder)) && dirname(folder) !== folder) {
    folder = dirname(folder);
  }
  return basename(folder) || stem;
}

/** The nearest package.json above `file` that has a name: the name and entry files. */
function packageOf(
  file: string,
): { name: string; entries: string[] } | undefined {
  let folder = dirname(file);
  for (let level = 0; level < PACKAGE_LEVELS; level++) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(
        readFileSync(resolve(folder, "package.json"), "utf8"),
      );
    } catch {
      manifest = undefined;
    }
    if (isRecord(manifest) && typeof manifest.name === "string") {
      const bin = typeof manifest.bin === "string"
        ? [manifest.bin]
        : isRecord(manifest.bin)
        ? Object.values(manifest.bin)
        : [];
      const entries = [...bin, manifest.main]
        .filter((entry): entry is string => typeof entry === "string")
        .map((entry) => fileAt(resolve(folder, entry)))
        .filter((entry): entry is string => entry !== undefined);
      return { name: manifest.name, entries };
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
  return undefined;
}

/** Subcommands of runners (`deno run`, `npm exec`, `pnpm dlx`, `python -m`). */
const RUNNER_WORDS = new Set(["run", "exec", "x", "dlx", "start"]);

/** The namespace of an inline remote server: its host name. */
function nameOfUrl(url: string): string {
  try {
    return sanitize(new URL(url).hostname);
  } catch {
    return "remote";
  }
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "") ||
    "server";
}
