/**
 * The fixture of the streamable HTTP transport tests: SDK servers, transports,
 * adapters and JSON-RPC clients that send a secret header and are released
 * after each test ({@linkcode streamableFixture}).
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  MCPToolAdapter,
  StreamableHTTPTransport,
  type StreamableHTTPTransportOptions,
} from "@cleveragents/mcp-adapter";
import {
  Rpc,
  type SdkStreamableOptions,
  type SdkStreamableServer,
  sdkStreamableServer,
} from "../_remote.ts";
import { type Cleanup, releaseAfterEach } from "../_helpers.ts";

/** Sent on every request; must never show up in an error message. */
export const SECRET = "sk-test-0123456789abcdef";
/** The headers every transport here is given. */
export const HEADERS = { "X-Api-Key": SECRET };

/** What {@linkcode streamableFixture} makes; each thing is released after the test. */
export interface StreamableFixture {
  /** Everything the current test started; add your own. */
  cleanups: Cleanup[];
  /** An SDK streamable-HTTP server. */
  sdkServer(options?: SdkStreamableOptions): Promise<SdkStreamableServer>;
  /** A transport to `url` sending {@linkcode HEADERS}. */
  transport(
    url: string,
    options?: Partial<StreamableHTTPTransportOptions>,
  ): StreamableHTTPTransport;
  /** An adapter over a `transport` to `url`. */
  adapterFor(
    url: string,
    options?: Partial<StreamableHTTPTransportOptions>,
  ): MCPToolAdapter;
  /** A raw JSON-RPC client over a started `transport` to `url`. */
  started(
    url: string,
    options?: Partial<StreamableHTTPTransportOptions>,
  ): Promise<Rpc>;
}

/**
 * Registers the `afterEach` that releases what the returned factories
 * start; call it once at the top of a test file.
 */
export function streamableFixture(): StreamableFixture {
  const cleanups = releaseAfterEach();

  /** An SDK streamable-HTTP server, closed after the test. */
  async function sdkServer(
    options: SdkStreamableOptions = {},
  ): Promise<SdkStreamableServer> {
    const server = await sdkStreamableServer(options);
    cleanups.push(() => server.close());
    return server;
  }

  /** A transport to `url` sending {@linkcode HEADERS}, closed after the test. */
  function transport(
    url: string,
    options: Partial<StreamableHTTPTransportOptions> = {},
  ): StreamableHTTPTransport {
    const created = new StreamableHTTPTransport({
      url,
      headers: HEADERS,
      ...options,
    });
    cleanups.push(() => created.close());
    return created;
  }

  /** An adapter over a {@linkcode transport} to `url`, disconnected after the test. */
  function adapterFor(
    url: string,
    options: Partial<StreamableHTTPTransportOptions> = {},
  ): MCPToolAdapter {
    const adapter = new MCPToolAdapter({
      name: "remote",
      transport: "streamable-http",
      url,
    }, { transport: () => transport(url, options) });
    cleanups.push(() => adapter.disconnect());
    return adapter;
  }

  /** A raw JSON-RPC client over a started {@linkcode transport} to `url`. */
  async function started(
    url: string,
    options: Partial<StreamableHTTPTransportOptions> = {},
  ): Promise<Rpc> {
    const rpc = new Rpc(transport(url, options));
    await rpc.transport.start();
    return rpc;
  }

  return { cleanups, sdkServer, transport, adapterFor, started };
}

/** Asserts `error` is an instance of `type` whose message leaks no header value. */
export function assertClean(
  error: unknown,
  type: new (...args: never[]) => Error,
) {
  assert.ok(error instanceof type, `expected ${type.name}, got ${error}`);
  assert.ok(
    !error.message.includes(SECRET),
    `the message leaks a header value: ${error.message}`,
  );
  return true;
}
