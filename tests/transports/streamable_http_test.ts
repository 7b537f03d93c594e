import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import {
  MCPConnectionError,
  MCPNotConnectedError,
  type MCPProgress,
  MCPSessionExpiredError,
} from "@cleveragents/mcp-adapter";
import type { Extra } from "../_in_memory.ts";
import {
  type EverythingServer,
  listen,
  recordingFetch,
  type SeenRequest,
  startEverything,
} from "../_remote.ts";
import { assertProgressCall, text, waitFor } from "../_helpers.ts";
import { assertClean, SECRET, streamableFixture } from "./_streamable.ts";

const { adapterFor, cleanups, sdkServer, started } = streamableFixture();

const WAIT_MS = 10_000;

/** Every request carried the configured header. */
function assertHeaderEverywhere(requests: SeenRequest[]): void {
  assert.ok(requests.length > 0);
  for (const request of requests) {
    assert.equal(
      request.headers["x-api-key"],
      SECRET,
      `${request.method} ${request.rpcMethod ?? ""} lacks the header`,
    );
  }
}

/** A tool that drops its own SSE response stream, then answers `afterMs` later. */
function interruptingTool(closedAt: number[]) {
  return (
    server: import("@modelcontextprotocol/sdk/server/mcp.js").McpServer,
  ) =>
    server.registerTool("interrupt", {
      description: "Drops its response stream mid-call",
      inputSchema: { afterMs: z.number() },
    }, async ({ afterMs }: { afterMs: number }, extra: Extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2 },
        });
      }
      closedAt.push(performance.now());
      extra.closeSSEStream?.();
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      return {
        content: [{ type: "text" as const, text: `resumed ${afterMs}` }],
      };
    });
}

describe("streamable HTTP against the SDK server, stateful, SSE answers", () => {
  it("round-trips tools/list and tools/call with progress, sending the header, session id and protocol version on every request", async () => {
    const server = await sdkServer();
    const adapter = adapterFor(server.url);
    await adapter.connect();
    const names = (await adapter.discoverTools()).map((tool) => tool.name);
    assert.ok(names.includes("echo") && names.includes("progress"));
    const echoed = await adapter.invoke("echo", { message: "over http" });
    assert.equal(text(echoed), "over http");
    const seen: MCPProgress[] = [];
    const progressed = await adapter.invoke("progress", {
      steps: 3,
      gapMs: 5,
    }, { onProgress: (progress) => seen.push(progress) });
    assert.equal(progressed.success, true);
    assert.deepEqual(seen.map((progress) => progress.progress), [1, 2, 3]);
    // The GET stream for server-initiated messages opened after initialized.
    assert.ok(
      await waitFor(
        () => server.requests.some((r) => r.method === "GET"),
        WAIT_MS,
      ),
    );
    await adapter.disconnect();

    // The modern probe first: a 2025-era server answers it without a session.
    const [probe, ...requests] = server.requests;
    assert.equal(probe!.rpcMethod, "server/discover");
    assertHeaderEverywhere(requests);
    const [initialize, ...later] = requests;
    assert.equal(initialize!.rpcMethod, "initialize");
    assert.equal(initialize!.headers["mcp-session-id"], undefined);
    const sessionId = [
      ...new Set(later.map((r) => r.headers["mcp-session-id"])),
    ];
    assert.equal(sessionId.length, 1);
    assert.match(String(sessionId[0]), /^[0-9a-f-]{36}$/);
    for (const request of later) {
      assert.equal(request.headers["mcp-protocol-version"], "2025-11-25");
    }
    assert.equal(later[0]!.rpcMethod, "notifications/initialized");
    const get = requests.find((r) => r.method === "GET")!;
    assert.equal(get.headers.accept, "text/event-stream");
    for (const post of requests.filter((r) => r.method === "POST")) {
      assert.equal(post.headers.accept, "application/json, text/event-stream");
      assert.equal(post.headers["content-type"], "application/json");
    }
    assert.equal(requests.at(-1)!.method, "DELETE");
    assert.equal(server.sessions.size, 0, "DELETE ended the session");
  });

  it("answers a notification POST with 202 and keeps no body", async () => {
    const server = await sdkServer();
    const recorder = recordingFetch();
    const rpc = await started(server.url, { fetch: recorder.fetch });
    await rpc.initialize();
    await rpc.notify("notifications/roots/list_changed");
    const posts = recorder.log.filter((entry) => entry.method === "POST");
    assert.deepEqual(posts.map((entry) => entry.status), [200, 202, 202]);
    assert.deepEqual(rpc.errors, []);
  });

  it("resumes a dropped response stream with Last-Event-ID after the server's retry delay", async () => {
    const closedAt: number[] = [];
    const server = await sdkServer({
      eventStore: true,
      retryInterval: 300,
      extend: interruptingTool(closedAt),
    });
    // The backoff would wait 20 s: finishing in half that proves `retry:`
    // (floored at 1 s) was used, however busy the machine.
    const adapter = adapterFor(server.url, {
      reconnection: { initialDelayMs: 20_000, maxRetries: 2 },
    });
    await adapter.connect();
    for (const afterMs of [20, 600]) {
      const startedAt = performance.now();
      const seen: MCPProgress[] = [];
      const result = await adapter.invoke("interrupt", { afterMs }, {
        onProgress: (progress) => seen.push(progress),
      });
      assert.equal(result.success, true, result.error ?? "");
      assert.equal(text(result), `resumed ${afterMs}`);
      assert.deepEqual(seen.map((progress) => progress.progress), [1]);
      assert.ok(performance.now() - startedAt < 10_000, "resumed too late");
    }
    const resumes = server.requests.filter((r) =>
      r.method === "GET" && r.headers["last-event-id"] !== undefined
    );
    assert.equal(resumes.length, 2);
    for (const [i, resume] of resumes.entries()) {
      const waited = resume.at - closedAt[i]!;
      assert.ok(waited >= 295, `reconnected after ${waited} ms, not 300`);
      assert.equal(resume.headers["x-api-key"], SECRET);
    }
  });

  it("reports the call lost, saying it may or may not have run, when the stream cannot be resumed", async () => {
    const closedAt: number[] = [];
    const server = await sdkServer({
      eventStore: true,
      extend: interruptingTool(closedAt),
      intercept: (req, res) => {
        if (req.method !== "GET" || !req.headers["last-event-id"]) return false;
        res.writeHead(503, { "content-type": "text/plain" }).end(
          `overloaded; you sent ${req.headers["x-api-key"]}`,
        );
        return true;
      },
    });
    const adapter = adapterFor(server.url, {
      reconnection: { initialDelayMs: 20, maxRetries: 2 },
    });
    await adapter.connect();
    const result = await adapter.invoke("interrupt", { afterMs: 10 });
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "connection");
    assert.match(result.error!, /may or may not have run/);
    assert.match(result.error!, /2 attempt/);
    assert.ok(!result.error!.includes(SECRET), result.error!);
    const resumes = server.requests.filter((r) => r.headers["last-event-id"]);
    assert.equal(resumes.length, 2);
    // The session still works.
    assert.equal(text(await adapter.invoke("echo", { message: "ok" })), "ok");
  });

  it("stops reading the response stream of a call it cancelled", async () => {
    const server = await sdkServer();
    const adapter = adapterFor(server.url);
    await adapter.connect();
    const result = await adapter.invoke("sleep", { ms: 30_000 }, {
      timeoutMs: 100,
    });
    assert.equal(result.errorKind, "timeout");
    const call = server.requests.find((r) => r.rpcMethod === "tools/call")!;
    // The SDK server never answers a cancelled call: only the client can
    // release the stream.
    assert.ok(
      await waitFor(() => call.closed, WAIT_MS),
      "the stream was left open",
    );
    assert.ok(
      await waitFor(
        () =>
          server.requests.some((r) =>
            r.rpcMethod === "notifications/cancelled"
          ),
        WAIT_MS,
      ),
    );
  });

  it("expires the session on 404: send() rejects, sessionId is cleared, and a new initialize works on the same transport", async () => {
    const server = await sdkServer();
    const rpc = await started(server.url);
    await rpc.initialize();
    const first = rpc.transport.sessionId;
    assert.ok(first);
    await server.dropSessions();
    await assert.rejects(
      rpc.request("tools/list"),
      (error) => assertClean(error, MCPSessionExpiredError),
    );
    assert.equal(rpc.transport.sessionId, undefined);
    await rpc.initialize();
    const second = rpc.transport.sessionId;
    assert.ok(second && second !== first);
    const list = await rpc.request("tools/list");
    assert.ok(list.tools.length > 0);
    const reinit = server.requests.filter((r) => r.rpcMethod === "initialize");
    assert.equal(reinit.length, 2);
    assert.equal(reinit[1]!.headers["mcp-session-id"], undefined);
    assert.equal(reinit[1]!.headers["mcp-protocol-version"], undefined);
  });

  it("close() sends DELETE with the session id, aborts the GET stream and calls onclose once", async () => {
    const server = await sdkServer();
    const rpc = await started(server.url);
    await rpc.initialize();
    const sessionId = rpc.transport.sessionId;
    assert.ok(
      await waitFor(
        () => server.requests.some((r) => r.method === "GET"),
        WAIT_MS,
      ),
    );
    const get = server.requests.find((r) => r.method === "GET")!;
    await rpc.transport.close();
    await rpc.transport.close();
    assert.equal(rpc.closes, 1);
    assert.ok(
      await waitFor(() => get.closed, WAIT_MS),
      "GET stream still open",
    );
    const deleted = server.requests.filter((r) => r.method === "DELETE");
    assert.equal(deleted.length, 1);
    assert.equal(deleted[0]!.headers["mcp-session-id"], sessionId);
    assert.equal(deleted[0]!.headers["x-api-key"], SECRET);
    await assert.rejects(
      rpc.notify("notifications/initialized"),
      (error) => assertClean(error, MCPConnectionError),
    );
  });

  it("gives each POST a signal of its own (none piles up listeners), and close() aborts a POST in flight", async () => {
    const server = await sdkServer({
      // An echo of "hang" is never answered.
      intercept: (_req, _res, body) =>
        (body as { params?: { arguments?: { message?: string } } })?.params
          ?.arguments?.message === "hang",
    });
    const recorder = recordingFetch();
    const posts = () =>
      recorder.log.filter((r) => r.method === "POST").map((r) => r.signal!);
    const adapter = adapterFor(server.url, { fetch: recorder.fetch });
    await adapter.connect();
    for (const message of ["a", "b", "c"]) {
      assert.equal(text(await adapter.invoke("echo", { message })), message);
    }
    const signals = posts();
    assert.ok(signals.length >= 5, "initialize, initialized and 3 calls");
    assert.ok(signals.every((signal) => signal !== undefined));
    assert.equal(new Set(signals).size, signals.length);
    assert.ok(signals.every((signal) => !signal.aborted));
    const hung = assert.rejects(
      adapter.invoke("echo", { message: "hang" }),
      MCPNotConnectedError,
    );
    assert.ok(
      await waitFor(
        () =>
          server.requests.some((r) =>
            r.rpcMethod === "tools/call" && !r.closed
          ) &&
          posts().length > signals.length,
        WAIT_MS,
      ),
    );
    const inFlight = posts().at(-1)!;
    await adapter.disconnect();
    assert.equal(inFlight.aborted, true);
    await hung;
    assert.ok(
      await waitFor(
        () => server.requests.every((r) => r.closed || r.method === "DELETE"),
        WAIT_MS,
      ),
      "the hung POST's connection is closed",
    );
  });
});

describe("streamable HTTP against the SDK server in its other modes", () => {
  it("stateful with JSON answers round-trips through the adapter", async () => {
    const server = await sdkServer({ json: true });
    const adapter = adapterFor(server.url);
    await adapter.connect();
    const sum = await adapter.invoke("add", { a: 2, b: 40 });
    assert.deepEqual(sum.data.structuredContent, { sum: 42 });
    const tools = await adapter.discoverTools();
    assert.ok(tools.some((tool) => tool.name === "echo"));
    assertHeaderEverywhere(server.requests);
  });

  it("stateless with JSON answers: no session id, GET 405 tolerated, no DELETE", async () => {
    const server = await sdkServer({ stateless: true, json: true });
    const rpc = await started(server.url);
    await rpc.initialize();
    assert.equal(rpc.transport.sessionId, undefined);
    assert.ok(
      await waitFor(
        () => server.requests.some((r) => r.method === "GET"),
        WAIT_MS,
      ),
    );
    const call = await rpc.request("tools/call", {
      name: "echo",
      arguments: { message: "stateless" },
    });
    assert.equal(call.content[0].text, "stateless");
    await rpc.transport.close();
    assert.deepEqual(rpc.errors, [], "405 on GET is not an error");
    assert.ok(
      server.requests.every((r) => r.headers["mcp-session-id"] === undefined),
    );
    assert.ok(!server.requests.some((r) => r.method === "DELETE"));
    assertHeaderEverywhere(server.requests);
  });

  it("stateless with SSE answers round-trips with progress through the adapter", async () => {
    const server = await sdkServer({ stateless: true });
    const adapter = adapterFor(server.url);
    await adapter.connect();
    await assertProgressCall(adapter, 2);
    assert.equal(text(await adapter.invoke("echo", { message: "sse" })), "sse");
  });
});

/**
 * A `fetch` whose answers carry a plain (not byte) stream body, as a custom
 * `fetch` may: no reader can bring its own buffer to it.
 */
const plainStreamFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.body === null) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, {
    status: response.status,
    headers: response.headers,
  });
};

describe("streamable HTTP SSE answers, however the body arrives", () => {
  const big = "x".repeat(300_000);

  for (
    const [label, fetchFn] of [
      ["the runtime's fetch", undefined],
      ["a fetch whose bodies are plain streams", plainStreamFetch],
    ] as const
  ) {
    it(`reads answers larger than one read, with progress, through ${label}`, async () => {
      const server = await sdkServer();
      const adapter = adapterFor(
        server.url,
        fetchFn === undefined ? {} : { fetch: fetchFn },
      );
      await adapter.connect();
      const echoed = await adapter.invoke("echo", { message: big });
      assert.equal(text(echoed), big);
      await assertProgressCall(adapter, 2);
      assert.equal(text(await adapter.invoke("echo", { message: "é" })), "é");
    });
  }
});

/**
 * A proxy that buffers every answer of `target` and sends it on with a
 * Content-Length, as serverless platforms and buffering proxies do; the GET
 * stream, which never ends, it refuses with 405 (a server may).
 */
async function bufferingProxy(
  target: string,
  cleanups: { push(cleanup: () => unknown): void },
): Promise<{ url: string; lengths: number[] }> {
  const lengths: number[] = [];
  const proxy = await listen(async (req, res, body) => {
    if (req.method === "GET") {
      res.writeHead(405, { allow: "POST, DELETE" }).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host") {
        headers.set(name, value);
      }
    }
    const answer = await fetch(target, {
      method: req.method,
      headers,
      body: req.method === "POST" ? JSON.stringify(body) : undefined,
    });
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const sent: Record<string, string> = {
      "content-length": String(bytes.byteLength),
    };
    for (const name of ["content-type", "mcp-session-id"]) {
      const value = answer.headers.get(name);
      if (value !== null) sent[name] = value;
    }
    if (sent["content-type"]?.startsWith("text/event-stream")) {
      lengths.push(bytes.byteLength);
    }
    res.writeHead(answer.status, sent).end(bytes);
  });
  cleanups.push(() => proxy.close());
  return { url: `${proxy.origin}/mcp`, lengths };
}

describe("streamable HTTP SSE answers buffered whole, with a Content-Length", () => {
  it("delivers progress, then the result, from one buffered body", async () => {
    const server = await sdkServer();
    const proxy = await bufferingProxy(server.url, cleanups);
    const adapter = adapterFor(proxy.url);
    await adapter.connect();
    await assertProgressCall(adapter, 3);
    assert.equal(text(await adapter.invoke("echo", { message: "é" })), "é");
    assert.ok(proxy.lengths.length >= 2, "the answers went through the proxy");
  });
});

describe("streamable HTTP against server-everything", () => {
  let everything: EverythingServer;
  before(async () => {
    everything = await startEverything("streamableHttp");
  });
  after(async () => {
    await everything?.stop();
  });

  it("lists and calls tools, with progress", async () => {
    const adapter = adapterFor(`${everything.origin}/mcp`);
    await adapter.connect();
    const names = (await adapter.discoverTools()).map((tool) => tool.name);
    assert.ok(names.includes("echo") && names.includes("get-sum"));
    assert.match(text(await adapter.invoke("echo", { message: "hi" })), /hi/);
    assert.match(text(await adapter.invoke("get-sum", { a: 1, b: 2 })), /3/);
    const seen: MCPProgress[] = [];
    const long = await adapter.invoke("trigger-long-running-operation", {
      duration: 0.3,
      steps: 3,
    }, { onProgress: (progress) => seen.push(progress) });
    assert.equal(long.success, true, long.error ?? "");
    assert.deepEqual(seen.map((progress) => progress.progress), [1, 2, 3]);
  });

  it('treats its 400 "No valid session ID provided" after a restart as an expired session', async () => {
    const rpc = await started(`${everything.origin}/mcp`);
    await rpc.initialize();
    assert.ok(rpc.transport.sessionId);
    await everything.restart();
    await assert.rejects(rpc.request("tools/list"), (error) => {
      assertClean(error, MCPSessionExpiredError);
      assert.match((error as Error).message, /HTTP 400/);
      return true;
    });
    assert.equal(rpc.transport.sessionId, undefined);
    await rpc.initialize();
    assert.ok(rpc.transport.sessionId);
    const list = await rpc.request("tools/list");
    assert.ok(
      list.tools.some((tool: { name: string }) => tool.name === "echo"),
    );
  });
});
