/**
 * The ceiling of the stdio rows of `client_bench.ts`: a minimal MCP client
 * that writes newline-delimited JSON-RPC to a server's stdin and matches the
 * lines of its stdout to requests by id. No validation, deadlines, progress
 * tokens or write ordering beyond what the pipe gives. By default the
 * messages of one tick go out in one write (`"tick"`): with many calls in
 * flight on Deno that costs about two thirds of the client CPU of one write
 * per message (`"each"`, the minimal client the issues measured with).
 * Reads are framed linearly: the unterminated tail is kept as a list of
 * pieces and joined once when its newline arrives, so a 10 MB line costs
 * one copy. The process API is the runtime's own (`Deno.Command` or
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
  resolve(result: RawResult): void;
  reject(error: Error): void;
}

interface RawResponse {
  id?: number;
  result?: RawResult;
  error?: unknown;
}

/** Which process API to use: the runtime's own (default), or `node:child_process` also on Deno. */
export type RawProcessApi = "native" | "node";

/** How messages are written: those of one tick together (default), or one write each. */
export type RawWrites = "tick" | "each";

/** How to start a {@linkcode RawStdioClient}. */
export interface RawStdioOptions {
  /** Default `"native"`. */
  api?: RawProcessApi;
  /** Default `"tick"`. */
  writes?: RawWrites;
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
  readonly #pending = new Map<number, Pending>();
  readonly #eachWrite: boolean;
  #nextId = 1;
  #parts: string[] = [];
  /** Lines of this tick not yet written (`"tick"` writes). */
  #queue: string[] = [];

  private constructor(
    spawn: RawSpawn,
    command: RawCommand,
    writes: RawWrites,
  ) {
    this.#eachWrite = writes === "each";
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
      options.writes ?? "tick",
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
    if (message.id === undefined) return;
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id);
    if (message.result !== undefined) pending.resolve(message.result);
    else {
      pending.reject(new Error(`raw: error ${JSON.stringify(message.error)}`));
    }
  }

  #onEnd(): void {
    const gone = new Error("raw: the server's stdout ended");
    for (const pending of this.#pending.values()) pending.reject(gone);
    this.#pending.clear();
  }

  /** Sends a request and resolves with its `result`; rejects on an error response. */
  request(method: string, params: Record<string, unknown>): Promise<RawResult> {
    const id = this.#nextId++;
    // Not Promise.withResolvers: Node 20 lacks it.
    const response = new Promise<RawResult>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    this.#write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return response;
  }

  #write(line: string): void {
    if (this.#eachWrite) {
      this.#child.write(line);
      return;
    }
    // The first line of a tick schedules the write of all of them.
    if (this.#queue.push(line) === 1) queueMicrotask(this.#flush);
  }

  readonly #flush = (): void => {
    const lines = this.#queue;
    this.#queue = [];
    this.#child.write(lines.length === 1 ? lines[0]! : lines.join(""));
  };

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
