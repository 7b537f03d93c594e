/**
 * A scripted modern (2026-07-28) server on 127.0.0.1: JSON-RPC over plain
 * HTTP POSTs answered with JSON, no SDK, so a test can send what no SDK
 * server would (capabilities of both eras, a task that never stops asking,
 * an input request of kind `constructor`). It answers `server/discover`
 * and `tools/list` from its script and every other request from
 * `script.answer`; it records every request it saw.
 *
 * @module
 */

import { listen, type TestHttpServer } from "../_remote.ts";
import type { Cleanup } from "../_helpers.ts";

const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/**
 * A result (`resultType: "complete"` is added when absent), or a JSON-RPC
 * error: an `error` without a `resultType` (a failed task's report, which
 * holds an `error` too, names its `resultType`).
 */
export type PeerAnswer =
  | Record<string, unknown>
  | { error: { code: number; message: string; data?: unknown } };

/** What the peer says. */
export interface PeerScript {
  /** The capabilities in `server/discover`. Default `{ tools: {} }`. */
  capabilities?: Record<string, unknown>;
  /** The `instructions` in `server/discover`. */
  instructions?: string;
  /** The tools of `tools/list`. */
  tools?: Record<string, unknown>[];
  /**
   * The answer to any other request: its method, params and how many
   * requests of that method came so far (this one included). `undefined`
   * answers "method not found" (`tools/list`: `tools`).
   */
  answer?: (
    method: string,
    params: Record<string, unknown>,
    count: number,
  ) => PeerAnswer | undefined | Promise<PeerAnswer | undefined>;
}

/** One request the peer saw. */
export interface PeerRequest {
  method: string;
  params: Record<string, unknown>;
  /** `performance.now()` when it arrived. */
  at: number;
}

/** A listening scripted peer. */
export interface ModernPeer {
  /** The MCP endpoint. */
  url: string;
  /** Every request, in arrival order. */
  requests: PeerRequest[];
  /** The requests of one method. */
  of(method: string): PeerRequest[];
  server: TestHttpServer;
}

/** Starts a scripted modern peer; its close is pushed to `cleanups`. */
export async function modernPeer(
  script: PeerScript,
  cleanups: Cleanup[],
): Promise<ModernPeer> {
  const requests: PeerRequest[] = [];
  const counts = new Map<string, number>();
  const server = await listen(async (_req, res, body) => {
    const message = body as {
      id?: string | number;
      method?: string;
      params?: Record<string, unknown>;
    };
    if (typeof message?.method !== "string") {
      res.writeHead(202).end();
      return;
    }
    const { method, id } = message;
    const params = message.params ?? {};
    requests.push({ method, params, at: performance.now() });
    if (id === undefined) {
      res.writeHead(202).end(); // a notification
      return;
    }
    const count = (counts.get(method) ?? 0) + 1;
    counts.set(method, count);
    let answer: PeerAnswer | undefined;
    if (method === "server/discover") {
      answer = {
        supportedVersions: ["2026-07-28"],
        capabilities: script.capabilities ?? { tools: {} },
        ...(script.instructions === undefined
          ? {}
          : { instructions: script.instructions }),
        _meta: { [SERVER_INFO]: { name: "scripted", version: "1" } },
      };
    } else {
      answer = await script.answer?.(method, params, count);
      if (answer === undefined && method === "tools/list") {
        answer = { tools: script.tools ?? [], ttlMs: 60_000 };
      }
    }
    const reply = answer === undefined
      ? { error: { code: -32601, message: `Method not found: ${method}` } }
      : "error" in answer && !("resultType" in answer)
      ? { error: answer.error }
      : { result: { resultType: "complete", ...answer } };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id, ...reply }));
  });
  cleanups.push(() => server.close());
  return {
    url: `${server.origin}/mcp`,
    requests,
    of: (method) => requests.filter((request) => request.method === method),
    server,
  };
}
