/**
 * The ceiling of the HTTP rows of `client_bench.ts`: a minimal streamable
 * HTTP client. Each request is one `fetch` POST carrying the session id;
 * the answer is read whole with `text()` and parsed as JSON, or, when the
 * server answered `text/event-stream`, the data lines of its one event are
 * taken out first. No validation, deadlines, resumption, GET stream or
 * retries, and, unless asked for, no abort signal. Internal to the
 * benchmarks.
 *
 * @module
 */

/** A JSON-RPC result object. */
export type RawResult = Record<string, unknown>;

/** The data of the first event of an SSE body (its `data:` lines, joined). */
function firstEventData(body: string): string {
  const end = body.indexOf("\n\n");
  const lines = (end === -1 ? body : body.slice(0, end)).split("\n");
  const data: string[] = [];
  for (const line of lines) {
    if (line.startsWith("data:")) {
      data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
    }
  }
  return data.join("\n");
}

/** One session with a streamable HTTP endpoint. */
export class RawHttpClient {
  readonly #url: string;
  #headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  #nextId = 1;
  readonly #signal: boolean;

  /**
   * Nothing is sent until {@linkcode RawHttpClient.prototype.initialize}.
   *
   * @param signal Give each request an abort signal of its own.
   */
  constructor(url: string, signal = false) {
    this.#url = url;
    this.#signal = signal;
  }

  /** Sends a request and resolves with its `result`; rejects on an error response. */
  async request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<RawResult> {
    const id = this.#nextId++;
    const init: RequestInit = {
      method: "POST",
      headers: this.#headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    };
    if (this.#signal) init.signal = new AbortController().signal;
    const response = await fetch(this.#url, init);
    const session = response.headers.get("mcp-session-id");
    if (session !== null) {
      this.#headers = { ...this.#headers, "mcp-session-id": session };
    }
    const body = await response.text();
    if (!response.ok) {
      throw new Error(`raw: ${method} got HTTP ${response.status}: ${body}`);
    }
    const sse = response.headers.get("content-type")?.startsWith(
      "text/event-stream",
    );
    const message = JSON.parse(sse ? firstEventData(body) : body) as {
      id?: number;
      result?: RawResult;
    };
    if (message.id !== id || message.result === undefined) {
      throw new Error(`raw: ${method} failed: ${JSON.stringify(message)}`);
    }
    return message.result;
  }

  /** The MCP handshake: `initialize`, then `notifications/initialized`. */
  async initialize(): Promise<void> {
    const result = await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench-raw", version: "0" },
    });
    this.#headers = {
      ...this.#headers,
      "mcp-protocol-version": String(result.protocolVersion),
    };
    const response = await fetch(this.#url, {
      method: "POST",
      headers: this.#headers,
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    });
    await response.body?.cancel();
  }
}
