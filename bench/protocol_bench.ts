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
import { Session } from "../src/protocol/session.ts";
import type {
  JSONRPCMessage,
  MCPTransport,
} from "../src/transports/transport.ts";

const ECHO_TOOL = {
  name: "echo",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
};

/** An MCP server in the same process: answers each request on a microtask. */
class EchoTransport implements MCPTransport {
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;

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
          result: answer(request.method, request.params?.arguments?.text),
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

const minimal = new MinimalClient();
const session = new Session(new EchoTransport(), "echo");
const adapter = new MCPToolAdapter(
  { name: "echo", transport: "stdio", command: "unused" },
  { transport: new EchoTransport() },
);
await adapter.connect();
await adapter.discoverTools();

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
