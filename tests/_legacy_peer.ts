/**
 * A scripted 2025-era MCP peer in the test process, for what a real server
 * cannot be made to do on demand: it answers `initialize` (2025-11-25) and
 * `tools/list` (one tool, `echo`, taking a string `text`) on the next
 * microtask, other requests with "method not found" (as a 2025 server
 * answers the modern probe), and hands each `tools/call` to `onCall`,
 * which may hold it, answer it through `answer()` or throw.
 */
import type { JSONRPCMessage, MCPTransport } from "@cleveragents/mcp-adapter";

/** The one tool the peer lists: `echo`, taking a string `text`. */
export const ECHO_TOOL = {
  name: "echo",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
};

/**
 * A 2025-era server's answer (`result` or `error`) to a request other than
 * `tools/call`: `initialize` (2025-11-25), `tools/list` (`echo`), and
 * "method not found" for anything else, as a 2025 server answers the
 * modern probe.
 */
export function legacyAnswer(method: string): Record<string, unknown> {
  if (method === "initialize") {
    return {
      result: {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "legacy-peer", version: "1" },
      },
    };
  }
  if (method === "tools/list") return { result: { tools: [ECHO_TOOL] } };
  return { error: { code: -32601, message: "Method not found" } };
}

/** A `tools/call` as the peer got it. */
export interface HeldCall {
  id: unknown;
  text: unknown;
}

export class LegacyPeer implements MCPTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly #onCall: (call: HeldCall) => void;

  /** @param onCall What a `tools/call` does; what it throws, `send()` throws. */
  constructor(onCall: (call: HeldCall) => void) {
    this.#onCall = onCall;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!("method" in message) || !("id" in message)) {
      return Promise.resolve();
    }
    const { id, method, params } = message as {
      id: unknown;
      method: string;
      params?: { arguments?: { text?: unknown } };
    };
    if (method === "tools/call") {
      this.#onCall({ id, text: params?.arguments?.text });
      return Promise.resolve();
    }
    const body = legacyAnswer(method);
    queueMicrotask(() => this.answer(id, body));
    return Promise.resolve();
  }

  /** Delivers a response to request `id` now, in this turn. */
  answer(id: unknown, body: Record<string, unknown>): void {
    this.onmessage?.({ jsonrpc: "2.0", id, ...body } as JSONRPCMessage);
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}
