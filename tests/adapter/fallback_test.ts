/**
 * Streamable HTTP → SSE fallback (the specification's backwards-compatibility
 * procedure), against an SDK SSE-only server that refuses a streamable-HTTP
 * `initialize` the ways deployed servers do.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  MCPConnectionError,
  MCPInitializeStatusError,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import { type RefusePost, sseOnlyServer } from "../_sse_only.ts";
import { listen } from "../_remote.ts";
import { releaseAfterEach } from "../_helpers.ts";

const TEST_MS = 15_000;
const cleanups = releaseAfterEach("together");

function adapterFor(url: string, fallback?: boolean): MCPToolAdapter {
  const adapter = new MCPToolAdapter({
    name: "legacy",
    transport: "streamable-http",
    url,
    ...(fallback === undefined ? {} : { fallback }),
  });
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

const paths = (
  server: { origin: string; requests: { method: string; path: string }[] },
) =>
  server.requests.map((r) =>
    `${r.method} ${new URL(r.path, server.origin).pathname}`
  );

describe("streamable HTTP → SSE fallback", () => {
  for (const refusePost of ["404", "405", "400", "400-json"] as RefusePost[]) {
    it(`falls back to SSE at the same URL when initialize gets ${refusePost}`, {
      timeout: TEST_MS,
    }, async () => {
      const server = await sseOnlyServer({ refusePost });
      cleanups.push(() => server.close());
      const adapter = adapterFor(server.url);
      assert.equal(adapter.transportKind, undefined);
      await adapter.connect();
      assert.equal(adapter.transportKind, "sse");
      const result = await adapter.invoke("echo", { message: "legacy" });
      assert.equal(result.success, true, result.error ?? "");
      // The modern probe, then initialize, then the SSE transport.
      assert.deepEqual(paths(server).slice(0, 3), [
        "POST /sse",
        "POST /sse",
        "GET /sse",
      ]);
      // reconnect() goes through the same procedure.
      await adapter.reconnect();
      assert.equal(adapter.transportKind, "sse");
      assert.equal(
        (await adapter.invoke("echo", { message: "x" })).success,
        true,
      );
    });
  }

  it(
    "does not fall back with fallback: false, and says what the server answered",
    {
      timeout: TEST_MS,
    },
    async () => {
      const server = await sseOnlyServer({ refusePost: "405" });
      cleanups.push(() => server.close());
      await assert.rejects(
        adapterFor(server.url, false).connect(),
        (error: unknown) => {
          assert.ok(error instanceof MCPConnectionError, String(error));
          assert.match(error.message, /HTTP 405/);
          return true;
        },
      );
      assert.deepEqual(paths(server), ["POST /sse", "POST /sse"]);
    },
  );

  it("does not fall back on other statuses (500, 401)", {
    timeout: TEST_MS,
  }, async () => {
    for (const status of [500, 401]) {
      const server = await listen((_req, res) =>
        void res.writeHead(status, { "content-type": "text/plain" }).end("no")
      );
      cleanups.push(() => server.close());
      await assert.rejects(
        adapterFor(`${server.origin}/mcp`).connect(),
        (error: unknown) => {
          assert.ok(error instanceof MCPConnectionError);
          assert.ok(!(error.cause instanceof MCPInitializeStatusError));
          assert.match(error.message, new RegExp(`HTTP ${status}`));
          return true;
        },
      );
      // The probe's failure is tried with initialize once (probe_fallback_test.ts); no SSE.
      assert.deepEqual(server.requests.map((r) => r.rpcMethod), [
        "server/discover",
        "initialize",
      ]);
    }
  });

  it("reports both failures when the SSE transport fails too", {
    timeout: TEST_MS,
  }, async () => {
    const server = await listen((_req, res) =>
      void res.writeHead(404, { "content-type": "text/plain" }).end("Not Found")
    );
    cleanups.push(() => server.close());
    await assert.rejects(
      adapterFor(`${server.origin}/mcp`).connect(),
      (error: unknown) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.match(error.message, /POST "initialize" with HTTP 404/);
        assert.match(error.message, /legacy SSE transport .* failed too/);
        assert.match(error.message, /SSE GET with HTTP 404/);
        return true;
      },
    );
    // The last POST is the SSE transport asking whether the URL speaks
    // streamable HTTP, to word its error.
    assert.deepEqual(server.requests.map((r) => r.method), [
      "POST",
      "POST",
      "GET",
      "POST",
    ]);
  });

  it(
    "never falls back for a custom transport",
    { timeout: TEST_MS },
    async () => {
      const adapter = new MCPToolAdapter({
        name: "custom",
        transport: "streamable-http",
        url: "http://127.0.0.1:9/mcp",
      }, {
        transport: {
          start: () => Promise.resolve(),
          send: () =>
            Promise.reject(
              new MCPInitializeStatusError("HTTP 404 to initialize", 404),
            ),
          close: () => Promise.resolve(),
        },
      });
      cleanups.push(() => adapter.disconnect());
      await assert.rejects(adapter.connect(), /HTTP 404 to initialize/);
      assert.equal(adapter.transportKind, undefined);
    },
  );
});
