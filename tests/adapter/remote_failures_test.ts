/** Remote servers that cannot be reached or refuse us, through MCPToolAdapter. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPConnectionError,
  type MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import { listen, within } from "../_remote.ts";
import { releaseAfterEach } from "../_helpers.ts";
import { remoteAdapters } from "./_shared.ts";

/** Bound on every connect and call here; each test ends well within it. */
const WAIT_MS = 10_000;

/** Everything the current test started; afterEach releases it. */
const cleanups = releaseAfterEach();
const adapterFor = remoteAdapters(cleanups);

/** Asserts `connect()` fails fast with MCPConnectionError that is not the connect timeout. */
async function assertConnectFails(adapter: MCPToolAdapter): Promise<void> {
  const startedAt = performance.now();
  await assert.rejects(
    within(adapter.connect({ timeoutMs: 5000 }), WAIT_MS, "connect()"),
    (error) => {
      assert.ok(error instanceof MCPConnectionError, `got ${error}`);
      assert.doesNotMatch(error.message, /timed out/);
      assert.match(error.message, /Cannot reach MCP server/);
      return true;
    },
  );
  const tookMs = performance.now() - startedAt;
  assert.ok(tookMs < 4000, `failing took ${Math.round(tookMs)} ms`);
}

describe("remote connection failures through MCPToolAdapter", () => {
  it("TLS to a plain-HTTP port rejects connect() with MCPConnectionError, for both transports", async () => {
    const plain = await listen((_req, res) => void res.end("plain http"));
    cleanups.push(() => plain.close());
    const origin = `https://127.0.0.1:${plain.port}`;
    await assertConnectFails(adapterFor("streamable-http", `${origin}/mcp`));
    await assertConnectFails(adapterFor("sse", `${origin}/sse`));
    // The handshake failed before any HTTP request was made.
    assert.equal(plain.requests.length, 0);
  });

  // `.invalid` never resolves (RFC 6761); without outside network the lookup
  // still fails within milliseconds, so the bound above holds.
  it("a host name that does not resolve rejects connect() with MCPConnectionError, for both transports", async () => {
    const origin = "http://mcp-adapter-test.invalid";
    await assertConnectFails(adapterFor("streamable-http", `${origin}/mcp`));
    await assertConnectFails(adapterFor("sse", `${origin}/sse`));
  });
});
