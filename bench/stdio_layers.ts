/**
 * Where the client CPU of a stdio call goes, layer by layer: the same
 * `tools/call` against the same echo server (`echo_server.mjs`), 64 calls
 * in flight, through
 *
 * - `raw (Map)`: the raw client of `client_bench.ts` (`_raw_stdio.ts`, on
 *   `node:child_process`, the first 16 messages of a tick written at
 *   once and the rest when it ends, as ours does) keeping its requests in
 *   flight in a `Map`, as minimal clients do;
 * - `raw`: the same with a ring of slots, the ceiling (a `Map` whose
 *   entries come and go costs GC time: `src/protocol/_pending.ts`);
 * - `raw+token`: the same, with a progress token in each request's `_meta`,
 *   as ours sends (so that progress can push a call's deadline back);
 * - `session`: our `StdioTransport` and `Session` (deadline, the ring of
 *   requests in flight, write batching), no progress token;
 * - `session+token`: the same with `trackProgress`, the request ours sends;
 * - `adapter`: `MCPToolAdapter.invoke()` (stages, validation, envelope),
 *   its envelope checked in the same await.
 *
 * Each layer has its own server process. After a warm-up the layers take
 * turns for `--rounds=N` rounds (default 7) of `--calls=N` calls each
 * (default 40,000); the table gives each layer's median client CPU per call
 * (user + system, this process, all threads) and its ratio to raw's, and
 * the step from the layer above. Run it with
 * `deno run -A bench/stdio_layers.ts` (Deno or, transpiled, Node).
 *
 * @module
 */

import process from "node:process";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { Session } from "../src/protocol/session.ts";
import { StdioTransport } from "../src/transports/stdio.ts";
import { ECHO_SERVER, nodeExecutable, SERVER_ENV } from "./_echo_server.ts";
import { RawStdioClient } from "./_raw_stdio.ts";
import { type Call, countOption, takeTurns } from "./_fan_out.ts";
import { median } from "./_stats.ts";

const TIMEOUT_MS = 60_000;

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);

async function main(): Promise<void> {
  const rounds = countOption("stdio_layers", "rounds", 7);
  const calls = countOption("stdio_layers", "calls", 40_000);
  const server = {
    command: nodeExecutable(),
    args: [ECHO_SERVER, "stdio"],
    env: SERVER_ENV,
  };
  const closing: (() => Promise<unknown>)[] = [];
  try {
    const rawMap = await RawStdioClient.start(server, {
      api: "node",
      pending: "map",
    });
    closing.push(() => rawMap.close());
    await rawMap.initialize();
    const raw = await RawStdioClient.start(server, { api: "node" });
    closing.push(() => raw.close());
    await raw.initialize();
    const session = new Session(new StdioTransport(server), "bench");
    closing.push(() => session.close());
    await session.start();
    await session.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench-layers", version: "0" },
    }, { timeoutMs: TIMEOUT_MS });
    await session.notify("notifications/initialized");
    const adapter = new MCPToolAdapter({
      name: "bench",
      transport: "stdio",
      ...server,
    });
    closing.push(() => adapter.disconnect());
    await adapter.connect();
    await adapter.discoverTools();
    const echo = (i: number) => ({
      name: "echo",
      arguments: { text: `m${i}` },
    });
    const layers: [string, Call][] = [
      ["raw (Map)", (i) => rawMap.request("tools/call", echo(i))],
      ["raw", (i) => raw.request("tools/call", echo(i))],
      ["raw+token", (i) =>
        raw.request("tools/call", {
          ...echo(i),
          _meta: { progressToken: i },
        })],
      [
        "session",
        (i) =>
          session.request("tools/call", echo(i), { timeoutMs: TIMEOUT_MS }),
      ],
      ["session+token", (i) =>
        session.request("tools/call", echo(i), {
          timeoutMs: TIMEOUT_MS,
          trackProgress: true,
        })],
      ["adapter", (i) => adapter.invoke("echo", { text: `m${i}` })],
    ];
    const costs = await takeTurns(
      layers.map(([, call]) => call),
      rounds,
      calls,
    );
    const medians = costs.map(median);
    say(
      `64 calls in flight, ${rounds} rounds x ${calls} calls, ${
        "Deno" in globalThis ? "Deno" : "Node"
      } ${process.versions.deno ?? process.versions.node}`,
    );
    // Ratios are to `raw`, the ceiling; steps from the layer above.
    const ceiling = medians[1]!;
    say("layer          client CPU µs/call  x raw  step");
    layers.forEach(([name], index) => {
      const step = index === 0
        ? ""
        : `${medians[index]! >= medians[index - 1]! ? "+" : ""}${
          (medians[index]! - medians[index - 1]!).toFixed(2)
        }`;
      say(
        `${name.padEnd(15)}${medians[index]!.toFixed(2).padStart(18)}  ${
          (medians[index]! / ceiling).toFixed(2).padStart(5)
        }  ${step}`,
      );
    });
  } finally {
    for (const close of closing.reverse()) await close().catch(() => {});
  }
}

if (import.meta.main) await main();
