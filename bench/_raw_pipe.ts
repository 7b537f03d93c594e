/**
 * The ceiling of the stdio benchmark (`invoke_bench.ts`): a minimal MCP
 * client that writes newline-delimited JSON-RPC to a server's stdin and
 * matches the lines of its stdout to requests by id; no validation,
 * deadlines or progress tokens. Internal to the benchmarks.
 *
 * @module
 */

const CLOSE_TIMEOUT_MS = 2_000;

/** One server process and the requests awaiting its answer, by id. */
export class RawPipe {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, PromiseWithResolvers<Record<string, unknown>>>();
  #nextId = 1;
  #encoder = new TextEncoder();
  #reading: Promise<void>;

  /** Starts the server; call {@linkcode RawPipe.prototype.initialize} next. */
  constructor(server: { command: string; args: string[]; cwd: string }) {
    this.#child = new Deno.Command(server.command, {
      args: server.args,
      cwd: server.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
    // A read failure reaches the callers through their pending requests.
    this.#reading.catch(() => {});
  }

  async #read(): Promise<void> {
    let buffer = "";
    const text = this.#child.stdout.pipeThrough(new TextDecoderStream());
    try {
      for await (const chunk of text) {
        const lines = (buffer + chunk).split("\n");
        buffer = lines.pop()!;
        for (const line of lines) {
          if (line === "") continue;
          const message = JSON.parse(line);
          this.#pending.get(message.id)?.resolve(message);
          this.#pending.delete(message.id);
        }
      }
    } finally {
      const gone = new Error("raw: the server's stdout ended");
      for (const pending of this.#pending.values()) pending.reject(gone);
      this.#pending.clear();
    }
  }

  /** Sends a request and resolves with its `result`; rejects on an error response. */
  async request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const response = Promise.withResolvers<Record<string, unknown>>();
    this.#pending.set(id, response);
    await this.#write({ jsonrpc: "2.0", id, method, params });
    const message = await response.promise;
    if (!("result" in message)) {
      throw new Error(`raw: ${method} failed: ${JSON.stringify(message)}`);
    }
    return message.result as Record<string, unknown>;
  }

  #write(message: Record<string, unknown>): Promise<void> {
    return this.#writer.write(
      this.#encoder.encode(JSON.stringify(message) + "\n"),
    );
  }

  /** The MCP handshake: `initialize`, then `notifications/initialized`. */
  async initialize(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench-raw", version: "0" },
    });
    await this.#write({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** Closes stdin (the server then exits); SIGKILL if it has not exited in time. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      this.#child.status.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(resolve, CLOSE_TIMEOUT_MS, false);
      }),
    ]);
    clearTimeout(timer);
    if (!exited) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // Exited meanwhile.
      }
      await this.#child.status;
    }
    await this.#reading.catch(() => {});
  }
}
