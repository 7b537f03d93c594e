/**
 * What our protocol layers cost per `tools/call`, without a network or a
 * process in the way: every entry talks to the same in-process transport,
 * which answers on a microtask after a JSON round trip (it encodes the
 * request and the answer, as a real transport's both ends would), and whose
 * `send()` settles once the answer is delivered, as the HTTP transports'
 * do.
 *
 * - baseline: a minimal JSON-RPC client (an id, a map of waiting calls, a
 *   promise per call): the least any client does.
 * - `Session`: our JSON-RPC layer (`src/protocol/session.ts`) with a
 *   deadline and a progress token per call, as `invoke()` sends them.
 * - `MCPToolAdapter.invoke()`: all of it, argument validation against the
 *   tool's cached validator and the result envelope included.
 * - each of the two, speaking MCP 2026-07-28: `Session` with the `_meta`
 *   envelope of `src/protocol/era.ts` set (`setEnvelope(envelope(…))`, as a
 *   modern connection sets it), the adapter with `protocol: "modern"`
 *   against a transport that answers `server/discover` and puts
 *   `resultType` and `serverInfo` into every result, as modern servers do.
 *
 * A third group isolates the envelope: `Session.request` of a `tools/call`
 * to a transport that serializes the request (`JSON.stringify`, as every
 * real transport does) and answers it at once with a result built in
 * advance, without and with the envelope. Its difference is what the
 * envelope costs the client per request, building and serializing. Its
 * title gives the bytes of the `tools/call` request the adapter sends
 * (read off its transport), what the envelope adds to them, and the
 * headers a modern POST adds and drops.
 *
 * One group makes 1,000 calls one after another per iteration, the other
 * 16 rounds of 64 concurrent calls: enough work per iteration that timer
 * resolution and single GC pauses wash out. There is no I/O, but Deno runs
 * the entries one after another, not interleaved, so a change of machine
 * load between entries still shows; compare two runs before reading much
 * into a ratio. They cannot show a transport's cost, nor the runtime's
 * (fetch, pipes): over HTTP and sequential stdio that is most of a call,
 * over stdio with many callers in flight it is a few µs, comparable to
 * these layers.
 *
 * Run it with `deno task bench`, or alone with
 * `deno bench -A bench/protocol_bench.ts`. Deno prints how many times slower
 * each entry is than the baseline; only those ratios mean anything.
 *
 * @module
 */

import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { envelope, modernCapabilities } from "../src/protocol/era.ts";
import { Session } from "../src/protocol/session.ts";
import { MODERN_PROTOCOL_VERSIONS, VERSION } from "../src/version.ts";
import { ECHO_TOOL } from "../tests/_legacy_peer.ts";
import type {
  JSONRPCMessage,
  MCPTransport,
} from "../src/transports/transport.ts";

/** What a 2026-07-28 server puts into every result. */
const COMPLETE = {
  resultType: "complete",
  _meta: {
    "io.modelcontextprotocol/serverInfo": { name: "echo", version: "0" },
  },
};

/**
 * An MCP server in the same process: answers each request on a microtask.
 * `modern`: it speaks 2026-07-28 (answers `server/discover`, and every
 * result carries `resultType` and `serverInfo`).
 */
class EchoTransport implements MCPTransport {
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
  /** The last request sent, serialized. */
  lastSent = "";
  readonly #modern: boolean;

  constructor(modern = false) {
    this.#modern = modern;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || !("method" in message)) return Promise.resolve();
    const sent = JSON.stringify(message);
    this.lastSent = sent;
    const modern = this.#modern;
    return Promise.resolve().then(() => {
      const request = JSON.parse(sent) as {
        id: number;
        method: string;
        params?: { arguments?: { text?: string } };
      };
      this.onmessage!(
        JSON.parse(JSON.stringify({
          jsonrpc: "2.0",
          id: request.id,
          result: modern
            ? modernAnswer(request.method, request.params?.arguments?.text)
            : answer(request.method, request.params?.arguments?.text),
        })),
      );
    });
  }
}

function answer(method: string, text: string | undefined): unknown {
  if (method === "initialize") {
    return {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "echo", version: "0" },
    };
  }
  if (method === "tools/list") return { tools: [ECHO_TOOL] };
  return { content: [{ type: "text", text }] };
}

function modernAnswer(method: string, text: string | undefined): unknown {
  if (method === "server/discover") {
    return {
      supportedVersions: MODERN_PROTOCOL_VERSIONS,
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: "private",
      ...COMPLETE,
    };
  }
  if (method === "tools/list") {
    return { tools: [ECHO_TOOL], ttlMs: 0, cacheScope: "private", ...COMPLETE };
  }
  return { content: [{ type: "text", text }], ...COMPLETE };
}

/**
 * Serializes each request, as a transport does, and answers it at once
 * (synchronously, with a result built in advance): what is left is the
 * client building, serializing and settling one request.
 */
class SinkTransport implements MCPTransport {
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
  /** Bytes serialized so far. */
  chars = 0;
  readonly #result = { content: [{ type: "text", text: "hi" }] };
  readonly #sent = Promise.resolve();

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.chars += JSON.stringify(message).length;
    const id = (message as { id?: number }).id;
    if (id !== undefined) {
      this.onmessage!({ jsonrpc: "2.0", id, result: this.#result });
    }
    return this.#sent;
  }
}

/** The baseline: ids, a map of waiting calls, a promise per call. */
class MinimalClient {
  readonly #transport = new EchoTransport();
  readonly #waiting = new Map<number, (result: unknown) => void>();
  #nextId = 1;

  constructor() {
    this.#transport.onmessage = (message) => {
      const { id, result } = message as { id: number; result: unknown };
      const resolve = this.#waiting.get(id);
      this.#waiting.delete(id);
      resolve?.(result);
    };
  }

  call(name: string, args: Record<string, unknown>): Promise<unknown> {
    const id = this.#nextId++;
    const result = new Promise((resolve) => this.#waiting.set(id, resolve));
    this.#transport.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    });
    return result;
  }
}

/** The envelope a modern connection of the adapter sets (no handlers, no log level). */
const MODERN_ENVELOPE = envelope(
  MODERN_PROTOCOL_VERSIONS[0]!,
  modernCapabilities(undefined),
  { name: "@cleveragents/mcp-adapter", version: VERSION },
  undefined,
);

const minimal = new MinimalClient();
const session = new Session(new EchoTransport(), "echo");
const modernSession = new Session(new EchoTransport(true), "echo");
modernSession.setEnvelope(MODERN_ENVELOPE);

async function connected(modern: boolean) {
  const transport = new EchoTransport(modern);
  const adapter = new MCPToolAdapter(
    {
      name: "echo",
      transport: "stdio",
      command: "unused",
      protocol: modern ? "modern" : "legacy",
    },
    { transport },
  );
  await adapter.connect();
  await adapter.discoverTools();
  if (adapter.serverInfo?.era !== (modern ? "modern" : "legacy")) {
    throw new Error(`protocol_bench: connected as ${adapter.serverInfo?.era}`);
  }
  return { adapter, transport };
}
const legacyPeer = await connected(false);
const modernPeer = await connected(true);
const adapter = legacyPeer.adapter;
const modernAdapter = modernPeer.adapter;

// What the envelope adds to the bytes of one request: the adapter's own
// tools/call, as its transport serializes it, in each era; and the headers
// a modern POST adds (Mcp-Method, Mcp-Name) and drops (Mcp-Session-Id, a
// UUID where the 2025 server gave one). Named in the envelope group's title.
const utf8 = (text: string) => new TextEncoder().encode(text).length;
await adapter.invoke("echo", { text: "hi" });
await modernAdapter.invoke("echo", { text: "hi" });
const legacyBytes = utf8(legacyPeer.transport.lastSent);
const envelopeBytes = utf8(modernPeer.transport.lastSent) - legacyBytes;
const header = (name: string, value: string) => utf8(`${name}: ${value}\r\n`);
const headerBytes = header("mcp-method", "tools/call") +
  header("mcp-name", "echo");
const sessionIdBytes = header("mcp-session-id", crypto.randomUUID());

const clients: [string, () => Promise<unknown>][] = [
  [
    "baseline: minimal JSON-RPC client",
    () => minimal.call("echo", { text: "hi" }),
  ],
  ["Session.request", () =>
    session.request("tools/call", {
      name: "echo",
      arguments: { text: "hi" },
    }, { timeoutMs: 60_000, trackProgress: true })],
  ["MCPToolAdapter.invoke", async () => {
    const result = await adapter.invoke("echo", { text: "hi" });
    if (!result.success) throw new Error(result.error ?? "invoke failed");
  }],
  [
    "Session.request, 2026-07-28 envelope",
    () =>
      modernSession.request("tools/call", {
        name: "echo",
        arguments: { text: "hi" },
      }, { timeoutMs: 60_000, trackProgress: true }),
  ],
  ["MCPToolAdapter.invoke, 2026-07-28", async () => {
    const result = await modernAdapter.invoke("echo", { text: "hi" });
    if (!result.success) throw new Error(result.error ?? "invoke failed");
  }],
];

const SEQUENTIAL_CALLS = 1_000;
const CONCURRENT_ROUNDS = 16;
const CONCURRENCY = 64;

for (const [index, [name, call]] of clients.entries()) {
  Deno.bench({
    name,
    group: `${SEQUENTIAL_CALLS} calls, one at a time`,
    baseline: index === 0,
    fn: async () => {
      for (let i = 0; i < SEQUENTIAL_CALLS; i++) await call();
    },
  });
  Deno.bench({
    name,
    group: `${CONCURRENT_ROUNDS} rounds of ${CONCURRENCY} concurrent calls`,
    baseline: index === 0,
    fn: async () => {
      for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
        const calls: Promise<unknown>[] = [];
        for (let i = 0; i < CONCURRENCY; i++) calls.push(call());
        await Promise.all(calls);
      }
    },
  });
}

// The envelope alone: one Session per era over a transport that serializes
// and answers at once. Each iteration builds, sends and settles 1,000
// requests, as `invoke()` sends them (a deadline and a progress token).
const ENVELOPE_CALLS = 1_000;
const sinks = [false, true].map((modern) => {
  const sink = new SinkTransport();
  const sinkSession = new Session(sink, "sink");
  if (modern) sinkSession.setEnvelope(MODERN_ENVELOPE);
  return { modern, sink, session: sinkSession };
});
for (const { modern, session: sinkSession } of sinks) {
  Deno.bench({
    name: modern
      ? "Session.request, 2026-07-28 envelope"
      : "Session.request, 2025 (no envelope)",
    group:
      `${ENVELOPE_CALLS} tools/call requests built, serialized and settled ` +
      `(the adapter's: ${legacyBytes} B; the envelope adds ${envelopeBytes} B; ` +
      `over HTTP +${headerBytes} B Mcp-Method/Mcp-Name, -${sessionIdBytes} B Mcp-Session-Id)`,
    baseline: !modern,
    fn: async () => {
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < ENVELOPE_CALLS; i++) {
        calls.push(sinkSession.request("tools/call", {
          name: "echo",
          arguments: { text: "hi" },
        }, { timeoutMs: 60_000, trackProgress: true }));
      }
      await Promise.all(calls);
    },
  });
}
