/**
 * The one error `connect()` throws, worded when a connection fails: what
 * failed, the server's last stderr lines, no secrets. Loaded with the first
 * failed connection. Internal.
 *
 * @module
 */

import {
  MCPAuthorizationRequiredError,
  MCPConfigError,
  MCPConnectionError,
  MCPNotConnectedError,
  MCPProtocolError,
} from "../errors.ts";
import { redact, redactError } from "../util/redact.ts";
import { errorMessage } from "../util/errors.ts";

/**
 * The error of a failed connection to server `name`; an authorization
 * request is kept as it is (the caller needs its class and URL), redacted.
 */
export function connectionError(
  error: unknown,
  stderrTail: readonly string[] | undefined,
  name: string,
  secrets: readonly string[],
): MCPConnectionError | MCPAuthorizationRequiredError | MCPConfigError {
  // Kept as they are: the caller needs the class (and the URL to open, or
  // the package to install); "cannot connect" would point at the server.
  if (
    error instanceof MCPAuthorizationRequiredError ||
    error instanceof MCPConfigError
  ) {
    return redactError(error, secrets);
  }
  let message: string;
  if (error instanceof MCPConnectionError) {
    message = error.message;
  } else if (error instanceof MCPNotConnectedError) {
    const reason = error.cause instanceof Error
      ? `: ${error.cause.message}`
      : "";
    message =
      `MCP server "${name}" closed the connection before completing the handshake${reason}`;
  } else if (error instanceof MCPProtocolError) {
    message = `MCP server "${name}" rejected "initialize": ${error.message}`;
  } else {
    message = `Cannot connect to MCP server "${name}": ${errorMessage(error)}`;
  }
  if (stderrTail && stderrTail.length > 0) {
    message += `\nLast lines of the server's stderr:\n  ${
      stderrTail.join("\n  ")
    }`;
  }
  const cause = error instanceof MCPConnectionError
    ? error.cause ?? error
    : error;
  return new MCPConnectionError(redact(message, secrets), {
    cause: redactError(cause, secrets),
  });
}
