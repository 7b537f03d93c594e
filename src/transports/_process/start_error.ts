/**
 * What a failed start of a stdio server says: the executable or working
 * directory that is missing, the permission that is lacking. Loaded by the
 * stdio transport when a start fails. Internal.
 *
 * @module
 */

import { MCPConnectionError } from "../../errors.ts";
import { asError } from "../../util/caught.ts";
import type { ProcessBackend, SpawnOptions } from "./backend.ts";

/** The Windows decisions, which the backend hands over on Windows only. */
type Windows = NonNullable<ProcessBackend["windows"]>;

/** Turns a backend spawn failure into a message that says what to fix. */
export function startError(
  options: Pick<SpawnOptions, "command" | "cwd">,
  error: unknown,
  windows: Windows | undefined,
): MCPConnectionError {
  const name = JSON.stringify(options.command);
  const { code, syscall } = (error ?? {}) as {
    code?: unknown;
    syscall?: unknown;
  };
  let message: string;
  if (code === "ENOENT" && syscall === "chdir") {
    message = `Cannot start MCP server command ${name}: working directory ${
      JSON.stringify(options.cwd)
    } does not exist. Create it or fix "cwd".`;
  } else if (code === "ENOENT" && windows !== undefined) {
    message = `Cannot start MCP server command ${name}: executable not found. ${
      windows.windowsStartHint(options.command, { code })
    }`;
  } else if (code === "ENOENT") {
    message =
      `Cannot start MCP server command ${name}: executable not found. Install it or set "command" to an absolute path.`;
  } else if (code === "EACCES") {
    message =
      `Cannot start MCP server command ${name}: permission denied. Make sure the file is executable.`;
  } else {
    message = `Cannot start MCP server command ${name}: ${
      asError(error).message
    }`;
  }
  return new MCPConnectionError(message, { cause: error });
}
