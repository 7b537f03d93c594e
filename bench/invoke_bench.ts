/**
 * With a real SDK server: throughput of `tools/call` and heap growth of
 * `tools/list`, our {@linkcode MCPToolAdapter} beside the official SDK
 * `Client` and a raw pipe, all talking to the same test server
 * (`tests/fixtures/sdk_server.ts`, the SDK's `McpServer` on Deno). That
 * server costs more per message than any of the clients, so over stdio the
 * table shows how the clients fare with such a server, not what they cost:
 * `client_bench.ts` measures that, against a minimal echo server.
 *
 * Run it with `deno task bench`, or alone with
 * `deno run -A --v8-flags=--expose-gc bench/invoke_bench.ts`.
 *
 * **Throughput.** Each client calls the tool `add` {@linkcode CALLS} times
 * from {@linkcode CONCURRENCY} concurrent callers, after a warm-up. The
 * clients take turns for {@linkcode ROUNDS} rounds; within a round each makes
 * its calls in {@linkcode SLICES} slices, the turns going A B C …, then … C B
 * A, and so on (the first one rotating from round to round), so a change of
 * machine load during a round hits every client alike. Contenders:
 *
 * - stdio, each with its own server process: ours; the SDK `Client` with
 *   `StdioClientTransport` (after one `listTools()`, as an agent would, so
 *   it validates `structuredContent` against the cached output schema); and
 *   "raw", a minimal newline-delimited JSON-RPC client on a `Deno.Command`
 *   pipe with no validation, deadlines or progress tokens: the ceiling.
 * - in-memory, server and client in this process over the SDK's
 *   `InMemoryTransport`: ours and the SDK `Client`.
 *
 * The table shows the median calls/s over the rounds, and the ratio to the
 * reference (raw for stdio, the SDK for in-memory) as the median of the
 * per-round ratios: each ratio compares two runs of the same round. Only
 * ratios mean anything; absolute figures depend on the machine and its load.
 * A stdio ratio near 1 means the server process, not the client, is the
 * bottleneck.
 *
 * "CPU µs/call" is this process's CPU time (user + system, all threads) per
 * call, median over rounds, with its ratio computed the same way. Over stdio
 * it is the client's own cost, which the other processes on the machine
 * disturb far less than the wall clock; in-memory it includes the server.
 *
 * **Heap growth.** {@linkcode LIST_CALLS} sequential `tools/list` calls over
 * stdio, `discoverTools()` against the SDK's `listTools()` (which compiles
 * the output schemas with Ajv on every call), taking turns like the rounds
 * above. `heapUsed` is read before and after each turn, each time after a
 * forced GC when `--v8-flags=--expose-gc` is given; without it the figures
 * include uncollected garbage and say so. Growth is what stays reachable:
 * a cache that grows with every call shows here, garbage does not. The time
 * column is sequential round trips, so it mostly measures the server.
 *
 * Every server process is stopped at the end, also on error or Ctrl-C.
 *
 * @module
 */

import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { connectedAdapter, createTestServer } from "../tests/_in_memory.ts";
import { SERVER_ENV as BASE_ENV } from "./_echo_server.ts";
import { RawStdioClient } from "./_raw_stdio.ts";
import { median } from "./_stats.ts";

/** Calls per client per round. */
const CALLS = 5_000;
/** Rounds; the table reports medians over them. */
const ROUNDS = 5;
/** Turns per round; each contender makes `CALLS / SLICES` calls per turn. */
const SLICES = 4;
/** Callers in flight at once. */
const CONCURRENCY = 64;
/** Calls per client before the first round (JIT, caches). */
const WARMUP_CALLS = 1_000;
/** Sequential `tools/list` calls per client for the heap figure, in `SLICES * 2` turns. */
const LIST_CALLS = 20_000;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER = fileURLToPath(
  new URL("../tests/fixtures/sdk_server.ts", import.meta.url),
);
const SERVER_ARGS = ["run", "-A", SERVER];
/** Our transport and the SDK's pass only an allow-listed environment; keep a custom cache. */
const SERVER_ENV: Record<string, string> = {};
const denoDir = Deno.env.get("DENO_DIR");
if (denoDir !== undefined) SERVER_ENV.DENO_DIR = denoDir;

type Kind = "stdio" | "in-memory";

/** One client under test. */
interface Contender {
  kind: Kind;
  client: string;
  /** Calls `add` with `{ a: i, b: 1 }` and checks the sum. */
  call(i: number): Promise<void>;
}

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);

/** Stops everything started so far, newest first; each step at most once. */
const cleanups: (() => Promise<unknown>)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    await cleanups.pop()!().catch((error) => say(`cleanup: ${error}`));
  }
}

function checkSum(structured: unknown, expected: number, who: string): void {
  const sum = (structured as { sum?: unknown } | undefined)?.sum;
  if (sum !== expected) {
    throw new Error(`${who}: add returned ${sum}, expected ${expected}`);
  }
}

async function oursOverStdio(): Promise<MCPToolAdapter> {
  const adapter = new MCPToolAdapter({
    name: "bench",
    transport: "stdio",
    command: Deno.execPath(),
    args: SERVER_ARGS,
    env: SERVER_ENV,
    cwd: ROOT,
  });
  cleanups.push(() => adapter.disconnect());
  await adapter.connect();
  return adapter;
}

async function sdkOverStdio(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: SERVER_ARGS,
    env: SERVER_ENV,
    cwd: ROOT,
  });
  cleanups.push(() => transport.close());
  const client = new Client({ name: "bench-sdk", version: "0" });
  await client.connect(transport);
  return client;
}

async function rawOverStdio(): Promise<RawStdioClient> {
  const raw = await RawStdioClient.start({
    command: Deno.execPath(),
    args: SERVER_ARGS,
    env: { ...BASE_ENV, ...SERVER_ENV },
    cwd: ROOT,
  });
  cleanups.push(() => raw.close());
  await raw.initialize();
  return raw;
}

async function oursInMemory(): Promise<MCPToolAdapter> {
  const server = createTestServer();
  cleanups.push(() => server.close());
  const adapter = await connectedAdapter(server, "bench");
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

async function sdkInMemory(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createTestServer();
  await server.connect(serverSide);
  cleanups.push(() => server.close());
  const client = new Client({ name: "bench-sdk", version: "0" });
  cleanups.push(() => client.close());
  await client.connect(clientSide);
  return client;
}

function oursCalling(kind: Kind, adapter: MCPToolAdapter): Contender {
  return {
    kind,
    client: "ours (MCPToolAdapter)",
    async call(i) {
      const result = await adapter.invoke("add", { a: i, b: 1 });
      if (!result.success) throw new Error(`ours: ${result.error}`);
      checkSum(result.data.structuredContent, i + 1, "ours");
    },
  };
}

async function sdkCalling(kind: Kind, client: Client): Promise<Contender> {
  await client.listTools(); // caches the output validators, as an agent would
  return {
    kind,
    client: "SDK Client",
    async call(i) {
      const result = await client.callTool({
        name: "add",
        arguments: { a: i, b: 1 },
      });
      if (result.isError) throw new Error(`sdk: ${JSON.stringify(result)}`);
      checkSum(result.structuredContent, i + 1, "sdk");
    },
  };
}

function rawCalling(raw: RawStdioClient): Contender {
  return {
    kind: "stdio",
    client: "raw pipe",
    async call(i) {
      const result = await raw.request("tools/call", {
        name: "add",
        arguments: { a: i, b: 1 },
      });
      checkSum(result.structuredContent, i + 1, "raw");
    },
  };
}

/** The time and the CPU time of this process taken by one slice of calls. */
interface Cost {
  wallMs: number;
  cpuMs: number;
}

/** Makes `total` calls from `CONCURRENCY` callers. */
async function drive(contender: Contender, total: number): Promise<Cost> {
  let next = 0;
  const caller = async () => {
    while (next < total) await contender.call(next++);
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, caller));
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (user + system) / 1000 };
}

/**
 * One round: every contender makes `CALLS` calls in `SLICES` slices, taking
 * turns in the order A B C …, then … C B A, and so on, so a change of
 * machine load during the round hits all of them alike. `first` rotates who
 * goes first. Returns each contender's total cost, by index.
 */
async function round(contenders: Contender[], first: number): Promise<Cost[]> {
  const order = contenders.map((_, k) => (k + first) % contenders.length);
  const costs = contenders.map(() => ({ wallMs: 0, cpuMs: 0 }));
  for (let slice = 0; slice < SLICES; slice++) {
    for (const index of slice % 2 === 0 ? order : order.toReversed()) {
      const { wallMs, cpuMs } = await drive(
        contenders[index]!,
        CALLS / SLICES,
      );
      costs[index]!.wallMs += wallMs;
      costs[index]!.cpuMs += cpuMs;
    }
  }
  return costs;
}

/** Forces a full GC when `--expose-gc` is on; returns whether it could. */
function collect(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

interface HeapGrowth {
  bytes: number;
  ms: number;
}

/**
 * Heap growth and time of `LIST_CALLS` sequential calls of each lister, made
 * in `SLICES * 2` turns taken in the order A B, B A, … Each turn is measured
 * between two forced GCs, so what one lister retains is never counted
 * against the other.
 */
async function heapGrowth(
  listers: (() => Promise<unknown>)[],
): Promise<HeapGrowth[]> {
  const turns = SLICES * 2;
  const growth = listers.map(() => ({ bytes: 0, ms: 0 }));
  for (let turn = 0; turn < turns; turn++) {
    const order = listers.map((_, k) => k);
    for (const index of turn % 2 === 0 ? order : order.toReversed()) {
      collect();
      const before = Deno.memoryUsage().heapUsed;
      const started = performance.now();
      for (let i = 0; i < LIST_CALLS / turns; i++) await listers[index]!();
      growth[index]!.ms += performance.now() - started;
      collect();
      growth[index]!.bytes += Deno.memoryUsage().heapUsed - before;
    }
  }
  return growth;
}

function table(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length))
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) =>
      column === 0 || column === 1
        ? cell.padEnd(widths[column]!)
        : cell.padStart(widths[column]!)
    ).join("  ");
  say(line(header));
  say(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) say(line(row));
}

const formatRate = (value: number) => Math.round(value).toLocaleString("en-US");
const formatMiB = (bytes: number) =>
  `${bytes >= 0 ? "+" : ""}${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function main(): Promise<void> {
  say();
  say(
    "With a real SDK server (tests/fixtures/sdk_server.ts: McpServer on Deno, the bottleneck over stdio)",
  );
  say(
    `tools/call "add": ${CALLS} calls x ${ROUNDS} rounds, ${CONCURRENCY} concurrent callers, ` +
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
  );
  const ours = await oursOverStdio();
  const sdk = await sdkOverStdio();
  const raw = await rawOverStdio();
  const contenders: Contender[] = [
    oursCalling("stdio", ours),
    await sdkCalling("stdio", sdk),
    rawCalling(raw),
    oursCalling("in-memory", await oursInMemory()),
    await sdkCalling("in-memory", await sdkInMemory()),
  ];
  const reference = (kind: Kind) =>
    contenders.findIndex((contender) =>
      contender.kind === kind &&
      contender.client === (kind === "stdio" ? "raw pipe" : "SDK Client")
    );

  for (const contender of contenders) await drive(contender, WARMUP_CALLS);
  const costs: Cost[][] = contenders.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    (await round(contenders, r)).forEach((cost, index) =>
      costs[index]!.push(cost)
    );
  }
  const rate = (cost: Cost) => CALLS / (cost.wallMs / 1000);
  const cpuPerCall = (cost: Cost) => (cost.cpuMs * 1000) / CALLS;

  say();
  table(
    [
      "transport",
      "client",
      "median calls/s",
      "rounds (calls/s)",
      "ratio",
      "CPU µs/call",
      "CPU ratio",
    ],
    contenders.map((contender, index) => {
      const mine = costs[index]!;
      const theirs = costs[reference(contender.kind)]!;
      const against = contender.kind === "stdio" ? "raw" : "SDK";
      const rateRatio = mine.map((cost, r) => rate(cost) / rate(theirs[r]!));
      const cpuRatio = mine.map((cost, r) => cost.cpuMs / theirs[r]!.cpuMs);
      return [
        contender.kind,
        contender.client,
        formatRate(median(mine.map(rate))),
        mine.map((cost) => formatRate(rate(cost))).join(" / "),
        `${median(rateRatio).toFixed(2)}x ${against}`,
        median(mine.map(cpuPerCall)).toFixed(1),
        `${median(cpuRatio).toFixed(2)}x ${against}`,
      ];
    }),
  );

  const gcNote = collect()
    ? "after forced GC"
    : "no --expose-gc: includes uncollected garbage";
  const listers = [
    { client: "ours (discoverTools)", list: () => ours.discoverTools() },
    { client: "SDK Client (listTools)", list: () => sdk.listTools() },
  ];
  const growth = await heapGrowth(listers.map(({ list }) => list));
  say();
  say(
    `heap growth over ${LIST_CALLS} sequential tools/list calls, stdio (${gcNote})`,
  );
  table(
    ["transport", "client", "heapUsed growth", "time", "calls/s"],
    listers.map(({ client }, index) => {
      const { bytes, ms } = growth[index]!;
      return [
        "stdio",
        client,
        formatMiB(bytes),
        `${(ms / 1000).toFixed(1)} s`,
        formatRate(LIST_CALLS / (ms / 1000)),
      ];
    }),
  );
}

const onInterrupt = () => {
  cleanUp().finally(() => Deno.exit(130));
};
Deno.addSignalListener("SIGINT", onInterrupt);
try {
  await main();
} finally {
  await cleanUp();
  Deno.removeSignalListener("SIGINT", onInterrupt);
}
