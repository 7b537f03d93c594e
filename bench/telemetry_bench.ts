/**
 * What telemetry costs per `invoke()`: the same in-memory SDK server
 * (`InMemoryTransport`, `createTestServer()`) called by adapters that take
 * turns within each round, so a change of machine load hits them alike:
 *
 * - "off": no provider registered, no option: the hooks are in place but
 *   nothing is loaded (each request pays one property check);
 * - "spans, not exported": a `BasicTracerProvider` without processors
 *   (spans are created and ended, then dropped);
 * - "spans + metrics, in memory": `SimpleSpanProcessor` into an
 *   `InMemorySpanExporter`, and a `MeterProvider` recording both histograms.
 *
 * The baseline beside "off" is the build without the hooks: run this file
 * with `--only-off` from a checkout of the commit before telemetry (the
 * option objects are then unknown and ignored) and compare the "off" rows.
 *
 *     deno run -A bench/telemetry_bench.ts
 *
 * Medians over {@linkcode ROUNDS} rounds of {@linkcode CALLS} sequential
 * calls; µs/call is wall time. Only differences within one run mean much.
 *
 * @module
 */

import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { MCPToolAdapter, type MCPToolAdapterOptions } from "../mod.ts";
import { createTestServer } from "../tests/_in_memory.ts";

// deno-lint-ignore no-console -- a benchmark prints its table
const say = (line = "") => console.log(line);

/** Calls per adapter per round. */
const CALLS = 2_000;
/** Rounds; the median is shown. */
const ROUNDS = 7;

async function connected(
  options: MCPToolAdapterOptions,
  cleanups: (() => Promise<void>)[],
): Promise<MCPToolAdapter> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createTestServer();
  await server.connect(serverSide);
  cleanups.push(() => server.close());
  const adapter = new MCPToolAdapter(
    { name: "bench", transport: "stdio", command: "in-memory" },
    { ...options, transport: clientSide },
  );
  cleanups.push(() => adapter.disconnect());
  await adapter.connect();
  return adapter;
}

async function timeCalls(adapter: MCPToolAdapter): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const result = await adapter.invoke("echo", { message: "hi" });
    if (!result.success) throw new Error(`echo failed: ${result.error}`);
  }
  return (performance.now() - started) * 1000 / CALLS;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const onlyOff = Deno.args.includes("--only-off");
  const cleanups: (() => Promise<void>)[] = [];
  const spans = new InMemorySpanExporter();
  const metrics = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(0),
    exportIntervalMillis: 2 ** 30,
  });
  const contenders: [string, MCPToolAdapterOptions][] = [["off", {}]];
  if (!onlyOff) {
    contenders.push(
      ["spans, not exported", {
        telemetry: { tracerProvider: new BasicTracerProvider() },
      }],
      ["spans + metrics, in memory", {
        telemetry: {
          tracerProvider: new BasicTracerProvider({
            spanProcessors: [new SimpleSpanProcessor(spans)],
          }),
          meterProvider: new MeterProvider({ readers: [metrics] }),
        },
      }],
    );
  }
  try {
    const adapters = [];
    for (const [, options] of contenders) {
      const adapter = await connected(options, cleanups);
      await timeCalls(adapter); // warm-up
      adapters.push(adapter);
    }
    const figures: number[][] = contenders.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let turn = 0; turn < adapters.length; turn++) {
        const i = (turn + round) % adapters.length;
        figures[i]!.push(await timeCalls(adapters[i]!));
        spans.reset();
      }
    }
    const off = median(figures[0]!);
    say(`invoke("echo") in memory, ${CALLS} calls x ${ROUNDS} rounds`);
    say("| telemetry | µs/call | vs off |");
    say("| --- | ---: | ---: |");
    contenders.forEach(([name], i) => {
      const figure = median(figures[i]!);
      say(
        `| ${name} | ${figure.toFixed(1)} | ${
          i === 0 ? "—" : `+${(figure - off).toFixed(1)} µs`
        } |`,
      );
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

if (import.meta.main) await main();
