/**
 * Faulty and hostile servers over streamable HTTP and SSE: oversized
 * bodies and events fail early with a size error, bad session ids are
 * refused, malformed responses settle their calls (one nested past the
 * stack too).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  MCPConnectionError,
  MCPNotConnectedError,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  type MCPToolResult,
} from "@cleveragents/mcp-adapter";
import { sdkSseServer, sdkStreamableServer, within } from "../_remote.ts";
import { releaseAfterEach } from "../_helpers.ts";

const WAIT_MS = 20_000;
const MiB = 1024 * 1024;

const cleanups = releaseAfterEach();

type Intercept = (
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
) => boolean;

async function serverWith(
  intercept: Intercept,
  json = true,
): Promise<string> {
  const server = await sdkStreamableServer({ json, intercept });
  cleanups.push(() => server.close());
  return server.url;
}

function adapterFor(
  url: string,
  options: MCPToolAdapterOptions = {},
): MCPToolAdapter {
  const adapter = new MCPToolAdapter(
    { name: "remote", transport: "streamable-http", url },
    options,
  );
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

/** Connects an adapter with `maxMessageBytes` to `url` and calls add, bounded by WAIT_MS. */
async function limitedAdd(
  url: string,
  maxMessageBytes: number,
): Promise<{ adapter: MCPToolAdapter; result: MCPToolResult }> {
  const adapter = adapterFor(url, { maxMessageBytes });
  await adapter.connect();
  const result = await within(
    adapter.invoke("add", { a: 1, b: 2 }),
    WAIT_MS,
    "invoke()",
  );
  return { adapter, result };
}

/** The JSON-RPC method and tool name of a POST body. */
function callOf(
  body: unknown,
): { method?: string; tool?: string; id?: unknown } {
  const message = body as {
    method?: string;
    id?: unknown;
    params?: { name?: string };
  };
  return {
    method: message?.method,
    tool: message?.params?.name,
    id: message?.id,
  };
}

/** Writes `chunk` until the client goes away (or `limit` bytes went out), respecting backpressure. */
function pour(res: ServerResponse, chunk: string, limit = Infinity): void {
  let sent = 0;
  const pump = () => {
    while (!res.destroyed && sent < limit) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on("close", () => sent = limit);
  pump();
}

describe("hostile HTTP servers: size limits", () => {
  it("reads a huge chunked JSON answer only up to maxMessageBytes, then fails the call with a size error", async () => {
    let flooded = false;
    const url = await serverWith((_req, res, body) => {
      if (callOf(body).tool !== "add" || flooded) return false;
      flooded = true;
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"jsonrpc":"2.0","id":0,"result":{"text":"');
      pour(res, "z".repeat(MiB), 1024 * MiB);
      return true;
    });
    const { adapter, result } = await limitedAdd(url, 4 * MiB);
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "connection");
    assert.match(
      result.error!,
      /larger than maxMessageBytes \(4,194,304 bytes\)/,
    );
    assert.doesNotMatch(result.error!, /Cannot reach/);
    assert.ok(adapter.connected, "other calls still work");
    assert.equal((await adapter.invoke("add", { a: 1, b: 1 })).success, true);
  });

  it("refuses a JSON answer whose Content-Length is over the limit without reading it", async () => {
    const url = await serverWith((_req, res, body) => {
      if (callOf(body).tool !== "add") return false;
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": String(64 * MiB),
      });
      res.write("{");
      return true;
    });
    const { result } = await limitedAdd(url, MiB);
    assert.equal(result.errorKind, "connection");
    assert.match(
      result.error!,
      /larger than maxMessageBytes \(1,048,576 bytes\)/,
    );
  });

  it("loses a call whose SSE event grows past maxMessageBytes, with a size error", async () => {
    const url = await serverWith((_req, res, body) => {
      if (callOf(body).tool !== "add") return false;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("id: 1\ndata: ");
      pour(res, "q".repeat(64 * 1024), 1024 * MiB);
      return true;
    }, false);
    const { result } = await limitedAdd(url, MiB);
    assert.equal(result.success, false);
    assert.match(result.error!, /larger than maxMessageBytes/);
  });

  it("reads an SSE answer whose Content-Length is over maxMessageBytes as a stream: its events arrive without the whole body", async () => {
    const url = await serverWith((_req, res, body) => {
      const { tool, id } = callOf(body);
      if (tool !== "add") return false;
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "content-length": String(64 * MiB),
      });
      // The answer, then nothing more: the declared length never arrives.
      res.write(
        `data: ${
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            result: {
              content: [{ type: "text", text: "3" }],
              structuredContent: { sum: 3 },
            },
          })
        }\n\n`,
      );
      return true;
    }, false);
    const { result } = await limitedAdd(url, MiB);
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(result.data?.structuredContent, { sum: 3 });
  });

  it("loses a call whose SSE event passes maxMessageBytes in a body with a Content-Length over it", async () => {
    const url = await serverWith((_req, res, body) => {
      if (callOf(body).tool !== "add") return false;
      const event = `id: 1\ndata: ${"q".repeat(2 * MiB)}\n\n`;
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "content-length": String(event.length),
      });
      res.end(event);
      return true;
    }, false);
    const { result } = await limitedAdd(url, MiB);
    assert.equal(result.success, false);
    assert.match(result.error!, /larger than maxMessageBytes/);
  });
});

describe("hostile SSE servers: size limits", () => {
  it("closes the connection when an event on the stream passes maxMessageBytes", async () => {
    const server = await sdkSseServer({
      extend: (mcp) =>
        mcp.registerTool("huge", { description: "2 MiB of text" }, () => ({
          content: [{ type: "text" as const, text: "h".repeat(2 * MiB) }],
        })),
    });
    cleanups.push(() => server.close());
    const adapter = new MCPToolAdapter(
      { name: "legacy", transport: "sse", url: server.url },
      { maxMessageBytes: MiB },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    await assert.rejects(
      within(adapter.invoke("huge"), WAIT_MS, "invoke()"),
      (error: unknown) => {
        assert.ok(error instanceof MCPNotConnectedError, `got ${error}`);
        assert.match(
          error.message,
          /larger than maxMessageBytes \(1,048,576 bytes\)/,
        );
        return true;
      },
    );
    assert.equal(adapter.connected, false);
  });
});

describe("hostile HTTP servers: protocol", () => {
  for (
    const [label, id] of [
      ["2,000 characters long", "s".repeat(2000)],
      ["with a space", "abc def"],
      ["with a non-ASCII byte", "abc\u00e9"],
    ] as const
  ) {
    it(`refuses an Mcp-Session-Id ${label}`, async () => {
      const url = await serverWith((_req, res, body) => {
        const call = callOf(body);
        if (call.method !== "initialize") return false;
        res.writeHead(200, {
          "content-type": "application/json",
          "mcp-session-id": id,
        });
        res.end(JSON.stringify({
          jsonrpc: "2.0",
          id: call.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "x", version: "0" },
          },
        }));
        return true;
      });
      const adapter = adapterFor(url);
      await assert.rejects(
        within(adapter.connect(), WAIT_MS, "connect()"),
        (error: unknown) => {
          assert.ok(error instanceof MCPConnectionError, `got ${error}`);
          assert.match(error.message, /Mcp-Session-Id/);
          assert.ok(!error.message.includes(id), "the id is not quoted");
          return true;
        },
      );
    });
  }

  it("reports a batch holding a list around data nested 100,000 deep as not a message, and settles the call", async () => {
    // [[{"0":{"0":…}}]]: JSON.stringify overflows on the inner list.
    const deep = `[[${'{"0":'.repeat(100_000)}{}${"}".repeat(100_000)}]]`;
    const url = await serverWith((_req, res, body) => {
      if (callOf(body).tool !== "add") return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(deep);
      return true;
    });
    const errors: Error[] = [];
    const adapter = adapterFor(url, { onError: (error) => errors.push(error) });
    await adapter.connect();
    const result = await within(
      adapter.invoke("add", { a: 1, b: 2 }, { timeoutMs: 60_000 }),
      WAIT_MS,
      "invoke()",
    );
    assert.equal(result.success, false);
    assert.doesNotMatch(result.error!, /call stack/);
    assert.ok(
      errors.some((error) =>
        /not a JSON-RPC message object: "a list"$/.test(error.message)
      ),
      errors.map((error) => error.message).join("\n"),
    );
    const again = await adapter.invoke("add", { a: 1, b: 2 });
    assert.equal(again.success, false, "the server answers add so every time");
    assert.ok(adapter.connected);
  });

  it("settles a call answered with error: null over HTTP as a server error", async () => {
    const url = await serverWith((_req, res, body) => {
      const call = callOf(body);
      if (call.tool !== "add") return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, error: null }));
      return true;
    });
    const adapter = adapterFor(url);
    await adapter.connect();
    const result = await within(
      adapter.invoke("add", { a: 1, b: 2 }, { timeoutMs: 60_000 }),
      WAIT_MS,
      "invoke()",
    );
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /not a JSON-RPC error object \(null\)/);
  });
});
