/**
 * Proves the SSE-only fixture (`_sse_only.ts`) refuses a streamable-HTTP
 * `initialize` the ways deployed legacy servers do, and serves the SDK's own
 * SSE client at the same URL — so the fallback tests can trust it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { releaseAfterEach } from "../_helpers.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type RefusePost, sseOnlyServer } from "../_sse_only.ts";
import { within } from "../_remote.ts";

const TEST_MS = 15_000;

const open = releaseAfterEach("together");

describe("SSE-only fixture server", () => {
  for (const refusePost of ["404", "405", "400", "400-json"] as RefusePost[]) {
    it(
      `refuses a streamable-HTTP initialize with ${refusePost}, and serves the SDK SSE client at the same URL`,
      {
        timeout: TEST_MS,
      },
      async () => {
        const server = await sseOnlyServer({ refusePost });
        open.push(() => server.close());
        const post = await fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "probe", version: "1" },
            },
          }),
        });
        await post.body?.cancel();
        assert.equal(post.status, Number(refusePost.slice(0, 3)));

        const modern = new Client({ name: "fixture-test", version: "1.0.0" });
        await assert.rejects(
          within(
            modern.connect(
              new StreamableHTTPClientTransport(new URL(server.url)),
            ),
            10_000,
            "streamable connect",
          ),
        );
        await modern.close();

        const legacy = new Client({ name: "fixture-test", version: "1.0.0" });
        await within(
          legacy.connect(new SSEClientTransport(new URL(server.url))),
          10_000,
          "SSE connect",
        );
        open.push(() => legacy.close());
        const { tools } = await legacy.listTools();
        assert.ok(tools.some((tool: Tool) => tool.name === "echo"));
        const seen = server.requests.map((r) =>
          `${r.method} ${new URL(r.path, server.origin).pathname}`
        );
        assert.deepEqual(seen.slice(0, 3), [
          "POST /sse",
          "POST /sse",
          "GET /sse",
        ]);
        assert.ok(seen.includes("POST /messages"), seen.join());
      },
    );
  }
});
