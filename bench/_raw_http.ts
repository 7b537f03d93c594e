/**
 * The ceiling of the HTTP rows of `client_bench.ts`: a minimal streamable
 * HTTP client. Each request is one `fetch` POST carrying the session id;
 * the answer is read whole with `text()` and parsed as JSON, or, when the
 * server answered `text/event-stream`, the data lines of its one event are
 * taken out first. No validation, deadlines, resumption, GET stream or
 * retries, and, unless asked for, no abort signal. Speaks the 2025 era
 * (`initialize`, a session id) or 2026-07-28 (`discover`, the headers of
 * `_modern_wire.ts`, no session). Internal to the benchmarks.
 *
 * @module
 */

import { MODERN_ENVELOPE, MODERN_VERSION } from "./_modern_wire.ts";

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

  /**
   * Sends a request and resolves with its `result`; rejects on an error
   * response.
   *
   * @param headers This request's own headers (2026-07-28: `Mcp-Method`,
   * `Mcp-Name`), sent beside the client's.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<RawResult> {
    const id = this.#nextId++;
    const init: RequestInit = {
      method: "POST",
      headers: headers === undefined
        ? this.#headers
        : { ...this.#headers, ...headers },
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

  /**
   * The 2026-07-28 opening instead of the handshake: every later POST
   * carries `MCP-Protocol-Version`, and one `server/discover` checks that
   * the server speaks it. No session.
   */
  async discover(): Promise<void> {
    this.#headers = {
      ...this.#headers,
      "mcp-protocol-version": MODERN_VERSION,
    };
    const result = await this.request("server/discover", {
      _meta: MODERN_ENVELOPE,
    }, { "mcp-method": "server/discover" });
    const versions = result.supportedVersions;
    if (!Array.isArray(versions) || !versions.includes(MODERN_VERSION)) {
      throw new Error(
        `raw: server/discover answered ${JSON.stringify(result)}`,
      );
    }
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
