/**
 * The second half of the specification's backwards-compatibility procedure:
 * after a streamable-HTTP server refused the `initialize` POST with 400, 404
 * or 405, the legacy SSE transport at the same URL. Loaded only then.
 * Internal.
 *
 * @module
 */

import type { RemoteServerConfig } from "../config/server.ts";
import { MCPConnectionError } from "../errors.ts";
import {
  createTransport,
  type TransportOptions,
} from "../transports/_create.ts";
import type { MCPTransport } from "../transports/transport.ts";
import { errorMessage } from "../_util/errors.ts";

/**
 * Runs `handshake` over a legacy SSE transport to `config.url`.
 *
 * @param refused What the streamable-HTTP `initialize` got; quoted if SSE fails too.
 * @returns What `handshake` returns.
 * @throws {MCPConnectionError} Naming both failures.
 */
export async function viaLegacySse<T>(
  config: RemoteServerConfig,
  remote: TransportOptions,
  refused: Error,
  handshake: (transport: MCPTransport) => Promise<T>,
): Promise<T> {
  try {
    return await handshake(
      createTransport({ ...config, transport: "sse" }, remote),
    );
  } catch (error) {
    throw new MCPConnectionError(
      `${refused.message} The legacy SSE transport at the same URL failed too: ${
        errorMessage(error)
      }`,
      { cause: error },
    );
  }
}
