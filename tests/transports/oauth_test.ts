/**
 * OAuth on the remote transports themselves, without an adapter:
 * `authProvider` and `finishAuth()` of StreamableHTTPTransport and
 * SSEClientTransport, as the MCP SDK's transports offer them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPAuthorizationRequiredError,
  MCPConfigError,
  type MCPTransport,
  SSEClientTransport,
  StreamableHTTPTransport,
} from "@cleveragents/mcp-adapter";
import { startOAuthServer } from "../_oauth_server.ts";
import { approveHeadlessly, MemoryOAuthProvider } from "../_oauth_client.ts";
import { Rpc, within } from "../_remote.ts";
import { releaseAfterEach } from "../_helpers.ts";

const WAIT_MS = 10_000;

const cleanups = releaseAfterEach();

const kinds = [
  ["StreamableHTTPTransport", "streamable-http"],
  ["SSEClientTransport", "sse"],
] as const;

function make(
  kind: "streamable-http" | "sse",
  url: string,
  provider?: MemoryOAuthProvider,
): MCPTransport & { finishAuth(code: string): Promise<void> } {
  const options = provider ? { url, authProvider: provider } : { url };
  const transport = kind === "sse"
    ? new SSEClientTransport(options)
    : new StreamableHTTPTransport(options);
  cleanups.push(() => transport.close());
  return transport;
}

/** Starts (SSE) and initializes over a transport. */
async function open(transport: MCPTransport): Promise<Rpc> {
  const rpc = new Rpc(transport);
  await within(transport.start(), WAIT_MS, "start()");
  await rpc.initialize();
  return rpc;
}

describe("OAuth on the remote transports", () => {
  for (const [name, kind] of kinds) {
    it(`${name}: a 401 that needs the user fails with the authorization URL; finishAuth() on the failed transport lets a new one through`, async () => {
      const server = await startOAuthServer({ transport: kind });
      cleanups.push(() => server.close());
      const provider = new MemoryOAuthProvider();
      const first = make(kind, server.url, provider);
      let required: unknown;
      try {
        await open(first);
      } catch (error) {
        required = error;
      }
      assert.ok(
        required instanceof MCPAuthorizationRequiredError,
        `${required}`,
      );
      await first.close();
      const code = await approveHeadlessly(
        required.authorizationUrl,
        provider.expectedState,
      );
      await within(first.finishAuth(code), WAIT_MS, "finishAuth()");
      const rpc = await open(make(kind, server.url, provider));
      const result = await rpc.request("tools/call", {
        name: "echo",
        arguments: { message: "transport" },
      });
      assert.deepEqual(result.content, [{ type: "text", text: "transport" }]);
      assert.equal(
        server.exchanges.at(-1)?.token,
        provider.tokens()?.access_token,
      );
    });

    it(`${name}: finishAuth() without an authProvider is a config error`, async () => {
      const transport = make(kind, "http://127.0.0.1:9/mcp");
      await assert.rejects(transport.finishAuth("code"), MCPConfigError);
    });
  }
});
