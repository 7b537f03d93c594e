/**
 * Reconnecting SSE streams against servers that hang up at once: a
 * server's `retry:` is held between a floor (250 ms) and `maxDelayMs`, an
 * event without a message does not restart the count of attempts, and
 * nothing is sent after `disconnect()`. The verdicts count the requests a
 * scripted loopback server saw, when the transport says it gave up (or
 * when the server saw a flood); waits are bounds, never the verdict.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  MCPToolAdapter,
  StreamableHTTPTransport,
  type StreamableHTTPTransportOptions,
} from "@cleveragents/mcp-adapter";
import { listen, type SeenRequest, within } from "../_remote.ts";
import { poll, releaseAfterEach } from "../_helpers.ts";

const cleanups = releaseAfterEach();
/** Bounds every wait; the verdicts come sooner. */
const WAIT_MS = 15_000;
/** The floor under a server's `retry:`, less a little for timer slack. */
const FLOOR_MS = 240;
/** So many reconnections mean the budget or the floor failed. */
const FLOOD = 10;

/** How the scripted server answers a GET (the `n`th, from 1) and a `tools/call` POST. */
interface Script {
  get?: (req: IncomingMessage, res: ServerResponse, n: number) => void;
  call?: (res: ServerResponse, id: unknown, n: number) => void;
}

/**
 * A minimal 2025-era streamable-HTTP server: a session, one tool, JSON
 * answers, and `script` for GETs and calls (a GET without a script gets
 * 405). `seen(filter, n)` resolves once `n` requests matching `filter`
 * arrived.
 */
async function scriptedServer(script: Script) {
  const waiters: { ready: () => boolean; resolve: () => void }[] = [];
  let gets = 0;
  let calls = 0;
  const server = await listen((req, res, body) => {
    try {
      const message = body as { method?: string; id?: unknown } | undefined;
      if (req.method === "GET") {
        if (script.get === undefined) return void res.writeHead(405).end();
        return script.get(req, res, ++gets);
      }
      if (req.method === "DELETE") return void res.writeHead(200).end();
      const { method, id } = message ?? {};
      if (method === "tools/call" && script.call !== undefined) {
        return script.call(res, id, ++calls);
      }
      if (id === undefined) return void res.writeHead(202).end();
      const result = method === "initialize"
        ? {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "hangs-up", version: "1.0.0" },
        }
        : method === "tools/list"
        ? { tools: [{ name: "add", inputSchema: { type: "object" } }] }
        : { content: [{ type: "text", text: "3" }] };
      res.writeHead(200, {
        "content-type": "application/json",
        "mcp-session-id": "session-0123456789",
      }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));
    } finally {
      for (const waiter of waiters.splice(0)) {
        if (waiter.ready()) waiter.resolve();
        else waiters.push(waiter);
      }
    }
  });
  cleanups.push(() => server.close());
  const matching = (filter: (r: SeenRequest) => boolean) =>
    server.requests.filter(filter);
  return {
    url: `${server.origin}/mcp`,
    requests: server.requests,
    matching,
    /** Resolves once `n` requests matching `filter` arrived. */
    seen(filter: (r: SeenRequest) => boolean, n: number): Promise<void> {
      return new Promise((resolve) => {
        const ready = () => matching(filter).length >= n;
        if (ready()) resolve();
        else waiters.push({ ready, resolve });
      });
    },
  };
}

/** A GET: of the session's stream (reopened with `Last-Event-ID` once it sent an id), or a resumption. */
const isGet = (r: SeenRequest) => r.method === "GET";
/** A GET resuming a call's stream. */
const isResume = (r: SeenRequest) =>
  r.method === "GET" && r.headers["last-event-id"] !== undefined;

/** An SSE response: `text`, then the end of the body. */
function sseOnce(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "text/event-stream" }).end(text);
}

/** An adapter to `url` whose `onError` messages land in `errors`. */
function adapterFor(
  url: string,
  errors: Error[],
  reconnection?: StreamableHTTPTransportOptions["reconnection"],
): MCPToolAdapter {
  const adapter = new MCPToolAdapter({
    name: "hangs-up",
    transport: "streamable-http",
    url,
    protocol: "legacy",
  }, {
    onError: (error) => errors.push(error),
    ...(reconnection === undefined ? {} : {
      transport: () => new StreamableHTTPTransport({ url, reconnection }),
    }),
  });
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

/** Resolves with the first error in `errors` matching `pattern`, or `undefined` after `WAIT_MS`. */
function reported(
  errors: Error[],
  pattern: RegExp,
): Promise<Error | undefined> {
  return poll(
    () => errors.find((error) => pattern.test(error.message)),
    WAIT_MS,
    5,
  );
}

/** Asserts the requests arrived at least `FLOOR_MS` apart. */
function assertSpaced(requests: SeenRequest[]): void {
  for (let i = 1; i < requests.length; i++) {
    const gap = requests[i]!.at - requests[i - 1]!.at;
    assert.ok(
      gap >= FLOOR_MS,
      `request ${i + 1} came ${gap.toFixed(0)} ms after the one before`,
    );
  }
}

describe("streamable HTTP reconnection: floor, cap and budget", () => {
  it("an idle session's GET stream that answers retry: 0 and ends is reopened maxRetries times, at least 250 ms apart, then given up", async () => {
    const server = await scriptedServer({
      get: (_req, res, n) => sseOnce(res, `id: g${n}\nretry: 0\ndata: \n\n`),
    });
    const errors: Error[] = [];
    const adapter = adapterFor(server.url, errors);
    await adapter.connect();
    const verdict = await within(
      Promise.race([
        reported(errors, /could not be reopened/).then((found) =>
          found ? "gave up" : "not reported"
        ),
        server.seen(isGet, FLOOD).then(() => "flooded"),
      ]),
      WAIT_MS,
      "the GET stream's reconnection",
    );
    const gets = server.matching(isGet);
    assert.equal(verdict, "gave up", `${gets.length} GETs`);
    // The stream, then the default maxRetries (2) reopenings.
    assert.equal(gets.length, 3);
    assertSpaced(gets);
    assert.equal((await adapter.invoke("add", {})).success, true);
  });

  it("a call's stream that sends one event with an id and retry: 0, then ends on every resume, is resumed maxRetries times, at least 250 ms apart, then lost", async () => {
    const server = await scriptedServer({
      call: (res, id, n) => {
        if (n > 1) {
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({ jsonrpc: "2.0", id, result: { content: [] } }),
          );
        } else sseOnce(res, `id: c0\nretry: 0\ndata: \n\n`);
      },
      get: (req, res, n) => {
        if (req.headers["last-event-id"] === undefined) {
          return void res.writeHead(405).end();
        }
        sseOnce(res, `id: c${n}\nretry: 0\ndata: \n\n`);
      },
    });
    const adapter = adapterFor(server.url, []);
    await adapter.connect();
    const call = adapter.invoke("add", {}, { timeoutMs: WAIT_MS });
    const verdict = await within(
      Promise.race([
        call.then(() => "settled"),
        server.seen(isResume, FLOOD).then(() => "flooded"),
      ]),
      WAIT_MS + 1000,
      "the call",
    );
    const resumes = server.matching(isResume);
    assert.equal(verdict, "settled", `${resumes.length} resumptions`);
    const result = await call;
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "connection");
    assert.match(result.error!, /2 attempt\(s\) to resume it failed/);
    assert.match(result.error!, /may or may not have run/);
    assert.equal(resumes.length, 2);
    assertSpaced(resumes);
    assert.equal((await adapter.invoke("add", {})).success, true);
  });

  it("a server's retry: longer than maxDelayMs is cut to maxDelayMs", async () => {
    let callId: unknown;
    const server = await scriptedServer({
      call: (res, id) => {
        callId = id;
        sseOnce(res, `id: c0\nretry: 3600000\ndata: \n\n`);
      },
      get: (req, res) => {
        if (req.headers["last-event-id"] === undefined) {
          return void res.writeHead(405).end();
        }
        const answer = {
          jsonrpc: "2.0",
          id: callId,
          result: { content: [{ type: "text", text: "resumed" }] },
        };
        sseOnce(res, `id: c1\ndata: ${JSON.stringify(answer)}\n\n`);
      },
    });
    const adapter = adapterFor(server.url, [], { maxDelayMs: 200 });
    await adapter.connect();
    // Without the cap the resumption would wait an hour: the call times out.
    const result = await within(
      adapter.invoke("add", {}, { timeoutMs: 5000 }),
      WAIT_MS,
      "the call",
    );
    assert.equal(result.success, true, result.error ?? "");
    assert.equal(server.matching(isResume).length, 1);
  });

  it("nothing is sent after disconnect(), not even a reconnection that was due", async () => {
    const server = await scriptedServer({
      get: (_req, res, n) => sseOnce(res, `id: g${n}\nretry: 0\ndata: \n\n`),
    });
    const adapter = adapterFor(server.url, []);
    await adapter.connect();
    await within(server.seen(isGet, 2), WAIT_MS, "the second GET");
    await adapter.disconnect();
    const count = server.requests.length;
    // The next reopening was due 1.5 s after the second GET ended.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.deepEqual(
      server.requests.slice(count).map((r) => r.method),
      [],
    );
  });

  it("a GET stream that delivers a message before it ends starts a new count each time", async () => {
    const server = await scriptedServer({
      get: (_req, res, n) =>
        sseOnce(
          res,
          `id: g${n}\ndata: ${
            JSON.stringify({
              jsonrpc: "2.0",
              method: "notifications/message",
              params: { level: "info", data: n },
            })
          }\n\n`,
        ),
    });
    const errors: Error[] = [];
    const adapter = adapterFor(server.url, errors, {
      initialDelayMs: 20,
      maxRetries: 1,
    });
    await adapter.connect();
    await within(server.seen(isGet, 5), WAIT_MS, "five GETs");
    assert.deepEqual(errors.map((error) => error.message), []);
  });

  it("a GET stream that stays open past maxDelayMs (and 250 ms) without a message starts a new count each time", async () => {
    const server = await scriptedServer({
      get: (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": keep-alive\n\n");
        const timer = setTimeout(() => res.end(), 1100);
        res.on("close", () => clearTimeout(timer));
      },
    });
    const errors: Error[] = [];
    const adapter = adapterFor(server.url, errors, {
      initialDelayMs: 20,
      maxDelayMs: 50,
      maxRetries: 1,
    });
    await adapter.connect();
    await within(server.seen(isGet, 4), WAIT_MS, "four GETs");
    assert.deepEqual(errors.map((error) => error.message), []);
  });
});
