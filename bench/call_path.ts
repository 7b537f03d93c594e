/**
 * What a `tools/call` costs our client in its own JavaScript, with no pipe
 * and no second process: 64 calls in flight against a scripted 2025-era
 * peer in this process, beside the raw client of the stdio rows without its
 * pipe (a ring of slots by id, `JSON.parse` and `resolve`, as
 * `_raw_stdio.ts` has them). The peer answers every request of a turn with
 * one newline-delimited JSON text on the next microtask, split and parsed
 * line by line as the stdio transport does; both clients' requests are
 * serialized, ours by the peer as the stdio transport would. Ours is
 * `MCPToolAdapter.invoke()` with everything on: the deadline, the progress
 * token, argument validation, the envelope.
 *
 * The pipe benchmarks (`client_bench.ts`, `stdio_layers.ts`) include the
 * runtime's I/O and how the two processes are scheduled, and their ratios
 * swing by ±0.1 from run to run: a change of a few per cent to the client's
 * bookkeeping cannot be told from noise there. Here no second process
 * runs and nothing waits on I/O: over ten runs on the shared 2-core VM the
 * median ratio of a run stayed within 1.32–1.43. What it cannot show is
 * what the pipe costs, or how a change moves the two processes' timing
 * (see `docs/performance.md`).
 *
 * After a warm-up the clients take turns for `--rounds=N` rounds (default
 * 7) of `--calls=N` calls each (default 200,000). The table gives each
 * client's median CPU per call (user + system, all threads: the collector's
 * helpers too), its least (the round the machine's other load disturbed
 * least: with nothing to wait on, load only ever adds, so over many rounds
 * the least is the steadiest figure) and the median of the per-round ratios
 * to raw. Run it with
 * `deno run -A bench/call_path.ts` (Deno or, transpiled, Node).
 *
 * `--base=DIR` adds the adapter of the checkout in DIR (its `mod.ts`, e.g.
 * a `git worktree` of the commit before a change) as a third client in the
 * same rounds, and the median of the per-round ratios of ours to it, and
 * the ratio of their least (Deno only): over the same code the median
 * ratio stayed within 0.97–1.03, so a change of a few per cent shows here
 * when the pipe benchmarks cannot tell it from noise.
 *
 * @module
 */

import process from "node:process";
import { pathToFileURL } from "node:url";
import {
  type JSONRPCMessage,
  MCPToolAdapter,
  type MCPTransport,
} from "@cleveragents/mcp-adapter";
import { legacyAnswer } from "../tests/_legacy_peer.ts";
import { type Call, countOption, takeTurns } from "./_fan_out.ts";
import { median } from "./_stats.ts";

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);

/** The answer to `tools/call echo {text}`, as `echo_server.mjs` writes it. */
function echoAnswer(id: number, text: string): string {
  return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":${
    JSON.stringify(text)
  }}]}}`;
}

/**
 * The lines of one turn, answered together on the next microtask: joined,
 * split and parsed, each parsed message handed to `deliver`. `answer()`
 * returns one promise per turn, settled when the turn is answered, as the
 * stdio transport returns one per write.
 */
class Turn {
  #lines: string[] = [];
  #written: Promise<void> = Promise.resolve();
  readonly #deliver: (message: Record<string, unknown>) => void;

  constructor(deliver: (message: Record<string, unknown>) => void) {
    this.#deliver = deliver;
  }

  answer(line: string): Promise<void> {
    if (this.#lines.push(line) === 1) {
      this.#written = new Promise((resolve) =>
        queueMicrotask(() => {
          this.#flush();
          resolve();
        })
      );
    }
    return this.#written;
  }

  #flush(): void {
    const text = this.#lines.join("\n") + "\n";
    this.#lines = [];
    let start = 0;
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      this.#deliver(JSON.parse(text.slice(start, newline)));
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
  }
}

/** A 2025-era server with one tool, `echo`, as the adapter's transport. */
class Peer implements MCPTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly #turn = new Turn((message) =>
    this.onmessage?.(message as unknown as JSONRPCMessage)
  );

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // What the stdio transport does with every message.
    JSON.stringify(message);
    const { id, method, params } = message as {
      id?: number;
      method?: string;
      params?: { arguments?: { text?: string } };
    };
    if (id === undefined) return Promise.resolve();
    if (method === "tools/call") {
      return this.#turn.answer(echoAnswer(id, params?.arguments?.text ?? ""));
    }
    return this.#turn.answer(
      JSON.stringify({ jsonrpc: "2.0", id, ...legacyAnswer(method ?? "") }),
    );
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

interface Pending {
  id: number;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

const RING = 4096;

/** `_raw_stdio.ts`'s bookkeeping, its pipe replaced by the same scripted turn. */
class RawClient {
  readonly #ring: (Pending | undefined)[] = new Array(RING).fill(undefined);
  #nextId = 1;
  readonly #turn = new Turn((message) => this.#receive(message));

  request(
    method: string,
    params: { name: string; arguments: { text: string } },
  ): Promise<unknown> {
    const id = this.#nextId++;
    const response = new Promise((resolve, reject) => {
      this.#ring[id % RING] = { id, resolve, reject };
    });
    JSON.stringify({ jsonrpc: "2.0", id, method, params });
    this.#turn.answer(echoAnswer(id, params.arguments.text));
    return response;
  }

  #receive(message: Record<string, unknown>): void {
    const id = message.id as number;
    const pending = this.#ring[id % RING];
    if (pending?.id !== id) return;
    this.#ring[id % RING] = undefined;
    if (message.result !== undefined) pending.resolve(message.result);
    else pending.reject(new Error(`raw: ${JSON.stringify(message.error)}`));
  }
}

/** A connected adapter over its own peer: this checkout's, or `base`'s. */
async function connected(base?: string): Promise<MCPToolAdapter> {
  const Adapter: typeof MCPToolAdapter = base === undefined
    ? MCPToolAdapter
    : (await import(pathToFileURL(`${base}/mod.ts`).href) as {
      MCPToolAdapter: typeof MCPToolAdapter;
    }).MCPToolAdapter;
  const adapter = new Adapter(
    { name: "peer", transport: "stdio", command: "unused" },
    { transport: new Peer() },
  );
  await adapter.connect();
  await adapter.discoverTools();
  return adapter;
}

async function main(): Promise<void> {
  const rounds = countOption("call_path", "rounds", 7);
  const calls = countOption("call_path", "calls", 200_000);
  const base = process.argv.find((arg) => arg.startsWith("--base="))?.slice(7);
  const raw = new RawClient();
  const adapters = [await connected()];
  try {
    if (base !== undefined) adapters.push(await connected(base));
    const clients: [string, Call][] = [
      ["raw", (i) =>
        raw.request("tools/call", {
          name: "echo",
          arguments: { text: `m${i}` },
        })],
      ...adapters.map((adapter, index): [string, Call] => [
        index === 0 ? "ours" : "base",
        (i) => adapter.invoke("echo", { text: `m${i}` }),
      ]),
    ];
    const costs = await takeTurns(
      clients.map(([, call]) => call),
      rounds,
      calls,
    );
    const ratios = (a: number, b: number) =>
      costs[a]!.map((cost, r) => cost / costs[b]![r]!);
    say(
      `64 calls in flight, no pipe, ${rounds} rounds x ${calls} calls, ${
        "Deno" in globalThis ? "Deno" : "Node"
      } ${process.versions.deno ?? process.versions.node}`,
    );
    say("client  CPU µs/call  least  x raw  rounds");
    clients.forEach(([name], index) => {
      const toRaw = ratios(index, 0);
      const spread = index === 0
        ? ""
        : `${Math.min(...toRaw).toFixed(2)}-${Math.max(...toRaw).toFixed(2)}`;
      say(
        `${name.padEnd(6)}${median(costs[index]!).toFixed(3).padStart(13)}  ${
          Math.min(...costs[index]!).toFixed(3)
        }  ${
          (index === 0 ? 1 : median(toRaw)).toFixed(2).padStart(5)
        }  ${spread}`,
      );
    });
    if (base !== undefined) {
      const toBase = ratios(1, 2);
      say(
        `ours x base: ${median(toBase).toFixed(3)} (rounds ${
          Math.min(...toBase).toFixed(3)
        }-${Math.max(...toBase).toFixed(3)}; least ${
          (Math.min(...costs[1]!) / Math.min(...costs[2]!)).toFixed(3)
        }), base: ${base}`,
      );
    }
  } finally {
    for (const adapter of adapters) await adapter.disconnect();
  }
}

if (import.meta.main) await main();
