/**
 * The ceiling of the stdio rows of `client_bench.ts`: a minimal MCP client
 * that writes newline-delimited JSON-RPC to a server's stdin and matches the
 * lines of its stdout to requests by id. No validation, deadlines, progress
 * tokens or write ordering beyond what the pipe gives. By default
 * (`"early"`) the first 16 messages of a tick are written at once and the
 * rest together when the tick ends, the server working on the first while
 * the client makes the rest: with 64 calls in flight on Deno that answered
 * about 1.6× the calls per second of one write per tick (`"tick"`) for
 * 0.85× the client CPU per call, and one write per tick costs about two
 * thirds of one write per message (`"each"`, the minimal client the issues
 * first measured with). The requests in flight sit in a ring of slots by
 * id (`pending: "map"`: a `Map`, which costs a busy client GC time, see
 * `src/protocol/_pending.ts`). Reads are framed linearly: the unterminated
 * tail is kept as a list of pieces and joined once when its newline
 * arrives, so a 10 MB line costs one copy. The process API is the runtime's own (`Deno.Command` or
 * `node:child_process`, see `_raw_stdio_deno.ts` / `_raw_stdio_node.ts`).
 * Internal to the benchmarks.
 *
 * @module
 */

import type { RawChild, RawCommand, RawSpawn } from "./_raw_child.ts";
import { MODERN_ENVELOPE, MODERN_VERSION } from "./_modern_wire.ts";

export type { RawChild, RawCommand, RawSpawn };

/** A JSON-RPC result object. */
export type RawResult = Record<string, unknown>;

interface Pending {
  id: number;
  resolve(result: RawResult): void;
  reject(error: Error): void;
}

/** With `"early"` writes, the messages of a tick written at once, before the tick ends. */
const EARLY_WRITE_MESSAGES = 16;
/** Slots of the ring of requests in flight (`pending: "slots"`). */
const RING = 4096;

interface RawResponse {
  id?: number;
  result?: RawResult;
  error?: unknown;
}

/** Which process API to use: the runtime's own (default), or `node:child_process` also on Deno. */
export type RawProcessApi = "native" | "node";

/**
 * How messages are written: the first 16 of a tick at once and the rest
 * when it ends (default), those of one tick together, or one write each.
 */
export type RawWrites = "early" | "tick" | "each";

/**
 * Where the requests in flight are kept by id: a ring of slots (default),
 * or a `Map`, which costs a busy client GC time (see `src/protocol/_pending.ts`).
 */
export type RawPending = "slots" | "map";

/** How to start a {@linkcode RawStdioClient}. */
export interface RawStdioOptions {
  /** Default `"native"`. */
  api?: RawProcessApi;
  /** Default `"early"`. */
  writes?: RawWrites;
  /** Default `"slots"`. */
  pending?: RawPending;
}

async function loadSpawn(api: RawProcessApi): Promise<RawSpawn> {
  const module = "Deno" in globalThis && api === "native"
    ? await import("./_raw_stdio_deno.ts")
    : await import("./_raw_stdio_node.ts");
  return module.spawn;
}

/** One server process and the requests awaiting its answer, by id. */
export class RawStdioClient {
  readonly #child: RawChild;
  /** The requests in flight by id, with `pending: "map"`. */
  readonly #map: Map<number, Pending> | undefined;
  /**
   * The requests in flight, at `id % RING` (`pending: "slots"`): the
   * benchmarks keep at most 64 in flight, far fewer than `RING`.
   */
  readonly #ring: (Pending | undefined)[] | undefined;
  readonly #writes: RawWrites;
  #nextId = 1;
  #parts: string[] = [];
  /** Lines of this tick not yet written (`"early"` and `"tick"` writes). */
  #queue: string[] = [];
  /** A write at the end of this tick is scheduled. */
  #scheduled = false;
  /** This tick's early write was made. */
  #wroteEarly = false;

  private constructor(
    spawn: RawSpawn,
    command: RawCommand,
    writes: RawWrites,
    pending: RawPending,
  ) {
    this.#writes = writes;
    if (pending === "map") this.#map = new Map();
    else this.#ring = new Array(RING).fill(undefined);
    this.#child = spawn(
      command,
      (text) => this.#onText(text),
      () => this.#onEnd(),
    );
  }

  /**
   * Starts the server; call {@linkcode RawStdioClient.prototype.initialize}
   * (2025 era) or {@linkcode RawStdioClient.prototype.discover} (2026-07-28)
   * next.
   *
   * @param options `api: "node"` uses `node:child_process` on Deno too
   * (Deno's own implementation of it), to compare it with `Deno.Command`;
   * `writes: "each"` writes every message at once, on its own.
   */
  static async start(
    command: RawCommand,
    options: RawStdioOptions = {},
  ): Promise<RawStdioClient> {
    return new RawStdioClient(
      await loadSpawn(options.api ?? "native"),
      command,
      options.writes ?? "early",
      options.pending ?? "slots",
    );
  }

  /** The server's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  #onText(chunk: string): void {
    let start = 0;
    let newline = chunk.indexOf("\n");
    while (newline !== -1) {
      let line = chunk.slice(start, newline);
      if (this.#parts.length > 0) {
        this.#parts.push(line);
        line = this.#parts.join("");
        this.#parts = [];
      }
      if (line !== "") this.#onLine(line);
      start = newline + 1;
      newline = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) this.#parts.push(chunk.slice(start));
  }

  #onLine(line: string): void {
    const message = JSON.parse(line) as RawResponse;
    if (typeof message.id !== "number") return;
    const pending = this.#take(message.id);
    if (pending === undefined) return;
    if (message.result !== undefined) pending.resolve(message.result);
    else {
      pending.reject(new Error(`raw: error ${JSON.stringify(message.error)}`));
    }
  }

  #take(id: number): Pending | undefined {
    if (this.#map !== undefined) {
      const pending = this.#map.get(id);
      this.#map.delete(id);
      return pending;
    }
    const pending = this.#ring![id % RING];
    if (pending?.id !== id) return undefined;
    this.#ring![id % RING] = undefined;
    return pending;
  }

  #onEnd(): void {
    const gone = new Error("raw: the server's stdout ended");
    const pending = this.#map === undefined
      ? this.#ring!.filter((slot) => slot !== undefined)
      : [...this.#map.values()];
    this.#map?.clear();
    this.#ring?.fill(undefined);
    for (const request of pending) request.reject(gone);
  }

  /** Sends a request and resolves with its `result`; rejects on an error response. */
  request(method: string, params: Record<string, unknown>): Promise<RawResult> {
    const id = this.#nextId++;
    // Not Promise.withResolvers: Node 20 lacks it.
    const response = new Promise<RawResult>((resolve, reject) => {
      const pending = { id, resolve, reject };
      if (this.#map !== undefined) this.#map.set(id, pending);
      else if (this.#ring![id % RING] === undefined) {
        this.#ring![id % RING] = pending;
      } else reject(new Error(`raw: more than ${RING} requests in flight`));
    });
    this.#write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return response;
  }

  #write(line: string): void {
    if (this.#writes === "each") {
      this.#child.write(line);
      return;
    }
    // The first line of a tick schedules the write of all of them; with
    // "early" writes, the first few go at once.
    const queued = this.#queue.push(line);
    if (queued === 1 && !this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    } else if (
      queued === EARLY_WRITE_MESSAGES && this.#writes === "early" &&
      !this.#wroteEarly
    ) {
      this.#wroteEarly = true;
      this.#flushNow();
    }
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    this.#wroteEarly = false;
    this.#flushNow();
  };

  #flushNow(): void {
    const lines = this.#queue;
    if (lines.length === 0) return;
    this.#queue = [];
    this.#child.write(lines.length === 1 ? lines[0]! : lines.join(""));
  }

  /** The MCP handshake: `initialize`, then `notifications/initialized`. */
  async initialize(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench-raw", version: "0" },
    });
    this.#write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /**
   * The 2026-07-28 opening instead of the handshake: one `server/discover`,
   * checked to name the revision. Later requests carry the envelope in
   * their `params._meta` (see `_modern_wire.ts`).
   */
  async discover(): Promise<void> {
    const result = await this.request("server/discover", {
      _meta: MODERN_ENVELOPE,
    });
    const versions = result.supportedVersions;
    if (!Array.isArray(versions) || !versions.includes(MODERN_VERSION)) {
      throw new Error(
        `raw: server/discover answered ${JSON.stringify(result)}`,
      );
    }
  }

  /** Closes stdin (the server then exits); SIGKILL if it has not exited in `timeoutMs`. */
  async close(timeoutMs = 2_000): Promise<void> {
    this.#child.closeStdin();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      this.#child.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(resolve, timeoutMs, false);
      }),
    ]);
    clearTimeout(timer);
    if (exited) return;
    this.#child.kill();
    await Promise.race([
      this.#child.exited,
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
