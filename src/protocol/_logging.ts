/**
 * The server's log messages (`notifications/message`) and the level a
 * client asks for (`logging/setLevel`): the eight levels, a message handed
 * to `onLog` (one of an unknown level reported instead), a level checked.
 * Loaded by a connection with an `onLog` handler, before its first session
 * starts, or by the first `setLogLevel()`. Internal.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";
import type { MCPLogHandler, MCPLogLevel } from "../types.ts";
import { asError } from "../util/caught.ts";
import { excerpt, redact, redactData } from "../util/redact.ts";
import { kindOf } from "../util/values.ts";

/** The log levels of `logging/setLevel` and `notifications/message`, least severe first. */
export const LOG_LEVELS: readonly MCPLogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/**
 * Checks a level to ask for.
 *
 * @throws {MCPConfigError} When `level` is not one of the eight.
 */
export function checkLogLevel(level: MCPLogLevel): void {
  if (LOG_LEVELS.includes(level)) return;
  throw new MCPConfigError(
    "level",
    `The log level must be one of ${LOG_LEVELS.join(", ")}; got ${
      JSON.stringify(level)
    }`,
  );
}

/** Where a log message goes. */
export interface LogTarget {
  /** The connection's `onLog`; without it the message is dropped. */
  onLog: MCPLogHandler | undefined;
  /** Told of a message of unknown level, and of what `onLog` throws. */
  onError: ((error: Error) => void) | undefined;
  /** Names the server in messages. */
  label: string;
  /** The connection's secrets, masked in `logger`, `data` and messages. */
  secrets: readonly string[];
}

/** Hands a log message to `onLog`; one with an unknown level is reported, not passed on. */
export function deliverLog(
  params: Record<string, unknown> | undefined,
  target: LogTarget,
): void {
  const { onLog, onError, secrets } = target;
  if (!onLog) return;
  const level = params?.level as MCPLogLevel;
  if (!LOG_LEVELS.includes(level)) {
    onError?.(
      new Error(
        `MCP server "${target.label}" sent a log message of unknown level ${
          typeof level === "string" ? excerpt(level, secrets) : kindOf(level)
        }`,
      ),
    );
    return;
  }
  const logger = params!.logger;
  try {
    onLog(
      level,
      typeof logger === "string" ? redact(logger, secrets) : undefined,
      redactData(params!.data, secrets),
    );
  } catch (error) {
    onError?.(asError(error));
  }
}
