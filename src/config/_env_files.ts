/**
 * Internal: stage 4 of loading a config, env files. The `envFile` of each
 * stdio server that names one — interpolated, resolved against the config
 * file's folder, read and parsed as dotenv — becomes variables for that
 * server's `env`. The file is read with `node:fs/promises`, loaded on first
 * use, and must be a regular file of at most {@linkcode MAX_ENV_FILE_BYTES}:
 * a device (`/dev/zero` would be read for ever), a FIFO (opening one waits
 * for a writer), a socket or a directory is refused before it is read; a
 * file that grows past the cap while it is read is refused too.
 *
 * @module
 */

import { controlCharacterProblem } from "../server_config.ts";
import { ConfigProblem } from "../util/problem.ts";
import { readFailure } from "../util/read_file.ts";
import { interpolate } from "./_interpolate.ts";
import { parseDotenv } from "./_dotenv.ts";
import type { Draft, Servers } from "./_drafts.ts";
import type { ParsedConfig } from "./_parse.ts";
import type { ConfigVariables } from "./_variables.ts";

/** The variables of each server's `envFile`. */
export type EnvFiles = ReadonlyMap<Draft, Record<string, string>>;

/**
 * Reports each `envFile` as a problem: text parsed without reading files
 * cannot have one.
 *
 * @param parsed The parsed config: receives the problems.
 * @param servers Its servers.
 * @returns No env files.
 */
export function refuseEnvFiles(
  parsed: ParsedConfig,
  servers: Servers,
): EnvFiles {
  for (const draft of servers.readable) {
    if (envFileOf(draft) !== undefined) {
      parsed.problems.push(
        new ConfigProblem(
          [...draft.path, "envFile"],
          "is a file to read, and parseConfig() reads no files; use loadConfig(), which also takes { text, format }",
        ),
      );
    }
  }
  return new Map();
}

/**
 * Reads the `envFile` of each readable stdio server that names one. A
 * relative one is relative to the config file's folder, or for text to the
 * `workspaceFolder` option.
 *
 * @param parsed The parsed config: receives the problems.
 * @param servers Its servers.
 * @param vars What the `envFile` names are interpolated with.
 * @returns The variables of each server's file.
 */
export async function readEnvFiles(
  parsed: ParsedConfig,
  servers: Servers,
  vars: ConfigVariables,
): Promise<EnvFiles> {
  const { problems } = parsed;
  const found = new Map<Draft, Record<string, string>>();
  const wanted = servers.readable.flatMap((draft) => {
    const envFile = envFileOf(draft);
    return envFile === undefined ? [] : [{ draft, envFile }];
  });
  if (wanted.length === 0) return found;
  const base = parsed.folder ??
    (typeof vars.workspaceFolder === "string"
      ? vars.workspaceFolder
      : undefined);
  const path = await import("node:path");
  await Promise.all(wanted.map(async ({ draft, envFile }) => {
    const at = [...draft.path, "envFile"];
    let name: string;
    try {
      name = interpolate(envFile, vars, at);
    } catch (error) {
      if (!(error instanceof ConfigProblem)) throw error;
      problems.push(error);
      return;
    }
    const control = controlCharacterProblem(name);
    if (control !== undefined) {
      problems.push(new ConfigProblem(at, control));
      return;
    }
    if (!path.isAbsolute(name)) {
      if (base === undefined) {
        problems.push(
          new ConfigProblem(
            at,
            "is a relative path, but the config was given as text, which has no folder; write an absolute path or pass the workspaceFolder option",
          ),
        );
        return;
      }
      name = path.resolve(base, name);
    }
    let text: string;
    try {
      text = await readEnvFileText(name);
    } catch (error) {
      problems.push(
        new ConfigProblem(at, `cannot read ${name}: ${readFailure(error)}`, {
          cause: error,
        }),
      );
      return;
    }
    const parsedFile = parseDotenv(text);
    for (const problem of parsedFile.problems) {
      problems.push(
        new ConfigProblem(at, `${name}:${problem.line}: ${problem.detail}`),
      );
    }
    found.set(draft, parsedFile.values);
  }));
  return found;
}

/** The `envFile` a stdio server names, when it names one. */
function envFileOf(draft: Draft): string | undefined {
  const envFile = draft.raw.envFile;
  return typeof envFile === "string" && draft.transport === "stdio"
    ? envFile
    : undefined;
}

/** The most an `envFile` may hold: a dotenv file is a few lines. */
export const MAX_ENV_FILE_BYTES = 1024 * 1024;

/** The file is not one an `envFile` may name; the message says why. */
export class EnvFileRefused extends Error {
  /**
   * Creates the error.
   *
   * @param message Why, and what to do (continues "cannot read PATH: ").
   */
  constructor(message: string) {
    super(message);
    this.name = "EnvFileRefused";
  }
}

interface Kind {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  size: number;
}

/**
 * Reads an `envFile` as UTF-8 text.
 *
 * @param path An absolute path.
 * @returns The text.
 * @throws {EnvFileRefused} When it is not a regular file, or is larger than
 * {@linkcode MAX_ENV_FILE_BYTES}.
 * @throws The runtime's own error when it cannot be read (see `readFailure`).
 */
async function readEnvFileText(path: string): Promise<string> {
  const fs = await import("node:fs/promises");
  const { constants } = await import("node:fs");
  check(await fs.stat(path));
  // Non-blocking, so that a file replaced by a FIFO after the stat is not
  // waited on either; the handle's own stat is checked again.
  const handle = await fs.open(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
  );
  try {
    check(await handle.stat());
    const buffer = new Uint8Array(MAX_ENV_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(
        buffer,
        length,
        buffer.length - length,
        null,
      );
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_ENV_FILE_BYTES) throw tooLarge();
    return new TextDecoder().decode(buffer.subarray(0, length));
  } finally {
    await handle.close();
  }
}

function check(stat: Kind): void {
  if (stat.isDirectory()) {
    throw new EnvFileRefused("it is a directory; name a dotenv file in it");
  }
  if (!stat.isFile()) {
    throw new EnvFileRefused(
      `it is ${
        kindOf(stat)
      }; an envFile must be a regular file (a dotenv file of NAME=value lines)`,
    );
  }
  if (stat.size > MAX_ENV_FILE_BYTES) throw tooLarge();
}

function tooLarge(): EnvFileRefused {
  return new EnvFileRefused(
    `it is larger than ${
      MAX_ENV_FILE_BYTES / 1024 / 1024
    } MiB, more than a dotenv file holds; name the right file`,
  );
}

function kindOf(stat: Kind): string {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "of an unknown kind";
}
