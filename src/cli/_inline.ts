/**
 * A server given on the command line instead of in a config file:
 * `-- npx -y @modelcontextprotocol/server-memory` (stdio, with `--env K=V`
 * and `--cwd DIR`), or `--url URL` (remote, with `--header K:V` and
 * `--transport sse|streamable-http`). Internal.
 *
 * @module
 */

import type { ServerEntry } from "../config/load.ts";
import {
  type MCPServerConfig,
  validateServerConfig,
} from "../config/server.ts";
import { MCPConfigError } from "../errors.ts";
import type { Options } from "./_args.ts";
import { UsageError } from "./_errors.ts";
import { setOwn } from "../_util/values.ts";

/** The inline server of a command line, or `undefined` when it names none. */
export function inlineServer(
  options: Options,
  command: readonly string[],
): ServerEntry | undefined {
  const remote = options.url !== undefined;
  if (!remote && command.length === 0) {
    for (
      const option of ["header", "transport", "env", "cwd", "name"] as const
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
      name: options.name ?? nameOfCommand(command),
      transport: "stdio",
      command: program!,
      args,
      ...(options.env ? { env: pairs(options.env, "=", "--env") } : {}),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    };
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
 * program's name.
 */
function nameOfCommand(command: readonly string[]): string {
  const candidates = command.slice(1).filter((arg) => !arg.startsWith("-"));
  // A package or a script names the server; "run", "exec" and the like do not.
  const target =
    candidates.find((arg) => /[/@.]/.test(arg) && /[a-z]/i.test(arg)) ??
      candidates.find((arg) => /[a-z]/i.test(arg) && !RUNNER_WORDS.has(arg)) ??
      command[0]!;
  const base = target.replace(/\\/g, "/").split("/").filter(Boolean).at(-1) ??
    target;
  return sanitize(base.replace(/@[^@]*$/, "").replace(/\.[cm]?[jt]s$/, ""));
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
