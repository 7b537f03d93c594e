/**
 * Reading a text file (`node:fs/promises`, imported on first use) and
 * wording why it could not be read: the config loader, skills and the
 * OAuth providers that read key and token files share it. Internal.
 *
 * @module
 */

import { errorMessage } from "./caught.ts";

/**
 * Reads a text file as UTF-8, failing with the runtime's own error (see {@linkcode readFailure}).
 *
 * @param path The file's path.
 * @returns Its text.
 */
export async function readText(path: string): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return await readFile(path, "utf8");
}

/**
 * Why a file could not be read, and what to do, in a few words.
 *
 * @param error What the runtime threw.
 * @returns E.g. `it does not exist; check the path`.
 */
export function readFailure(error: unknown): string {
  const { code, name } = error as { code?: unknown; name?: unknown };
  switch (code ?? name) {
    case "ENOENT":
    case "NotFound":
      return "it does not exist; check the path";
    case "EISDIR":
    case "IsADirectory":
      return "it is a directory; name a file inside it";
    case "EACCES":
    case "EPERM":
    case "PermissionDenied":
      return "permission denied; check the file's permissions";
    case "NotCapable":
      return "Deno may not read it; run deno with --allow-read";
    default:
      return errorMessage(error);
  }
}
