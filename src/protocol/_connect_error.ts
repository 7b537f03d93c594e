/**
 * The one error `connect()` throws, worded when a connection fails: what
 * failed, what was seen of the server (for a timeout: whether its process
 * ran, whether it wrote anything, and the likely causes), the server's last
 * stderr lines, no secrets. Loaded with the first failed connection.
 * Internal.
 *
 * @module
 */

import {
  MCPAuthorizationRequiredError,
  MCPConfigError,
  MCPConnectionError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPTimeoutError,
} from "../errors.ts";
import type { MCPServerConfig } from "../server_config.ts";
import type { TransportActivity } from "../transports/transport.ts";
import { redact, redactError } from "../util/redact.ts";
import { errorMessage } from "../util/caught.ts";

/** What the failed attempt saw of the server. */
export interface AttemptSeen {
  /** Its last stderr lines (stdio), secrets masked. */
  stderrTail: readonly string[] | undefined;
  /** Whether its process still ran, and what it wrote to stdout (stdio). */
  activity: TransportActivity | undefined;
  /** Its config: the name, and the command that hints at the likely causes. */
  config: MCPServerConfig;
}

/**
 * The error of a failed connection; an authorization request is kept as it
 * is (the caller needs its class and URL), redacted.
 */
export function connectionError(
  error: unknown,
  seen: AttemptSeen,
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
  const name = seen.config.name;
  const { stderrTail } = seen;
  let message: string;
  if (error instanceof MCPTimeoutError) {
    message = timedOut(error.timeoutMs, seen);
  } else if (error instanceof MCPConnectionError) {
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

/** Programs that download what they run on first use. */
const DOWNLOADERS = /^(?:npx|bunx|pnpx|uvx|pipx|dlx)$/i;

/**
 * What a connect that ran out of time saw, and what most likely held it
 * up: a stdio server still downloading or stuck behind a network that
 * needs CA or proxy variables, a server that speaks something else on
 * stdout, a remote server that does not answer.
 */
function timedOut(timeoutMs: number, seen: AttemptSeen): string {
  const { config, activity } = seen;
  const head = `Connecting to MCP server "${config.name}" timed out after ${
    Math.round(timeoutMs)
  } ms`;
  const raise =
    "raise the connect timeout (connectTimeoutMs; the command line's --connect-timeout)";
  if (config.transport !== "stdio") {
    return `${head}: the server did not answer. Check that it runs at its "url" and that this process reaches it (through a proxy: HTTPS_PROXY), or ${raise}`;
  }
  if (activity === undefined) {
    return `${head} before the server process started; ${raise}`;
  }
  if (!activity.running) {
    return `${head}, and the server process has exited; check that "command" starts an MCP server`;
  }
  if (activity.stdoutBytes > 0) {
    return `${head}: the server process is running and wrote ${activity.stdoutBytes} bytes to stdout, but no answer to the handshake; check that it speaks MCP over stdio (JSON-RPC lines on stdout, its logs on stderr)`;
  }
  const quiet = seen.stderrTail?.length ? "" : " or stderr";
  const program = (config.command.split(/[\\/]/).at(-1) ?? "")
    .replace(/\.(?:cmd|exe|bat)$/i, "");
  const downloads = DOWNLOADERS.test(program) ||
    (config.args ?? []).some((arg) =>
      /^(?:npm|jsr):/.test(arg) || arg === "dlx"
    );
  const causes = [
    ...(downloads
      ? [
        `the first run of ${
          JSON.stringify(program)
        } downloads the server: run the command once by hand, or ${raise}`,
      ]
      : []),
    "a network that needs a CA bundle or a proxy: the server inherits NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, HTTPS_PROXY and the like from this process (docs/runtimes.md), so set them here, or name other variables in inheritEnv",
    "a server that waits for something before it answers (a login, a prompt on its terminal)",
  ];
  return `${head}: the server process is still running but has written nothing to stdout${quiet}. Likely causes: ${
    causes.map((cause, index) => `(${index + 1}) ${cause}`).join("; ")
  }`;
}
