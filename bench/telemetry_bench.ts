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
 * calls: process CPU (user + system, client and in-memory server together,
 * and the garbage collector, which also collects what the other contenders
 * left) and wall time per call. Only differences within one run mean much.
 *
 * @module
 */

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
import process from "node:process";
import type { MCPToolAdapter, MCPToolAdapterOptions } from "../mod.ts";
import { connectedAdapter, createTestServer } from "../tests/_in_memory.ts";
import { median } from "./_stats.ts";

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
  const server = createTestServer();
  cleanups.push(() => server.close());
  const adapter = await connectedAdapter(server, "bench", options);
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

/** Wall time and process CPU (user + system), µs per call. */
async function timeCalls(adapter: MCPToolAdapter): Promise<[number, number]> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const result = await adapter.invoke("echo", { message: "hi" });
    if (!result.success) throw new Error(`echo failed: ${result.error}`);
  }
  const wall = (performance.now() - started) * 1000 / CALLS;
  const used = process.cpuUsage(cpu);
  return [wall, (used.user + used.system) / CALLS];
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
    const cpus: number[][] = contenders.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let turn = 0; turn < adapters.length; turn++) {
        const i = (turn + round) % adapters.length;
        const [wall, cpu] = await timeCalls(adapters[i]!);
        figures[i]!.push(wall);
        cpus[i]!.push(cpu);
        spans.reset();
      }
    }
    const off = median(figures[0]!);
    const offCpu = median(cpus[0]!);
    say(`invoke("echo") in memory, ${CALLS} calls x ${ROUNDS} rounds`);
    say(
      "| telemetry | CPU µs/call (client + in-memory server) | vs off | wall µs/call | vs off |",
    );
    say("| --- | ---: | ---: | ---: | ---: |");
    const versus = (value: number, base: number, first: boolean) =>
      first
        ? "—"
        : `${value >= base ? "+" : "−"}${Math.abs(value - base).toFixed(1)} µs`;
    contenders.forEach(([name], i) => {
      const wall = median(figures[i]!);
      const cpu = median(cpus[i]!);
      say(
        `| ${name} | ${cpu.toFixed(1)} | ${versus(cpu, offCpu, i === 0)} | ${
          wall.toFixed(1)
        } | ${versus(wall, off, i === 0)} |`,
      );
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

if (import.meta.main) await main();
