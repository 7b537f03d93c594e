/**
 * Builds the transport an `MCPServerConfig` names. Internal.
 *
 * @module
 */

import type { MCPServerConfig } from "../server_config.ts";
import type { OAuthClientProviderLike } from "../auth/provider.ts";
import type { MCPTransport } from "./transport.ts";
import { SSEClientTransport } from "./sse.ts";
import { StdioTransport, type StdioTransportOptions } from "./stdio.ts";
import { StreamableHTTPTransport } from "./streamable_http.ts";

/** What the transports need beyond the config. */
export interface TransportOptions {
  fetch?: typeof fetch | undefined;
  authProvider?: OAuthClientProviderLike | undefined;
  maxMessageBytes?: number | undefined;
  /** stdio: receives each stderr line. */
  onStderr?: ((line: string) => void) | undefined;
  /** streamable HTTP: whether a 2025-era session opens its GET stream. */
  serverStream?: boolean | undefined;
}

/** A new transport for `config`. Throws `MCPConfigError` for malformed headers. */
export function createTransport(
  config: MCPServerConfig,
  remote: TransportOptions,
): MCPTransport {
  if (config.transport === "stdio") {
    const options: StdioTransportOptions = {
      command: config.command!,
      name: config.name,
      onStderr: remote.onStderr,
      maxMessageBytes: remote.maxMessageBytes,
    };
    if (config.args) options.args = config.args;
    if (config.env) options.env = config.env;
    if (config.inheritEnv) options.inheritEnv = config.inheritEnv;
    if (config.cwd) options.cwd = config.cwd;
    return new StdioTransport(options);
  }
  const options = {
    url: config.url!,
    headers: config.headers,
    fetch: remote.fetch,
    maxMessageBytes: remote.maxMessageBytes,
    authProvider: remote.authProvider,
  };
  return config.transport === "sse"
    ? new SSEClientTransport(options)
    : new StreamableHTTPTransport({
      ...options,
      serverStream: remote.serverStream,
    });
}
