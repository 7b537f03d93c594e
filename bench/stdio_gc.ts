/**
 * What the garbage collector costs a stdio client with 64 calls in flight:
 * for each client, a child process of this runtime runs `--calls=N` calls
 * (default 300,000, after 20,000 to warm up) against its own echo server
 * (`echo_server.mjs`) with V8's `--trace-gc-nvp`, and this process reads
 * the trace, less that of a run that only warms up: bytes promoted to the old generation per call, the
 * scavenges' pauses and their helper threads' time per call, and the
 * client's CPU per call. The clients:
 *
 * - `raw (Map)`: the raw client of `client_bench.ts` (`_raw_stdio.ts`)
 *   keeping its requests in flight in a `Map`;
 * - `raw`: the same with a ring of slots (the ceiling);
 * - `ours`: `MCPToolAdapter.invoke()`.
 *
 * Each client runs `--runs=N` times (default 2), taking turns. A `Map`
 * whose entries come and go retires its hash tables into a chain that
 * each scavenge promotes (`src/protocol/_pending.ts`): that is what the
 * first two rows tell apart. Run it with
 * `deno run -A bench/stdio_gc.ts` (Deno), or, transpiled, with Node.
 *
 * @module
 */

import process from "node:process";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { ECHO_SERVER, nodeExecutable, SERVER_ENV } from "./_echo_server.ts";
import { RawStdioClient } from "./_raw_stdio.ts";
import { countOption, fanOut } from "./_fan_out.ts";

const CONCURRENCY = 64;
const WARM_UP = 20_000;
const CLIENTS = ["raw (Map)", "raw", "ours"] as const;
type Client = typeof CLIENTS[number];

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);

/** In the child: makes the calls of one client and prints its CPU per call. */
async function child(client: Client, calls: number): Promise<void> {
  const server = {
    command: nodeExecutable(),
    args: [ECHO_SERVER, "stdio"],
    env: SERVER_ENV,
  };
  let call: (i: number) => Promise<unknown>;
  let close: () => Promise<unknown>;
  if (client === "ours") {
    const adapter = new MCPToolAdapter({
      name: "bench",
      transport: "stdio",
      ...server,
    });
    await adapter.connect();
    await adapter.discoverTools();
    call = (i) => adapter.invoke("echo", { text: `m${i}` });
    close = () => adapter.disconnect();
  } else {
    const raw = await RawStdioClient.start(server, {
      api: "node",
      pending: client === "raw" ? "slots" : "map",
    });
    await raw.initialize();
    call = (i) =>
      raw.request("tools/call", { name: "echo", arguments: { text: `m${i}` } });
    close = () => raw.close();
  }
  await fanOut(call, WARM_UP, CONCURRENCY);
  const cpu = await fanOut(call, calls, CONCURRENCY);
  // On stderr: stdout carries V8's trace, which is not written line by line.
  process.stderr.write(`cpu ${cpu}\n`);
  await close();
}

/** Per call: client CPU (µs), bytes promoted, scavenge pause and helper time (µs). */
interface Figures {
  cpu: number;
  promoted: number;
  pause: number;
  helpers: number;
}

/** The totals of one child's scavenges, and its CPU per call. */
interface Totals {
  cpu: number;
  promoted: number;
  pause: number;
  helpers: number;
}

/** Runs one client in a child with the GC trace: the totals of its run. */
function trace(client: Client, calls: number): Promise<Totals> {
  const script = fileURLToPath(import.meta.url);
  const args = "Deno" in globalThis
    ? ["run", "-A", "--v8-flags=--trace-gc-nvp", script]
    : ["--trace-gc-nvp", script];
  args.push(`--child=${client}`, `--calls=${calls}`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(error);
        const totals: Totals = {
          cpu: Number(/cpu (\S+)/.exec(stderr)?.[1]),
          promoted: 0,
          pause: 0,
          helpers: 0,
        };
        // Each trace record is one flat JSON object after "GC: ".
        for (const [, json] of stdout.matchAll(/GC: (\{[^{}]*\})/g)) {
          const gc = JSON.parse(json!);
          if (gc.gc !== "s") continue;
          totals.promoted += gc.promoted ?? 0;
          totals.pause += gc.pause ?? 0;
          totals.helpers += gc["background.scavenge.parallel"] ?? 0;
        }
        resolve(totals);
      },
    );
  });
}

/**
 * One client's figures per call: its scavenges over `calls` calls, less
 * those of a run that only warms up (one call after the warm-up).
 */
async function measure(client: Client, calls: number): Promise<Figures> {
  const base = await trace(client, 1);
  const run = await trace(client, calls);
  return {
    cpu: run.cpu,
    promoted: (run.promoted - base.promoted) / calls,
    pause: (run.pause - base.pause) * 1000 / calls,
    helpers: (run.helpers - base.helpers) * 1000 / calls,
  };
}

async function main(): Promise<void> {
  const calls = countOption("stdio_gc", "calls", 300_000);
  const childArg = process.argv.find((a) => a.startsWith("--child="));
  if (childArg !== undefined) {
    await child(childArg.slice(8) as Client, calls);
    return;
  }
  const runs = countOption("stdio_gc", "runs", 2);
  say(
    `${CONCURRENCY} calls in flight, ${calls} calls per run, ${runs} runs per client, ${
      "Deno" in globalThis ? "Deno" : "Node"
    } ${process.versions.deno ?? process.versions.node}; per call:`,
  );
  say(
    "client      CPU µs  promoted bytes  scavenge pause µs  scavenge helpers µs",
  );
  for (let run = 0; run < runs; run++) {
    for (const client of CLIENTS) {
      const f = await measure(client, calls);
      say(
        `${client.padEnd(10)}${f.cpu.toFixed(2).padStart(8)}${
          f.promoted.toFixed(0).padStart(16)
        }${f.pause.toFixed(2).padStart(19)}${
          f.helpers.toFixed(2).padStart(21)
        }`,
      );
    }
  }
}

if (import.meta.main) await main();
