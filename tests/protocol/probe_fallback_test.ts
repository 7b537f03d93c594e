/**
 * The era probe never costs a connection `initialize` would make: a
 * 2025-era server on 127.0.0.1 (the SDK's streamable HTTP server) whose
 * front answers `server/discover` the ways deployed servers fumble it — a
 * 500 with a JSON-RPC error body (`@cyanheads/git-mcp-server`), a 500 that
 * is not JSON, a stream that closes, a stream that stalls — is reached with
 * `initialize`, once; when `initialize` fails too, the error quotes both.
 * Over stdio, a JSON-RPC error of any code falls back the same way.
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IncomingMessage, ServerResponse } from "node:http";
import { MCPConnectionError, MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { freePort, sdkStreamableServer } from "../_remote.ts";
import {
  fixturePath,
  releaseAfterEach,
  runtimeCommand,
  text,
} from "../_helpers.ts";

const TEST_MS = 30_000;
const cleanups = releaseAfterEach();

/** How the front answers a `server/discover` POST. */
type Fumble = (res: ServerResponse) => void;

const FUMBLES: Record<string, Fumble> = {
  // What @cyanheads/git-mcp-server answers (Hono's error handler).
  "HTTP 500 with a JSON-RPC error body": (res) =>
    res.writeHead(500, { "content-type": "application/json" }).end(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Error in httpTransport" },
        id: null,
      }),
    ),
  "HTTP 500 whose body is not JSON": (res) =>
    res.writeHead(500, { "content-type": "text/html" }).end(
      "<html><body><h1>Internal Server Error</h1></body></html>",
    ),
  "HTTP 502 from a gateway, no body": (res) => res.writeHead(502).end(),
  "a 200 event stream that closes without an answer": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(": nothing to say\n\n");
  },
  "a 200 JSON body that is not JSON-RPC": (res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({ error: "unknown method" }),
    ),
};

/** An SDK (2025-era) streamable HTTP server whose front fumbles the probe. */
async function fumblingServer(
  fumble: Fumble,
  { initialize }: { initialize?: Fumble } = {},
) {
  const probes: string[] = [];
  const server = await sdkStreamableServer({
    intercept: (_req: IncomingMessage, res: ServerResponse, body: unknown) => {
      const method = (body as { method?: string } | undefined)?.method;
      if (method === "server/discover") {
        probes.push(method);
        fumble(res);
        return true;
      }
      if (method === "initialize" && initialize !== undefined) {
        initialize(res);
        return true;
      }
      return false;
    },
  });
  cleanups.push(() => server.close());
  return { server, probes };
}

function adapterFor(url: string): MCPToolAdapter {
  const adapter = new MCPToolAdapter({
    name: "fumbler",
    transport: "streamable-http",
    url,
  });
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

describe("a server that fumbles the era probe (streamable HTTP)", () => {
  for (const [name, fumble] of Object.entries(FUMBLES)) {
    it(`${name}: connects with initialize, and probes that URL no more`, {
      timeout: TEST_MS,
    }, async () => {
      const { server, probes } = await fumblingServer(fumble);
      const adapter = adapterFor(server.url);
      await adapter.connect();
      assert.equal(adapter.serverInfo?.era, "legacy");
      assert.equal(adapter.transportKind, "streamable-http");
      const sum = await adapter.invoke("add", { a: 2, b: 3 });
      assert.equal(text(sum), "5", sum.error ?? "");
      assert.equal(probes.length, 1);
      await adapter.reconnect();
      assert.equal(probes.length, 1, "the endpoint is known to be 2025-era");
    });
  }

  it("a probe that stalls: initialize gets the rest of the deadline", {
    timeout: TEST_MS,
  }, async () => {
    const stalled: ServerResponse[] = [];
    const { server } = await fumblingServer((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": thinking\n\n");
      stalled.push(res); // never answered; closed with the server
    });
    const adapter = adapterFor(server.url);
    // The probe waits half of it, initialize has the other half.
    await adapter.connect({ timeoutMs: 8000 });
    assert.equal(adapter.serverInfo?.era, "legacy");
    assert.equal(stalled.length, 1);
  });

  it("when initialize fails too, the error quotes both answers", {
    timeout: TEST_MS,
  }, async () => {
    const { server } = await fumblingServer(
      FUMBLES["HTTP 500 with a JSON-RPC error body"]!,
      {
        initialize: (res) =>
          res.writeHead(503, { "content-type": "text/plain" }).end(
            "upstream is down",
          ),
      },
    );
    const adapter = adapterFor(server.url);
    await assert.rejects(adapter.connect(), (error: unknown) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.match(
        error.message,
        /^MCP server "fumbler" failed both handshakes\. "server\/discover" \(the 2026-07-28 probe\) got: .*HTTP 500.*Error in httpTransport.*\. "initialize" \(the 2025 handshake\) got: .*HTTP 503.*upstream is down/,
      );
      return true;
    });
  });
});

describe("what initialize would meet as well ends the connect at the probe", () => {
  it("a server out of reach: one attempt, its error as it is", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = adapterFor(`http://127.0.0.1:${await freePort()}/mcp`);
    await assert.rejects(adapter.connect(), (error: unknown) => {
      assert.ok(error instanceof MCPConnectionError);
      assert.match(
        error.message,
        /^Cannot reach MCP server at .*server\/discover/,
      );
      assert.doesNotMatch(error.message, /both handshakes|initialize/);
      return true;
    });
  });
});

describe("a server that fumbles the era probe (stdio)", () => {
  it(
    "a JSON-RPC error of any code on the probe falls back to initialize on the same process",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = new MCPToolAdapter({
        name: "picky",
        transport: "stdio",
        ...runtimeCommand(fixturePath("picky.mjs")),
      });
      cleanups.push(() => adapter.disconnect());
      await adapter.connect();
      assert.equal(adapter.serverInfo?.era, "legacy");
      const result = await adapter.invoke("initialized", {});
      assert.equal(text(result), "1", "one process, one initialize");
    },
  );
});
