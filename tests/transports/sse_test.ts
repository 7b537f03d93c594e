import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import {
  MCPConnectionError,
  MCPToolAdapter,
  SSEClientTransport,
  type SSEClientTransportOptions,
} from "@cleveragents/mcp-adapter";
import {
  bearerSources,
  type EverythingServer,
  rawServers,
  recordingFetch,
  Rpc,
  sdkSseServer,
  sdkStreamableServer,
  startEverything,
  TOKEN_ECHOES,
  tokenOf,
  withoutToken,
} from "../_remote.ts";
import {
  assertProgressCall,
  releaseAfterEach,
  text,
  waitFor,
} from "../_helpers.ts";

const SECRET = "sk-test-sse-0123456789";
const HEADERS = { Authorization: `Bearer ${SECRET}` };
const WAIT_MS = 10_000;

const cleanups = releaseAfterEach();

const rawServer = rawServers(cleanups);

function transport(
  url: string,
  options: Partial<SSEClientTransportOptions> = {},
): SSEClientTransport {
  const created = new SSEClientTransport({ url, headers: HEADERS, ...options });
  cleanups.push(() => created.close());
  return created;
}

function adapterFor(url: string): MCPToolAdapter {
  const adapter = new MCPToolAdapter(
    { name: "legacy", transport: "sse", url },
    {
      transport: () => transport(url),
    },
  );
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

function assertClean(error: unknown): true {
  assert.ok(error instanceof MCPConnectionError, `got ${error}`);
  assert.ok(!error.message.includes(SECRET), error.message);
  return true;
}

/** Opens an SSE response and writes `events` (raw SSE text) to it; keeps it open. */
function openStream(res: ServerResponse, events: string): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
  });
  res.write(events);
}

describe("SSE transport given a streamable-HTTP URL", () => {
  for (const stateless of [false, true]) {
    it(
      `says the URL speaks streamable HTTP (${
        stateless ? "stateless: GET is 405" : "stateful: GET is 400"
      }), and ends the session its probe opened`,
      async () => {
        const server = await sdkStreamableServer({ stateless });
        cleanups.push(() => server.close());
        await assert.rejects(
          transport(server.url).start(),
          (error: unknown) => {
            assert.ok(error instanceof MCPConnectionError, String(error));
            assert.match(
              error.message,
              /this URL speaks streamable HTTP; set transport: streamable-http/i,
            );
            assert.ok(!error.message.includes(SECRET), error.message);
            return true;
          },
        );
        const methods = server.requests.map((r) => r.method);
        assert.deepEqual(
          methods,
          stateless ? ["GET", "POST"] : ["GET", "POST", "DELETE"],
        );
        assert.equal(server.sessions.size, 0, "the probe's session is gone");
      },
    );
  }

  it("does not claim streamable HTTP for a URL that answers neither", async () => {
    const server = await rawServer((_req, res) =>
      void res.writeHead(404, { "content-type": "text/plain" }).end("nope")
    );
    await assert.rejects(
      transport(`${server.origin}/sse`).start(),
      (error: unknown) => {
        assert.ok(error instanceof MCPConnectionError);
        assert.match(error.message, /SSE GET with HTTP 404/);
        assert.doesNotMatch(error.message, /streamable HTTP;/);
        return true;
      },
    );
  });
});

describe("legacy SSE against the SDK SSEServerTransport", () => {
  it("round-trips tools/list and tools/call with progress, with the header on the GET and every POST", async () => {
    const server = await sdkSseServer();
    cleanups.push(() => server.close());
    const adapter = adapterFor(server.url);
    await adapter.connect();
    const names = (await adapter.discoverTools()).map((tool) => tool.name);
    assert.ok(names.includes("echo") && names.includes("add"));
    assert.equal(
      text(await adapter.invoke("echo", { message: "legacy" })),
      "legacy",
    );
    await assertProgressCall(adapter, 3);
    await adapter.disconnect();

    const [get, ...posts] = server.requests;
    assert.equal(get!.method, "GET");
    assert.equal(get!.headers.accept, "text/event-stream");
    assert.ok(posts.length >= 4);
    for (const request of server.requests) {
      assert.equal(request.headers.authorization, `Bearer ${SECRET}`);
    }
    for (const post of posts) {
      assert.equal(post.method, "POST");
      assert.match(post.path, /^\/messages\?sessionId=/);
      assert.equal(post.headers["content-type"], "application/json");
    }
    assert.equal(posts[0]!.headers["mcp-protocol-version"], undefined);
    assert.equal(posts.at(-1)!.headers["mcp-protocol-version"], "2025-11-25");
    assert.ok(
      await waitFor(() => server.sessions.size === 0, WAIT_MS),
      "disconnect() ended the GET stream",
    );
  });
});

describe("legacy SSE: request signals", () => {
  it("gives each POST a signal of its own (none piles up listeners); close() aborts the GET's", async () => {
    const server = await sdkSseServer();
    cleanups.push(() => server.close());
    const { fetch: recording, log } = recordingFetch();
    const adapter = new MCPToolAdapter(
      { name: "legacy", transport: "sse", url: server.url },
      { transport: () => transport(server.url, { fetch: recording }) },
    );
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    for (const message of ["a", "b", "c"]) {
      assert.equal(text(await adapter.invoke("echo", { message })), message);
    }
    const posts = log.filter((r) => r.method === "POST").map((r) => r.signal);
    assert.ok(posts.length >= 5, "initialize, initialized and 3 calls");
    assert.ok(posts.every((signal) => signal !== undefined));
    assert.equal(new Set(posts).size, posts.length);
    const get = log.find((r) => r.method === "GET")!.signal!;
    assert.ok(!posts.includes(get));
    await adapter.disconnect();
    assert.equal(get.aborted, true);
  });
});

describe("legacy SSE against server-everything", () => {
  let everything: EverythingServer;
  before(async () => {
    everything = await startEverything("sse");
  });
  after(async () => {
    await everything?.stop();
  });

  it("lists and calls tools", async () => {
    const adapter = adapterFor(`${everything.origin}/sse`);
    await adapter.connect();
    const names = (await adapter.discoverTools()).map((tool) => tool.name);
    assert.ok(names.includes("echo") && names.includes("get-sum"));
    assert.match(text(await adapter.invoke("echo", { message: "hey" })), /hey/);
    assert.match(text(await adapter.invoke("get-sum", { a: 20, b: 22 })), /42/);
  });
});

/** The token part of `Authorization: Bearer …`, as servers echo it back. */
const TOKEN = "sk-abc123-legacy-token";

const assertNoToken = withoutToken(TOKEN);

describe("legacy SSE never quotes a header value, not even a part of it", () => {
  for (const [source, options] of bearerSources(TOKEN)) {
    for (const [answer, echo] of Object.entries(TOKEN_ECHOES)) {
      it(`redacts the token of a Bearer value from ${source} echoed in a ${answer} answer to the GET`, async () => {
        const received: string[] = [];
        const server = await rawServer((req, res) => {
          received.push(tokenOf(req));
          echo(res, tokenOf(req));
        });
        await assert.rejects(
          transport(`${server.origin}/sse`, options).start(),
          assertNoToken,
        );
        assert.deepEqual(received, [TOKEN], "the server saw the token");
      });
    }
    for (const answer of ["401", "500"]) {
      it(`redacts the token of a Bearer value from ${source} echoed in a ${answer} answer to a POST`, async () => {
        const received: string[] = [];
        const server = await rawServer((req, res) => {
          received.push(tokenOf(req));
          if (req.method === "GET") {
            openStream(res, "event: endpoint\ndata: /post\n\n");
          } else TOKEN_ECHOES[answer]!(res, tokenOf(req));
        });
        const sse = transport(`${server.origin}/sse`, options);
        await sse.start();
        await assert.rejects(
          sse.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
          assertNoToken,
        );
        assert.deepEqual(received, [TOKEN, TOKEN], "the server saw the token");
      });
    }
  }
});

describe("legacy SSE failures", () => {
  it("refuses an endpoint on another origin", async () => {
    const other = await rawServer((_req, res) => void res.writeHead(202).end());
    const server = await rawServer((_req, res) => {
      openStream(
        res,
        `event: endpoint\ndata: ${
          other.origin.replace("127.0.0.1", "localhost")
        }/messages?sessionId=1\n\n`,
      );
    });
    const rpc = new Rpc(transport(`${server.origin}/sse`));
    await assert.rejects(rpc.transport.start(), (error) => {
      assertClean(error);
      assert.match((error as Error).message, /not on the origin/);
      return true;
    });
    await assert.rejects(rpc.notify("notifications/initialized"), assertClean);
    assert.equal(other.requests.length, 0);
    assert.equal(rpc.closes, 0);
  });

  it("rejects start() when no endpoint event comes within endpointTimeoutMs", async () => {
    const server = await rawServer((_req, res) => {
      openStream(res, ": nothing to see\n\n");
    });
    await assert.rejects(
      transport(`${server.origin}/sse`, { endpointTimeoutMs: 200 }).start(),
      (error) => {
        assertClean(error);
        assert.match(
          (error as Error).message,
          /no "endpoint" event within 200 ms/,
        );
        return true;
      },
    );
    // Without the endpoint deadline this would hang until the test's limit.
  });

  it("rejects start() with the status and a redacted excerpt on a non-2xx GET", async () => {
    const server = await rawServer((req, res) => {
      res.writeHead(403, { "content-type": "text/plain" }).end(
        `forbidden for ${req.headers.authorization}`,
      );
    });
    await assert.rejects(transport(`${server.origin}/sse`).start(), (error) => {
      assertClean(error);
      assert.match((error as Error).message, /HTTP 403/);
      assert.match(
        (error as Error).message,
        /forbidden for \[redacted\]/,
      );
      return true;
    });
  });

  it("resolves a relative endpoint, delivers message events, and calls onclose once when the server ends the stream", async () => {
    let stream: ServerResponse | undefined;
    const posted: unknown[] = [];
    const server = await rawServer((req, res, body) => {
      if (req.method === "GET") {
        stream = res;
        openStream(res, "event: endpoint\ndata: /post?session=7\n\n");
        return;
      }
      posted.push(body);
      res.writeHead(202).end("Accepted");
      stream!.end(
        `event: message\ndata: ${
          JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } })
        }\n\n`,
      );
    });
    const sse = transport(`${server.origin}/sse`);
    const rpc = new Rpc(sse);
    await sse.start();
    assert.equal(sse.endpoint?.href, `${server.origin}/post?session=7`);
    assert.deepEqual(await rpc.request("ping"), { ok: true });
    assert.deepEqual(posted, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    assert.ok(await waitFor(() => rpc.closes === 1, WAIT_MS));
    await sse.close();
    assert.equal(rpc.closes, 1);
    await assert.rejects(rpc.notify("notifications/initialized"), assertClean);
  });

  it("close() aborts the GET stream and calls onclose once", async () => {
    let aborted = false;
    const server = await rawServer((_req, res) => {
      res.on("close", () => aborted = true);
      openStream(res, "event: endpoint\ndata: /post\n\n");
    });
    const sse = transport(`${server.origin}/sse`);
    const rpc = new Rpc(sse);
    await sse.start();
    await sse.close();
    await sse.close();
    assert.equal(rpc.closes, 1);
    assert.ok(
      await waitFor(() => aborted, WAIT_MS),
      "the server saw the stream end",
    );
  });
});
