/**
 * What the clients cost, measured against a server that is not the
 * bottleneck: `tools/call` through our {@linkcode MCPToolAdapter}, the SDK
 * `Client`, and a raw client per transport (the ceiling), all against
 * `echo_server.mjs`, a minimal Node echo server (no SDK), speaking the 2025
 * era or, in the "modern" rows, MCP 2026-07-28; and, in the "SDK v2 server"
 * rows, against the same echo tool built with the official SDK v2
 * (`sdk_echo_server.mjs`, 2026-07-28 only), a real server that costs more
 * per call than the clients.
 *
 * Run it on Deno with `deno task bench` (or alone:
 * `deno run -A bench/client_bench.ts`), on Node against the packed npm
 * package with `deno task bench:node`. Options:
 *
 * - `--rounds=N` (default 5), `--slice-ms=N` (default 1000): see below.
 * - `--only=ID,…`: scenarios to run (ids: stdio-seq, modern-stdio-seq,
 *   stdio-64, modern-stdio-64, http-json-seq, modern-http-seq, http-json-64,
 *   modern-http-64, http-sse-seq, http-sse-64, http-stream-seq,
 *   http-stream-64, stdio-10mb, stdio-50mb, sdk2-stdio-seq, sdk2-stdio-64,
 *   sdk2-http-seq, sdk2-http-64).
 * - `--clients=raw,SDK,ours`: clients to run.
 * - `--base=DIR`: one more client, "base": our adapter from the checkout in
 *   DIR (its `mod.ts`, e.g. a `git worktree` of the commit before a change),
 *   taking its turns in the same rounds as "ours", so that a change is
 *   measured side by side with what it changes (Deno only). A last table
 *   gives ours ×base per row, the median of the per-round ratios.
 * - `--raw-api=native`: on Deno, the raw stdio client uses `Deno.Command`
 *   instead of `node:child_process`. The default is the faster of the two
 *   (on Deno 2.9, `node:child_process` takes about half the client CPU per
 *   call), so that the ceiling is the fastest client a user could write.
 * - `--raw-writes=tick|each`: the raw stdio client writes the messages of
 *   one tick in one write (`tick`), or each message at once, on its own, as
 *   the minimal client the issues first measured with does (`each`). The
 *   default, `early`, writes the first 16 messages of a tick at once and the
 *   rest when the tick ends, as ours does: on Deno with 64 calls in flight it
 *   is the fastest of the three, so it is the ceiling (`_raw_stdio.ts`).
 * - `--raw-pending=map`: the raw stdio client keeps its requests in flight
 *   in a `Map`, as minimal clients do; the default, a ring of slots by id,
 *   spares it the GC time a `Map` with entries coming and going costs
 *   (`src/protocol/_pending.ts`), so it is the ceiling.
 * - `--raw-no-signal`: the raw HTTP client gives its POSTs no abort signal.
 *   By default it gives each POST its own, as a client must to stop its
 *   requests in flight (ours does the same; the SDK's passes one shared
 *   signal to all), and the runtime's `fetch` charges for it: the HTTP rows
 *   then show what a client costs beyond what any cancellable client pays.
 * - `--cpu-prof=FILE`: write a V8 CPU profile (`.cpuprofile`, readable by
 *   Chrome DevTools and `bench/profile_top.ts`) of the measured rounds,
 *   warm-up excluded; use with `--only` and `--clients=ours`.
 *
 * **Rows.** stdio, sequential and 64 concurrent callers; streamable HTTP
 * with JSON answers, with SSE answers that carry a Content-Length (as a
 * server or proxy that buffers its answers sends them) and with SSE answers
 * streamed without one (as the SDK's server sends them), each sequential
 * and 64 concurrent; and one 10 MB and one 50 MB result over stdio (the SDK
 * `Client` sits out the 50 MB row: its stdio transport refuses lines over
 * 10 MiB). Every client has its own server process (one stdio server each;
 * one HTTP server each, serving JSON on `/mcp`, SSE on `/sse` and streamed
 * SSE on `/sse-stream`).
 *
 * **Modern rows.** Beside the stdio and HTTP JSON rows, the same against
 * the echo server speaking 2026-07-28 only (`echo_server.mjs … modern`): no
 * handshake, a `server/discover` at connect, the `_meta` envelope on every
 * request and, over HTTP, `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` on every POST, checked against the body; no session. Ours
 * connects with its default `protocol: "auto"` (the probe finds the era,
 * once, at connect); the raw clients send the envelope and headers of
 * `_modern_wire.ts`. The SDK 1.x `Client` speaks only the 2025 era and sits
 * these rows out. A second table sets each modern row beside its 2025
 * row, same client, same round: what speaking 2026-07-28 costs per call on
 * the wire, envelope included (`protocol_bench.ts` measures the envelope
 * alone). The "SDK v2 server" rows (stdio and HTTP JSON, ours and raw) use
 * `sdk_echo_server.mjs` on this runtime: its server CPU column shows that
 * server is the bottleneck there.
 *
 * **Rounds.** After a warm-up, which also sizes the slices so that the
 * fastest client spends about `--slice-ms` on the 4 slices of one round,
 * the clients take turns for `--rounds` rounds: in each round each client
 * makes its calls in 4 slices, the turns going A B C, then C B A, and so on,
 * the first one rotating from round to round, and every scenario gets its
 * turn in every round. A change of machine load hits every client alike.
 * The default gives a slice about 250 ms: at 62 ms (`--slice-ms=250`) a
 * sequential stdio slice is a few hundred round trips, shorter than this
 * machine's swings of load, and one round's ratio to raw ranged from 0.5×
 * to 2× (Node 22, 2026-12-02); at 250 ms it ranged from 0.82× to 1.03×.
 *
 * **Figures.** calls/s is the median over rounds; ×raw and ×SDK are the
 * medians of the per-round ratios (two runs of the same round compared);
 * "rounds" is the lowest and the highest per-round ratio to raw.
 * "client CPU" is this process's CPU time (user + system, all threads) per
 * call; "server CPU" is the echo server's, read from its `cpu` tool around
 * each slice. Where the server's CPU per call is well below the raw
 * client's, the client is what limits throughput; the table says where it
 * is not.
 *
 * Every server process is stopped at the end, also on error or Ctrl-C, and
 * every wait has a deadline.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Session as InspectorSession } from "node:inspector";
import os from "node:os";
import { pathToFileURL } from "node:url";
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import {
  ECHO_SERVER,
  type HttpEchoServer,
  nodeExecutable,
  sdkServerCommand,
  SERVER_ENV,
  type ServerCommand,
  startHttpServer,
  withDeadline,
} from "./_echo_server.ts";
import { modernCall, modernHeaders } from "./_modern_wire.ts";
import { RawHttpClient } from "./_raw_http.ts";
import {
  type RawPending,
  type RawProcessApi,
  RawStdioClient,
  type RawWrites,
} from "./_raw_stdio.ts";
import { median } from "./_stats.ts";

/** Slices per round; each client makes a quarter of its calls per turn. */
const SLICES = 4;
/** Warm-up per client and scenario (JIT, caches, connection pools). */
const WARMUP_MS = 600;
/** A slice that takes longer than this fails the run. */
const SLICE_DEADLINE_MS = 180_000;
/** Starting, connecting, one call outside the timed slices, closing. */
const STEP_DEADLINE_MS = 30_000;
/**
 * The big result: 10 MB of text. Not 10 MiB: the SDK's stdio transport
 * refuses a line longer than 10 MiB (its `ReadBuffer` limit).
 */
const BIG_BYTES = 10_000_000;

const CLIENTS = ["raw", "SDK", "ours", "base"] as const;
type ClientName = typeof CLIENTS[number];
type Transport = "stdio" | "http-json" | "http-sse" | "http-stream";
/**
 * Which server a row talks to: `echo_server.mjs` in the 2025 era, the same
 * speaking 2026-07-28 only, or `sdk_echo_server.mjs` (SDK v2, 2026-07-28).
 */
type ServerKind = "legacy" | "modern" | "sdk2";

interface Scenario {
  id: string;
  label: string;
  transport: Transport;
  /** Default `"legacy"`. */
  server?: ServerKind;
  /** A modern row's 2025-era twin, for the modern-vs-2025 table. */
  twin?: string;
  concurrency: number;
  /** Set for the big-result rows: the size of the result in bytes. */
  bytes?: number;
  /**
   * A client that cannot take this row, with the reason printed under the
   * table, once for all the rows `rows` names (or for this row).
   */
  without?: { client: ClientName; reason: string; rows?: string };
}

/** The 1.x SDK `Client` cannot speak 2026-07-28. */
const NO_MODERN_SDK = {
  client: "SDK" as const,
  rows: "modern and SDK v2 server rows",
  reason: "the SDK 1.x Client speaks only the 2025 era",
};

/** A 2026-07-28 row: `server` speaking it over `transport`. */
function modernRow(
  id: string,
  label: string,
  server: "modern" | "sdk2",
  transport: "stdio" | "http-json",
  concurrency: number,
  twin?: string,
): Scenario {
  return {
    id,
    label,
    transport,
    server,
    concurrency,
    without: NO_MODERN_SDK,
    ...(twin === undefined ? {} : { twin }),
  };
}

const SCENARIOS: Scenario[] = [
  {
    id: "stdio-seq",
    label: "stdio, sequential",
    transport: "stdio",
    concurrency: 1,
  },
  modernRow(
    "modern-stdio-seq",
    "modern stdio, sequential",
    "modern",
    "stdio",
    1,
    "stdio-seq",
  ),
  {
    id: "stdio-64",
    label: "stdio, 64 concurrent",
    transport: "stdio",
    concurrency: 64,
  },
  modernRow(
    "modern-stdio-64",
    "modern stdio, 64 concurrent",
    "modern",
    "stdio",
    64,
    "stdio-64",
  ),
  {
    id: "http-json-seq",
    label: "HTTP JSON, sequential",
    transport: "http-json",
    concurrency: 1,
  },
  modernRow(
    "modern-http-seq",
    "modern HTTP JSON, sequential",
    "modern",
    "http-json",
    1,
    "http-json-seq",
  ),
  {
    id: "http-json-64",
    label: "HTTP JSON, 64 concurrent",
    transport: "http-json",
    concurrency: 64,
  },
  modernRow(
    "modern-http-64",
    "modern HTTP JSON, 64 concurrent",
    "modern",
    "http-json",
    64,
    "http-json-64",
  ),
  {
    id: "http-sse-seq",
    label: "HTTP SSE, sequential",
    transport: "http-sse",
    concurrency: 1,
  },
  {
    id: "http-sse-64",
    label: "HTTP SSE, 64 concurrent",
    transport: "http-sse",
    concurrency: 64,
  },
  {
    id: "http-stream-seq",
    label: "HTTP SSE streamed, sequential",
    transport: "http-stream",
    concurrency: 1,
  },
  {
    id: "http-stream-64",
    label: "HTTP SSE streamed, 64 concurrent",
    transport: "http-stream",
    concurrency: 64,
  },
  {
    id: "stdio-10mb",
    label: "stdio, one 10 MB result",
    transport: "stdio",
    concurrency: 1,
    bytes: BIG_BYTES,
  },
  {
    // The hostile-servers issue's case: line framing linear in bytes.
    id: "stdio-50mb",
    label: "stdio, one 50 MB result",
    transport: "stdio",
    concurrency: 1,
    bytes: 50_000_000,
    without: {
      client: "SDK",
      reason:
        "its stdio transport refuses a line longer than 10 MiB (ReadBuffer)",
    },
  },
  modernRow(
    "sdk2-stdio-seq",
    "SDK v2 server, stdio, sequential",
    "sdk2",
    "stdio",
    1,
  ),
  modernRow(
    "sdk2-stdio-64",
    "SDK v2 server, stdio, 64 concurrent",
    "sdk2",
    "stdio",
    64,
  ),
  modernRow(
    "sdk2-http-seq",
    "SDK v2 server, HTTP JSON, sequential",
    "sdk2",
    "http-json",
    1,
  ),
  modernRow(
    "sdk2-http-64",
    "SDK v2 server, HTTP JSON, 64 concurrent",
    "sdk2",
    "http-json",
    64,
  ),
];

/** One client's connection to its server, reduced to what the rows need. */
interface Caller {
  /** Calls `echo` and returns the text that came back. */
  echo(text: string): Promise<string>;
  /** Calls `big` and returns the length of the text that came back. */
  big(bytes: number): Promise<number>;
  /** The server's CPU time so far, in µs. */
  serverCpuUs(): Promise<number>;
}

interface Options {
  rounds: number;
  sliceMs: number;
  scenarios: Scenario[];
  clients: ClientName[];
  cpuProf: string | undefined;
  /** The checkout whose adapter is the "base" client. */
  base: string | undefined;
  rawApi: RawProcessApi;
  rawWrites: RawWrites;
  rawPending: RawPending;
  rawSignal: boolean;
}

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);

function parseOptions(args: string[]): Options {
  const options: Options = {
    rounds: 5,
    sliceMs: 1000,
    scenarios: SCENARIOS,
    clients: ["raw", "SDK", "ours"],
    cpuProf: undefined,
    base: undefined,
    rawApi: "node",
    rawWrites: "early",
    rawPending: "slots",
    rawSignal: true,
  };
  for (const arg of args) {
    const [flag, value = ""] = arg.split(/=(.*)/s, 2);
    const list = value.split(",").filter((item) => item !== "");
    if (flag === "--rounds" && Number(value) >= 1) {
      options.rounds = Math.floor(Number(value));
    } else if (flag === "--slice-ms" && Number(value) > 0) {
      options.sliceMs = Number(value);
    } else if (flag === "--only" && list.length > 0) {
      const unknown = list.filter((id) => !SCENARIOS.some((s) => s.id === id));
      if (unknown.length > 0) {
        throw new Error(
          `client_bench: unknown scenario ${unknown.join(", ")}; ids: ${
            SCENARIOS.map((s) => s.id).join(", ")
          }`,
        );
      }
      options.scenarios = SCENARIOS.filter((s) => list.includes(s.id));
    } else if (flag === "--clients" && list.length > 0) {
      const unknown = list.filter((c) =>
        c === "base" || !CLIENTS.includes(c as ClientName)
      );
      if (unknown.length > 0) {
        throw new Error(
          `client_bench: unknown client ${
            unknown.join(", ")
          }; clients: raw, SDK, ours (and --base=DIR)`,
        );
      }
      options.clients = CLIENTS.filter((client) => list.includes(client));
    } else if (
      flag === "--raw-api" && (value === "node" || value === "native")
    ) {
      options.rawApi = value;
    } else if (
      flag === "--raw-writes" &&
      (value === "early" || value === "tick" || value === "each")
    ) {
      options.rawWrites = value;
    } else if (
      flag === "--raw-pending" && (value === "slots" || value === "map")
    ) {
      options.rawPending = value;
    } else if (arg === "--raw-no-signal") {
      options.rawSignal = false;
    } else if (flag === "--cpu-prof" && value !== "") {
      options.cpuProf = value;
    } else if (flag === "--base" && value !== "") {
      options.base = value;
    } else {
      throw new Error(
        `client_bench: unknown option ${
          JSON.stringify(arg)
        }; see the header of bench/client_bench.ts`,
      );
    }
  }
  return options;
}

/** Stops everything started so far, newest first; each step at most once, each with a deadline. */
const cleanups: { what: string; run: () => Promise<unknown> }[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const { what, run } = cleanups.pop()!;
    await withDeadline(run(), STEP_DEADLINE_MS, `closing ${what}`).catch(
      (error) =>
        say(`cleanup: ${error instanceof Error ? error.message : error}`),
    );
  }
}

/** The first text block of a tool result. */
function textOf(result: unknown, who: string): string {
  const text = (result as { content?: { text?: unknown }[] } | undefined)
    ?.content?.[0]?.text;
  if (typeof text !== "string") {
    throw new Error(`${who}: no text in ${JSON.stringify(result)}`);
  }
  return text;
}

function cpuOf(result: unknown, who: string): number {
  const usage = (result as { structuredContent?: unknown } | undefined)
    ?.structuredContent as { user?: unknown; system?: unknown } | undefined;
  if (typeof usage?.user !== "number" || typeof usage.system !== "number") {
    throw new Error(`${who}: the cpu tool answered ${JSON.stringify(result)}`);
  }
  return usage.user + usage.system;
}

/**
 * A caller over anything that sends `tools/call`. Each call is one await
 * of the client's own promise: `answer` turns what it resolves with into
 * the tool's result, or throws for a failure (the SDK's `isError`, our
 * envelope's `success: false`), in the same turn, so that no client pays
 * for a wrapper's promise.
 */
function callerOf<T>(
  who: string,
  call: (name: string, args: Record<string, unknown>) => Promise<T>,
  answer: (outcome: T) => unknown = (outcome) => outcome,
): Caller {
  return {
    async echo(text) {
      return textOf(answer(await call("echo", { text })), who);
    },
    async big(bytes) {
      return textOf(answer(await call("big", { bytes })), who).length;
    },
    async serverCpuUs() {
      return cpuOf(answer(await call("cpu", {})), who);
    },
  };
}

/** The stdio server of a row's kind. */
function stdioServer(server: ServerKind): ServerCommand {
  if (server === "sdk2") return sdkServerCommand("stdio");
  return {
    command: nodeExecutable(),
    args: server === "modern"
      ? [ECHO_SERVER, "stdio", "modern"]
      : [ECHO_SERVER, "stdio"],
    env: SERVER_ENV,
  };
}

/** The HTTP server of a row's kind. */
function httpServer(server: ServerKind): ServerCommand {
  if (server === "sdk2") return sdkServerCommand("http");
  return {
    command: nodeExecutable(),
    args: server === "modern"
      ? [ECHO_SERVER, "http", "modern"]
      : [ECHO_SERVER, "http"],
    env: SERVER_ENV,
  };
}

async function rawCaller(
  transport: Transport,
  server: ServerKind,
  http: HttpEchoServer | undefined,
  options: Options,
): Promise<Caller> {
  const modern = server !== "legacy";
  if (transport === "stdio") {
    const raw = await RawStdioClient.start(stdioServer(server), {
      api: options.rawApi,
      writes: options.rawWrites,
      pending: options.rawPending,
    });
    cleanups.push({ what: "raw stdio client", run: () => raw.close() });
    if (!modern) {
      await raw.initialize();
      return callerOf(
        "raw",
        (name, args) => raw.request("tools/call", { name, arguments: args }),
      );
    }
    await raw.discover();
    return callerOf(
      "raw",
      (name, args) => raw.request("tools/call", modernCall(name, args)),
    );
  }
  const raw = new RawHttpClient(urlOf(transport, http!), options.rawSignal);
  if (!modern) {
    await raw.initialize();
    return callerOf(
      "raw",
      (name, args) => raw.request("tools/call", { name, arguments: args }),
    );
  }
  await raw.discover();
  return callerOf(
    "raw",
    (name, args) =>
      raw.request(
        "tools/call",
        modernCall(name, args),
        modernHeaders("tools/call", name),
      ),
  );
}

async function sdkCaller(
  transport: Transport,
  server: ServerKind,
  http: HttpEchoServer | undefined,
): Promise<Caller> {
  if (server !== "legacy") {
    throw new Error(`client_bench: ${NO_MODERN_SDK.reason}`);
  }
  const client = new Client({ name: "bench-sdk", version: "0" });
  const channel = transport === "stdio"
    ? new StdioClientTransport({ ...stdioServer(server), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(urlOf(transport, http!)));
  cleanups.push({ what: `SDK ${transport} client`, run: () => client.close() });
  await client.connect(channel);
  await client.listTools(); // caches the output validators, as an agent would
  return callerOf(
    "SDK",
    (name, args) => client.callTool({ name, arguments: args }),
    (result: { isError?: unknown }) => {
      if (result.isError) throw new Error(`SDK: ${JSON.stringify(result)}`);
      return result;
    },
  );
}

async function oursCaller(
  transport: Transport,
  server: ServerKind,
  http: HttpEchoServer | undefined,
  base?: string,
): Promise<Caller> {
  const Adapter: typeof MCPToolAdapter = base === undefined
    ? MCPToolAdapter
    : (await import(
      pathToFileURL(`${base}/mod.ts`).href
    ) as { MCPToolAdapter: typeof MCPToolAdapter }).MCPToolAdapter;
  const who = base === undefined ? "ours" : "base";
  const adapter = new Adapter(
    transport === "stdio"
      ? { name: "bench", transport: "stdio", ...stdioServer(server) }
      : {
        name: "bench",
        transport: "streamable-http",
        url: urlOf(transport, http!),
      },
  );
  cleanups.push({
    what: `${who} ${server} ${transport} client`,
    run: () => adapter.disconnect(),
  });
  await adapter.connect();
  const era = server === "legacy" ? "legacy" : "modern";
  if (adapter.serverInfo?.era !== era) {
    throw new Error(
      `${who}: the ${server} server was taken for ${adapter.serverInfo?.era}`,
    );
  }
  await adapter.discoverTools();
  return callerOf(
    who,
    (name, args) => adapter.invoke(name, args),
    (result) => {
      if (!result.success) throw new Error(`${who}: ${result.error}`);
      return result.data;
    },
  );
}

function urlOf(transport: Transport, http: HttpEchoServer): string {
  const path = transport === "http-sse"
    ? "/sse"
    : transport === "http-stream"
    ? "/sse-stream"
    : "/mcp";
  return http.origin + path;
}

/** The time, this process's CPU and the server's CPU taken by one slice of calls. */
interface Cost {
  calls: number;
  wallMs: number;
  cpuUs: number;
  serverCpuUs: number;
}

type Op = (caller: Caller, i: number) => Promise<void>;

function operation(scenario: Scenario): Op {
  const bytes = scenario.bytes;
  if (bytes !== undefined) {
    return async (caller) => {
      const length = await caller.big(bytes);
      if (length !== bytes) {
        throw new Error(`big returned ${length} characters, not ${bytes}`);
      }
    };
  }
  return async (caller, i) => {
    const text = `m${i}`;
    const echoed = await caller.echo(text);
    if (echoed !== text) {
      throw new Error(`echo returned ${echoed}, not ${text}`);
    }
  };
}

/** Makes `calls` calls from `concurrency` callers and measures them. */
async function measure(
  caller: Caller,
  scenario: Scenario,
  calls: number,
  what: string,
): Promise<Cost> {
  const op = operation(scenario);
  const serverBefore = await withDeadline(
    caller.serverCpuUs(),
    STEP_DEADLINE_MS,
    `${what}: server CPU`,
  );
  let next = 0;
  const worker = async () => {
    while (next < calls) await op(caller, next++);
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await withDeadline(
    Promise.all(
      Array.from({ length: Math.min(scenario.concurrency, calls) }, worker),
    ),
    SLICE_DEADLINE_MS,
    what,
  );
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const serverAfter = await withDeadline(
    caller.serverCpuUs(),
    STEP_DEADLINE_MS,
    `${what}: server CPU`,
  );
  return {
    calls,
    wallMs,
    cpuUs: user + system,
    serverCpuUs: serverAfter - serverBefore,
  };
}

interface Contender {
  client: ClientName;
  caller: Caller;
}

/**
 * Warms every contender up for `WARMUP_MS` and returns the calls per slice:
 * what the fastest one makes in `sliceMs`, at least one per caller.
 */
async function warmUp(
  scenario: Scenario,
  contenders: Contender[],
  sliceMs: number,
): Promise<number> {
  let fastest = 0;
  for (const { client, caller } of contenders) {
    let calls = scenario.concurrency;
    let spentMs = 0;
    let rate = 0;
    while (spentMs < WARMUP_MS) {
      const cost = await measure(
        caller,
        scenario,
        calls,
        `${scenario.label}, ${client}, warm-up`,
      );
      spentMs += cost.wallMs;
      rate = calls / (cost.wallMs / 1000);
      calls = Math.max(calls, Math.round(rate * (WARMUP_MS / 4) / 1000));
    }
    fastest = Math.max(fastest, rate);
  }
  return Math.max(
    scenario.concurrency,
    Math.round(fastest * sliceMs / 1000 / SLICES),
  ) * SLICES;
}

/**
 * One round of one scenario: every contender makes `calls` calls in
 * `SLICES` slices, taking turns A B C, then C B A, and so on; `first`
 * rotates who goes first. Returns each contender's cost, by index.
 */
async function round(
  scenario: Scenario,
  contenders: Contender[],
  calls: number,
  first: number,
): Promise<Cost[]> {
  const order = contenders.map((_, k) => (k + first) % contenders.length);
  const costs = contenders.map(() => ({
    calls: 0,
    wallMs: 0,
    cpuUs: 0,
    serverCpuUs: 0,
  }));
  for (let slice = 0; slice < SLICES; slice++) {
    for (const index of slice % 2 === 0 ? order : order.toReversed()) {
      const { caller, client } = contenders[index]!;
      const cost = await measure(
        caller,
        scenario,
        calls / SLICES,
        `${scenario.label}, ${client}`,
      );
      const total = costs[index]!;
      total.calls += cost.calls;
      total.wallMs += cost.wallMs;
      total.cpuUs += cost.cpuUs;
      total.serverCpuUs += cost.serverCpuUs;
    }
  }
  return costs;
}

function table(header: string[], rows: string[][], left: number): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length))
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) =>
      column < left
        ? cell.padEnd(widths[column]!)
        : cell.padStart(widths[column]!)
    ).join("  ").trimEnd();
  say(line(header));
  say(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) say(line(row));
}

function formatRate(value: number): string {
  return value < 100
    ? value.toFixed(1)
    : Math.round(value).toLocaleString("en-US");
}

function formatUs(value: number): string {
  return value < 1000
    ? value.toFixed(1)
    : Math.round(value).toLocaleString("en-US");
}

function runtimeLabel(
  { rawApi, rawWrites, rawPending, rawSignal }: Options,
): string {
  const deno = (globalThis as { Deno?: { version: Record<string, string> } })
    .Deno;
  const writes = rawWrites === "early"
    ? "the first 16 messages of a tick written at once, the rest at its end"
    : rawWrites === "tick"
    ? "one write per tick"
    : "one write per message";
  const pending = rawPending === "map"
    ? ", its requests in a Map"
    : ", its requests in a ring";
  return deno === undefined
    ? `Node ${process.version} (V8 ${process.versions.v8}), ours from the npm tarball, raw stdio with ${writes}${pending}${
      rawSignal
        ? ", raw HTTP with an abort signal per request"
        : ", raw HTTP without abort signals"
    }`
    : `Deno ${deno.version.deno} (V8 ${deno.version.v8}), ours from this checkout, raw stdio on ${
      rawApi === "node" ? "node:child_process" : "Deno.Command"
    } with ${writes}${pending}${
      rawSignal
        ? ", raw HTTP with an abort signal per request"
        : ", raw HTTP without abort signals"
    }`;
}

/** Starts a V8 CPU profile of this process; the returned function stops it and writes `file`. */
async function startProfile(file: string): Promise<() => Promise<void>> {
  const session = new InspectorSession();
  session.connect();
  const post = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(
        method,
        params,
        (error, result) => error ? reject(error) : resolve(result),
      )
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
  await post("Profiler.start");
  return async () => {
    const { profile } = await post("Profiler.stop") as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    say(`CPU profile of the measured rounds written to ${file}`);
  };
}

async function main(options: Options): Promise<void> {
  const load = () => os.loadavg().map((value) => value.toFixed(1)).join(" / ");
  say(
    `Clients against a minimal echo server (bench/echo_server.mjs on node ${
      execFileSync(nodeExecutable(), ["--version"], { encoding: "utf8" }).trim()
    }, 2025 era; "modern" rows: 2026-07-28), not the SDK's McpServer`,
  );
  if (options.scenarios.some((s) => s.server === "sdk2")) {
    say(
      `"SDK v2 server" rows: bench/sdk_echo_server.mjs (@modelcontextprotocol/server, 2026-07-28 only) on ${
        "Deno" in globalThis ? "Deno" : "Node"
      }, the bottleneck there`,
    );
  }
  say(
    `${runtimeLabel(options)}; ${os.cpus().length} cores; ${
      new Date().toISOString().slice(0, 16)
    }Z; load ${load()}`,
  );
  say(
    `${options.rounds} rounds x ${SLICES} slices, ~${options.sliceMs} ms of the fastest client per round and row`,
  );

  const open: Record<
    ClientName,
    (
      t: Transport,
      s: ServerKind,
      h: HttpEchoServer | undefined,
    ) => Promise<Caller>
  > = {
    raw: (t, s, h) => rawCaller(t, s, h, options),
    SDK: sdkCaller,
    ours: oursCaller,
    base: (t, s, h) => oursCaller(t, s, h, options.base),
  };
  const clients = options.base === undefined
    ? options.clients
    : [...options.clients, "base" as const];
  // Each client has its own HTTP server per server kind, and one caller
  // (one connection) per server kind and transport, shared by its rows.
  const http = new Map<string, HttpEchoServer>();
  const callers = new Map<string, Caller>();
  const callerFor = async (client: ClientName, scenario: Scenario) => {
    const { transport, server = "legacy" } = scenario;
    const key = `${client} ${server} ${transport}`;
    let caller = callers.get(key);
    if (caller !== undefined) return caller;
    let origin: HttpEchoServer | undefined;
    if (transport !== "stdio") {
      origin = http.get(`${client} ${server}`);
      if (origin === undefined) {
        origin = await startHttpServer(STEP_DEADLINE_MS, httpServer(server));
        cleanups.push({
          what: `${client}'s ${server} HTTP server`,
          run: origin.stop,
        });
        http.set(`${client} ${server}`, origin);
      }
    }
    caller = await withDeadline(
      open[client](transport, server, origin),
      STEP_DEADLINE_MS,
      `connecting ${client} to the ${server} server over ${transport}`,
    );
    callers.set(key, caller);
    return caller;
  };
  const rows = [];
  for (const scenario of options.scenarios) {
    const contenders: Contender[] = [];
    for (const client of clients) {
      if (client === scenario.without?.client) continue;
      contenders.push({ client, caller: await callerFor(client, scenario) });
    }
    rows.push({ scenario, contenders, calls: 0, costs: [] as Cost[][] });
  }
  for (const row of rows) row.costs = row.contenders.map((): Cost[] => []);
  for (const row of rows) {
    row.calls = await warmUp(row.scenario, row.contenders, options.sliceMs);
  }

  const stopProfile = options.cpuProf === undefined
    ? undefined
    : await startProfile(options.cpuProf);
  for (let r = 0; r < options.rounds; r++) {
    for (const row of rows) {
      const costs = await round(row.scenario, row.contenders, row.calls, r);
      costs.forEach((cost, index) => row.costs[index]!.push(cost));
    }
  }
  await stopProfile?.();
  if (stopProfile !== undefined) {
    for (const row of rows) {
      say(
        `${row.scenario.label}: ${
          row.calls * options.rounds
        } calls per client profiled`,
      );
    }
  }

  const rate = (cost: Cost) => cost.calls / (cost.wallMs / 1000);
  const lines: string[][] = [];
  const warnings: string[] = [];
  for (const row of rows) {
    /** The per-round ratios of `mine` to `client`'s calls/s; empty without that client. */
    const ratiosTo = (mine: Cost[], client: ClientName) => {
      const index = row.contenders.findIndex((c) => c.client === client);
      if (index === -1) return [];
      const theirs = row.costs[index]!;
      return mine.map((cost, r) => rate(cost) / rate(theirs[r]!));
    };
    const medianRatio = (ratios: number[]) =>
      ratios.length === 0 ? "-" : `${median(ratios).toFixed(2)}x`;
    row.contenders.forEach(({ client }, index) => {
      const mine = row.costs[index]!;
      const rates = mine.map(rate);
      const toRaw = ratiosTo(mine, "raw");
      const rawIndex = row.contenders.findIndex((c) => c.client === "raw");
      const cpuToRaw = rawIndex === -1 || client === "raw"
        ? "-"
        : `${
          median(mine.map((cost, r) => {
            const theirs = row.costs[rawIndex]![r]!;
            return (cost.cpuUs / cost.calls) / (theirs.cpuUs / theirs.calls);
          })).toFixed(2)
        }x`;
      lines.push([
        index === 0 ? row.scenario.label : "",
        client,
        formatRate(median(rates)),
        `${formatRate(Math.min(...rates))}-${formatRate(Math.max(...rates))}`,
        medianRatio(toRaw),
        client === "raw" || toRaw.length === 0
          ? "-"
          : `${Math.min(...toRaw).toFixed(2)}-${Math.max(...toRaw).toFixed(2)}`,
        medianRatio(ratiosTo(mine, "SDK")),
        formatUs(median(mine.map((cost) => cost.cpuUs / cost.calls))),
        cpuToRaw,
        formatUs(median(mine.map((cost) => cost.serverCpuUs / cost.calls))),
      ]);
    });
    row.contenders.forEach(({ client }, index) => {
      const costs = row.costs[index]!;
      const clientCpu = median(costs.map((c) => c.cpuUs / c.calls));
      const serverCpu = median(costs.map((c) => c.serverCpuUs / c.calls));
      if (serverCpu >= clientCpu) {
        warnings.push(
          `${row.scenario.label}, ${client}: its server used ${
            formatUs(serverCpu)
          } µs CPU per call, the client ${formatUs(clientCpu)} µs.`,
        );
      }
    });
  }
  say();
  table(
    [
      "tools/call",
      "client",
      "calls/s",
      "min-max",
      "x raw",
      "rounds",
      "x SDK",
      "client CPU µs/call",
      "CPU x raw",
      "server CPU µs/call",
    ],
    lines,
    2,
  );
  say();
  say(
    "calls/s: median over rounds; x raw, x SDK: median of the per-round ratios of calls/s (same round,",
  );
  say(
    "  turns interleaved), the only figures comparable between runs; rounds: the lowest and highest",
  );
  say(
    "  per-round ratio to raw, the spread one run shows. CPU: user + system time of all",
  );
  say(
    "  threads per call, this process (client) and the echo server (each client has its own server),",
  );
  say(
    "  median over rounds; CPU x raw: median of the per-round ratios of client CPU per call to raw's.",
  );
  say(
    "  Client CPU is the client's own cost and less disturbed by other load than the wall clock.",
  );
  say(
    "Can show: where a client spends more than the raw client, per call, on this machine, in this",
  );
  say(
    "  runtime. Cannot show: latency spread, memory, a real server's cost, other machines. Sequential",
  );
  say(
    "  rows include the server's and the kernel's share of each round trip, which narrows their",
  );
  say(
    "  ratios; 2 cores are shared by client, server and the machine's other load. MB rows: the time",
  );
  say("  per call is 1 / calls/s, so its time ratio to raw is 1 / (x raw).");
  const absent = new Set<string>();
  for (const { scenario } of rows) {
    if (scenario.without) {
      const { client, reason, rows = scenario.label } = scenario.without;
      absent.add(`  ${rows}: no ${client} figure; ${reason}.`);
    }
  }
  for (const line of absent) say(line);
  if (warnings.length === 0) {
    say(
      "Server check: in every row each client's echo server used less CPU per call than the client.",
    );
  } else {
    say(
      "Server check: where a server used as much CPU per call as its client, the server (or the",
    );
    say(
      "  per-message wake-ups both sides pay) may limit the row, and its ratios understate the clients'",
    );
    say("  differences:");
    for (const warning of warnings) say(`  - ${warning}`);
  }
  eraTable(rows);
  if (options.base !== undefined) baseTable(rows);
  say(`load at the end: ${load()}`);
}

/**
 * With `--base`: each row's "ours" against "base", round by round (their
 * turns are interleaved in each round), so that a change is read from the
 * ratios of one round's pair, not from two medians that other clients'
 * turns and the machine's load move apart.
 */
function baseTable(
  rows: { scenario: Scenario; contenders: Contender[]; costs: Cost[][] }[],
): void {
  const lines: string[][] = [];
  for (const { scenario, contenders, costs } of rows) {
    const ours = costs[contenders.findIndex((c) => c.client === "ours")];
    const base = costs[contenders.findIndex((c) => c.client === "base")];
    if (ours === undefined || base === undefined) continue;
    const cpu = ours.map((cost, r) =>
      (cost.cpuUs / cost.calls) / (base[r]!.cpuUs / base[r]!.calls)
    );
    const speed = ours.map((cost, r) =>
      (cost.calls / cost.wallMs) / (base[r]!.calls / base[r]!.wallMs)
    );
    lines.push([
      scenario.label,
      `${median(cpu).toFixed(2)}x`,
      `${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)}`,
      `${median(speed).toFixed(2)}x`,
    ]);
  }
  if (lines.length === 0) return;
  say();
  table(
    ["ours x base", "client CPU/call", "rounds", "calls/s"],
    lines,
    1,
  );
  say(
    "  the median of the per-round ratios of ours to base (lower CPU, higher calls/s is better for ours)",
  );
}

/**
 * Each modern row beside its 2025-era twin, client by client: the per-round
 * ratio of calls/s (the two rows of one round run one after the other) and
 * the client CPU per call of both.
 */
function eraTable(
  rows: { scenario: Scenario; contenders: Contender[]; costs: Cost[][] }[],
): void {
  const rate = (cost: Cost) => cost.calls / (cost.wallMs / 1000);
  const perCall = (cost: Cost) => cost.cpuUs / cost.calls;
  const lines: string[][] = [];
  for (const row of rows) {
    const twin = rows.find((other) => other.scenario.id === row.scenario.twin);
    if (twin === undefined) continue;
    let first = true;
    row.contenders.forEach(({ client }, index) => {
      const at = twin.contenders.findIndex((c) => c.client === client);
      if (at === -1) return;
      const modern = row.costs[index]!;
      const legacy = twin.costs[at]!;
      const ratios = modern.map((cost, r) => rate(cost) / rate(legacy[r]!));
      const more = median(
        modern.map((cost, r) => perCall(cost) - perCall(legacy[r]!)),
      );
      lines.push([
        first ? row.scenario.label : "",
        client,
        `${median(ratios).toFixed(2)}x`,
        `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
        formatUs(median(legacy.map(perCall))),
        formatUs(median(modern.map(perCall))),
        `${more >= 0 ? "+" : ""}${more.toFixed(1)}`,
      ]);
      first = false;
    });
  }
  if (lines.length === 0) return;
  say();
  table(
    [
      "2026-07-28 vs 2025",
      "client",
      "x 2025",
      "rounds",
      "CPU µs/call 2025",
      "2026-07-28",
      "more, paired",
    ],
    lines,
    2,
  );
  say();
  say(
    "x 2025: median of the per-round ratios of the modern row's calls/s to its 2025 twin's, same",
  );
  say(
    "  client (the twin rows of a round run one after the other); CPU: the client's, median over",
  );
  say(
    "  rounds; more, paired: median of the per-round differences (not the difference of the medians).",
  );
  say(
    "  What 2026-07-28 costs per call on the wire, both sides (see the server CPU column above):",
  );
  say(
    "  the _meta envelope in every request, resultType and serverInfo in every result, over HTTP",
  );
  say(
    "  two headers more (Mcp-Method, Mcp-Name) and no session id.",
  );
}

let interrupted = false;
const onInterrupt = () => {
  interrupted = true;
  say("interrupted: stopping the servers");
  cleanUp().finally(() => process.exit(130));
};
process.on("SIGINT", onInterrupt);
try {
  await main(parseOptions(process.argv.slice(2)));
} catch (error) {
  // Calls in flight fail once their servers are stopped; that is the interrupt, not news.
  if (!interrupted) throw error;
} finally {
  await cleanUp();
  process.off("SIGINT", onInterrupt);
}
