/** The streamable HTTP transport when things go wrong: failures, redirects, expired sessions, secrets in answers. */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, it } from "node:test";
import {
  MCPConnectionError,
  MCPInitializeStatusError,
  MCPRequestLostError,
  MCPSessionExpiredError,
} from "@cleveragents/mcp-adapter";
import {
  bearerSources,
  freePort,
  rawServers,
  type TestHttpServer,
  TOKEN_ECHOES,
  tokenOf,
  withoutToken,
} from "../_remote.ts";
import { text, waitFor } from "../_helpers.ts";
import { assertClean, streamableFixture } from "./_streamable.ts";

const { adapterFor, cleanups, sdkServer, started } = streamableFixture();

/** A `node:http` server with `handler`, closed after the test. */
const rawServer = rawServers(cleanups);

/**
 * A hand-written server: answers initialize (with session id "raw-session")
 * and notifications itself, and hands every other request to `other`.
 */
function miniServer(
  other: (req: IncomingMessage, res: ServerResponse, body: unknown) => void,
): Promise<TestHttpServer> {
  return rawServer((req, res, body) => {
    const message = body as { id?: number; method?: string } | undefined;
    if (message?.method === "initialize") {
      res.writeHead(200, {
        "content-type": "application/json",
        "mcp-session-id": "raw-session",
      }).end(JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "raw", version: "1" },
        },
      }));
    } else if (message?.method !== undefined && message.id === undefined) {
      res.writeHead(202).end();
    } else other(req, res, body);
  });
}

/** The token part of `Authorization: Bearer …`, as servers echo it back. */
const TOKEN = "sk-abc123-streamable-token";

const assertNoToken = withoutToken(TOKEN);

describe("streamable HTTP never quotes a header value, not even a part of it", () => {
  for (const [source, options] of bearerSources(TOKEN)) {
    for (const [answer, echo] of Object.entries(TOKEN_ECHOES)) {
      it(`redacts the token of a Bearer value from ${source} echoed in a ${answer} body`, async () => {
        const received: string[] = [];
        const server = await rawServer((req, res) => {
          const token = tokenOf(req);
          received.push(token);
          echo(res, token);
        });
        const rpc = await started(`${server.origin}/mcp`, options);
        await assert.rejects(rpc.initialize(), assertNoToken);
        assert.deepEqual(received, [TOKEN], "the server saw the token");
      });
    }
  }
});

describe("streamable HTTP failures", () => {
  it("connection refused rejects with MCPConnectionError", async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const rpc = await started(url);
    await assert.rejects(rpc.initialize(), (error) => {
      assertClean(error, MCPConnectionError);
      assert.match((error as Error).message, /Cannot reach MCP server/);
      // The reason, not only Node's "fetch failed".
      assert.match((error as Error).message, /refused/i);
      return true;
    });
    const adapter = adapterFor(url);
    await assert.rejects(
      adapter.connect(),
      (error) => assertClean(error, MCPConnectionError),
    );
  });

  it("an HTML page answered with 200 rejects with MCPConnectionError naming the content type", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end("<!doctype html><title>Login</title><p>Please sign in</p>");
    });
    const rpc = await started(`${server.origin}/mcp`);
    await assert.rejects(rpc.initialize(), (error) => {
      assertClean(error, MCPConnectionError);
      const message = (error as Error).message;
      assert.match(message, /text\/html/);
      assert.match(message, /HTTP 200/);
      assert.match(message, /Please sign in/);
      return true;
    });
  });

  it("a non-2xx answer to initialize names the status and a short, redacted body excerpt", async () => {
    const server = await rawServer((req, res) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(
        `boom: got key ${req.headers["x-api-key"]} ${"x".repeat(1000)}`,
      );
    });
    const rpc = await started(`${server.origin}/mcp`);
    await assert.rejects(rpc.initialize(), (error) => {
      assertClean(error, MCPConnectionError);
      const message = (error as Error).message;
      assert.match(message, /HTTP 500/);
      assert.match(message, /boom: got key \[redacted\]/);
      assert.ok(message.length < 500, `excerpt too long: ${message.length}`);
      return true;
    });
  });

  it("initialize answered with 400, 404 or 405 rejects with MCPInitializeStatusError (the fallback cue); other statuses and requests do not", async () => {
    for (const status of [400, 404, 405, 403, 500]) {
      const server = await rawServer((_req, res) => {
        res.writeHead(status, { "content-type": "text/plain" }).end("refused");
      });
      const rpc = await started(`${server.origin}/mcp`);
      await assert.rejects(rpc.initialize(), (error) => {
        assertClean(error, MCPConnectionError);
        assert.equal(
          error instanceof MCPInitializeStatusError,
          status === 400 || status === 404 || status === 405,
          `HTTP ${status}`,
        );
        if (error instanceof MCPInitializeStatusError) {
          assert.equal(error.status, status);
        }
        assert.match((error as Error).message, new RegExp(`HTTP ${status}`));
        return true;
      });
    }
    const server = await miniServer((_req, res) => {
      res.writeHead(405, { "content-type": "text/plain" }).end("no");
    });
    const rpc = await started(`${server.origin}/mcp`);
    await rpc.initialize();
    await assert.rejects(rpc.request("tools/list"), (error) => {
      assertClean(error, MCPConnectionError);
      assert.ok(!(error instanceof MCPInitializeStatusError));
      return true;
    });
  });

  /** One event with a log message, and no event id. */
  const WORKING = `event: message\ndata: ${
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "working" },
    })
  }\n\n`;
  for (
    const [what, headers] of [
      ["a response stream", {}],
      // Read whole, in one go: the events are delivered all the same.
      ["a buffered response stream (with a Content-Length)", {
        "content-length": String(Buffer.byteLength(WORKING)),
      }],
    ] as const
  ) {
    it(`${what} that ends without an event id delivers its events, then loses the call at once`, async () => {
      const server = await miniServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream", ...headers })
          .end(WORKING);
      });
      const rpc = await started(`${server.origin}/mcp`);
      await rpc.initialize();
      await assert.rejects(
        rpc.request("tools/call", { name: "x" }),
        (error) => {
          assertClean(error, MCPRequestLostError);
          assert.equal((error as MCPRequestLostError).requestId, 2);
          assert.match((error as Error).message, /no event id to resume from/);
          assert.match((error as Error).message, /may or may not have run/);
          return true;
        },
      );
      assert.ok(
        rpc.messages.some((m) =>
          "method" in m && m.method === "notifications/message"
        ),
      );
    });
  }

  it("a buffered response stream that ends before the response is resumed from its last event id, at its retry delay", async () => {
    const resumedWith: string[] = [];
    const server = await miniServer((req, res, body) => {
      if (req.method === "GET") {
        const lastEventId = req.headers["last-event-id"];
        // The GET stream for server messages: this server has none.
        if (lastEventId === undefined) return void res.writeHead(405).end();
        resumedWith.push(lastEventId as string);
        res.writeHead(200, { "content-type": "text/event-stream" }).end(
          `id: e2\ndata: ${
            JSON.stringify({ jsonrpc: "2.0", id: 2, result: { resumed: true } })
          }\n\n`,
        );
        return;
      }
      const id = (body as { id: number }).id;
      const events = `retry: 5\nid: e1\ndata: ${
        JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: id, progress: 1 },
        })
      }\n\n`;
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "content-length": String(Buffer.byteLength(events)),
      }).end(events);
    });
    const rpc = await started(`${server.origin}/mcp`);
    await rpc.initialize();
    assert.deepEqual(await rpc.request("tools/call", { name: "x" }), {
      resumed: true,
    });
    assert.deepEqual(resumedWith, ["e1"]);
  });

  it("a buffered response stream cut short loses the call, quoting why", async () => {
    const server = await miniServer((_req, res) => {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "content-length": "4096",
      });
      // Half an event, then the connection breaks.
      res.flushHeaders();
      res.write("id: e1\ndata: {", () => res.socket?.destroy());
    });
    const rpc = await started(`${server.origin}/mcp`);
    await rpc.initialize();
    await assert.rejects(rpc.request("tools/call", { name: "x" }), (error) => {
      assertClean(error, MCPRequestLostError);
      assert.match((error as Error).message, /may or may not have run/);
      assert.ok((error as Error).cause !== undefined, "the break is the cause");
      return true;
    });
  });

  it("close() ignores a DELETE answered with 405, and stops waiting for one that hangs", async () => {
    for (const hang of [false, true]) {
      const server = await miniServer((req, res) => {
        if (req.method !== "DELETE") res.writeHead(405).end();
        else if (!hang) res.writeHead(405).end();
      });
      const rpc = await started(`${server.origin}/mcp`, {
        closeTimeoutMs: 200,
      });
      await rpc.initialize();
      assert.equal(rpc.transport.sessionId, "raw-session");
      // The GET stream opens in the background after initialize; whether it
      // leaves before an immediate close() is up to the runtime's scheduling
      // (always on Node 20, never on 22+, either on Bun). Wait for it, so
      // the order below is the transport's, not the event loop's.
      assert.ok(
        await waitFor(
          () => server.requests.some((r) => r.method === "GET"),
          5000,
        ),
        "the GET stream was opened",
      );
      const closing = performance.now();
      await rpc.transport.close();
      assert.ok(performance.now() - closing < 2000, "close() waited too long");
      assert.equal(rpc.closes, 1);
      assert.deepEqual(
        server.requests.map((r) => r.method),
        ["POST", "POST", "GET", "DELETE"],
      );
      assert.deepEqual(rpc.errors, []);
    }
  });

  it("authorize() on 401 refreshes the headers and retries once", async () => {
    const server = await sdkServer({
      intercept: (req, res) => {
        if (req.headers.authorization === "Bearer fresh") return false;
        res.writeHead(401, {
          "www-authenticate": 'Bearer resource_metadata="http://x/.well-known"',
        }).end("unauthorized");
        return true;
      },
    });
    let token = "stale";
    const statuses: number[] = [];
    const adapter = adapterFor(server.url, {
      getHeaders: () => Promise.resolve({ Authorization: `Bearer ${token}` }),
      authorize: (response) => {
        statuses.push(response.status);
        token = "fresh";
        return Promise.resolve(true);
      },
    });
    await adapter.connect();
    assert.equal(
      text(await adapter.invoke("echo", { message: "authed" })),
      "authed",
    );
    assert.deepEqual(statuses, [401]);

    const refused = adapterFor(server.url, {
      getHeaders: () => Promise.resolve({ Authorization: "Bearer nope-nope" }),
      authorize: () => Promise.resolve(false),
    });
    await assert.rejects(refused.connect(), (error) => {
      assertClean(error, MCPConnectionError);
      assert.match((error as Error).message, /HTTP 401/);
      assert.ok(!(error as Error).message.includes("nope-nope"));
      return true;
    });
  });

  it("follows a redirect within the origin and refuses one to another origin", async () => {
    const other = await rawServer((_req, res) => void res.writeHead(500).end());
    const server = await sdkServer({
      intercept: (req, res) => {
        if (req.url === "/old") {
          res.writeHead(307, { location: "/mcp" }).end();
        } else if (req.url === "/away") {
          // "localhost" is another origin than "127.0.0.1", same machine.
          res.writeHead(307, {
            location: `${other.origin.replace("127.0.0.1", "localhost")}/mcp`,
          }).end();
        } else return false;
        return true;
      },
    });
    const moved = await started(`${server.origin}/old`);
    await moved.initialize();
    assert.ok((await moved.request("tools/list")).tools.length > 0);

    const away = await started(`${server.origin}/away`);
    await assert.rejects(away.initialize(), (error) => {
      assertClean(error, MCPConnectionError);
      assert.match((error as Error).message, /another origin/);
      return true;
    });
    assert.equal(other.requests.length, 0, "nothing went to the other origin");
  });

  it("takes a 400 for an expired session only when its body names our session id or says the session is gone", async () => {
    let body = "";
    const server = await miniServer((req, res) => {
      if (req.method !== "POST") res.writeHead(405).end();
      else {
        res.writeHead(400, { "content-type": "application/json" }).end(body);
      }
    });
    const cases: [string, boolean][] = [
      ['{"error":"session raw-session belongs to nobody"}', true],
      ["Bad Request: Server not initialized", true],
      ['{"error":"Unknown session"}', true],
      ['{"error":"bad session preference value"}', false],
      ['{"error":"the session_timeout field must be a number"}', false],
    ];
    for (const [text, expired] of cases) {
      body = text;
      const rpc = await started(`${server.origin}/mcp`);
      await rpc.initialize();
      assert.equal(rpc.transport.sessionId, "raw-session");
      await assert.rejects(rpc.request("tools/list"), (error) => {
        assertClean(
          error,
          expired ? MCPSessionExpiredError : MCPConnectionError,
        );
        assert.equal(error instanceof MCPSessionExpiredError, expired, text);
        assert.match((error as Error).message, /HTTP 400/);
        return true;
      });
      assert.equal(
        rpc.transport.sessionId,
        expired ? undefined : "raw-session",
        text,
      );
    }
  });

  it("a 400 that mentions some session setting fails the call once: no new initialize, no second POST", async () => {
    const server = await miniServer((req, res, body) => {
      const method = (body as { method?: string } | undefined)?.method;
      if (req.method !== "POST") res.writeHead(405).end();
      else if (method === "tools/list") {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: (body as { id: number }).id,
            result: {
              tools: [{ name: "pick", inputSchema: { type: "object" } }],
            },
          }),
        );
      } else {
        res.writeHead(400, { "content-type": "application/json" })
          .end('{"error":"bad session preference value"}');
      }
    });
    const adapter = adapterFor(`${server.origin}/mcp`);
    await adapter.connect();
    const result = await adapter.invoke("pick", {});
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "connection");
    assert.match(result.error!, /HTTP 400/);
    assert.match(result.error!, /bad session preference value/);
    const count = (method: string) =>
      server.requests.filter((r) => r.rpcMethod === method).length;
    assert.equal(count("initialize"), 1, "no second initialize");
    assert.equal(count("tools/call"), 1, "the call was POSTed once");
  });
});
