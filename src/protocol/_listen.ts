/**
 * Tool-list changes from a modern server (MCP 2026-07-28): there is no
 * session to push them on, so the client opens `subscriptions/listen` with
 * `{ toolsListChanged: true }` and keeps it open. On stdio its
 * notifications share the channel and are told apart by
 * `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's
 * id); on HTTP they come on the listen POST's own SSE stream. A
 * subscription the server ends (its final response, or its
 * `notifications/cancelled`) or a stream that breaks is opened again, and
 * since changes may have been missed meanwhile, the tool list counts as
 * changed once the new one is acknowledged. Loaded with the first modern
 * connection to a server that announces `tools.listChanged`. Internal.
 *
 * @module
 */

import {
  MCPConnectionError,
  MCPProtocolError,
  MCPRequestLostError,
} from "../errors.ts";
import type {
  JSONRPCNotification,
  RequestId,
} from "../transports/transport.ts";
import { errorMessage } from "../util/errors.ts";
import { isRecord } from "../util/values.ts";
import { META_SUBSCRIPTION_ID } from "./era.ts";
import type { Session } from "./session.ts";

/** What is subscribed to: tool-list changes only. */
const FILTER = { toolsListChanged: true } as const;
/** Listens in a row the server ends before acknowledging them, then it gives up. */
const MAX_FAILURES = 5;
/** The pause before the n-th attempt in a row: 0, 1, 2, 4, 8… seconds. */
const backoffMs = (failures: number) =>
  failures === 0 ? 0 : 1000 * 2 ** (failures - 1);

/** What a subscription needs from its connection. */
export interface ListenContext {
  /** The modern session it lives in; it ends with it. */
  session: Session;
  /** Names the server in messages. */
  label: string;
  /** The server's tool list may have changed. */
  onToolsChanged: () => void;
  /** Notes that are not failures of a call: the subscription gave up, say. */
  onError: ((error: Error) => void) | undefined;
}

/** One `subscriptions/listen` for tool-list changes, kept open for its session's life. */
export class ToolsSubscription {
  readonly #context: ListenContext;
  /** The id of the listen request in flight: its notifications carry it. */
  #id: RequestId | undefined;
  #abort: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Listens in a row that ended before their acknowledgement. */
  #failures = 0;
  /** Whether an acknowledged listen ended: changes may have been missed. */
  #missed = false;
  /** Whether the listen in flight was acknowledged. */
  #acked = false;
  #closed = false;
  #settleReady!: () => void;
  /**
   * Settles (never rejects) once the first listen is acknowledged, or has
   * ended, or the subscription is closed: from then on changes are followed.
   */
  readonly ready: Promise<void> = new Promise((resolve) =>
    this.#settleReady = resolve
  );

  /** Opens the subscription at once. */
  constructor(context: ListenContext) {
    this.#context = context;
    this.#open();
  }

  /**
   * Takes a notification that belongs to a subscription; returns whether
   * it did (the connection handles the rest). A notification of an earlier
   * listen of ours is dropped.
   */
  handle(notification: JSONRPCNotification): boolean {
    const params = notification.params;
    if (notification.method === "notifications/cancelled") {
      // The server ends the subscription.
      if (this.#id === undefined || params?.requestId !== this.#id) {
        return false;
      }
      this.#restart();
      return true;
    }
    const meta = params?._meta;
    if (!isRecord(meta) || !(META_SUBSCRIPTION_ID in meta)) return false;
    if (meta[META_SUBSCRIPTION_ID] !== this.#id || this.#id === undefined) {
      return true;
    }
    if (notification.method === "notifications/subscriptions/acknowledged") {
      this.#acknowledged(params!.notifications);
    } else if (notification.method === "notifications/tools/list_changed") {
      this.#context.onToolsChanged();
    }
    return true;
  }

  /** Ends the subscription; the stream is closed (stdio: the server is told). */
  close(): void {
    this.#closed = true;
    this.#settleReady();
    clearTimeout(this.#timer);
    this.#abort?.abort();
  }

  #open(): void {
    const { session } = this.#context;
    if (this.#closed || session.closed) return;
    const abort = new AbortController();
    this.#abort = abort;
    let id: RequestId | undefined;
    session.request("subscriptions/listen", { notifications: FILTER }, {
      timeoutMs: Infinity,
      background: true,
      signal: abort.signal,
      onId: (sent) => this.#id = id = sent,
    }).then(
      () => this.#ended(id, undefined),
      (error) => this.#ended(id, error),
    );
  }

  #acknowledged(honored: unknown): void {
    if (!isRecord(honored) || honored.toolsListChanged !== true) {
      // The server will not send them: stop asking.
      this.#note(
        "acknowledged the subscription without tool-list changes",
      );
      this.close();
      return;
    }
    this.#failures = 0;
    if (this.#missed) {
      this.#missed = false;
      this.#context.onToolsChanged();
    }
    this.#acked = true;
    this.#settleReady();
  }

  /** Ends the listen in flight and opens another. */
  #restart(): void {
    const abort = this.#abort;
    this.#abort = undefined;
    abort?.abort();
  }

  /**
   * The listen `id` ended: by its response (`error` undefined), a failure,
   * or us. It is opened again unless the server refused it, or kept ending
   * it before acknowledging; a transport that fails (a server restarting)
   * is tried again and again, the pauses growing to 30 s.
   */
  #ended(id: RequestId | undefined, error: unknown): void {
    if (id !== this.#id) return;
    this.#id = undefined;
    const acked = this.#acked;
    this.#acked = false;
    this.#settleReady();
    if (this.#closed || this.#context.session.closed) return;
    if (error instanceof MCPProtocolError) {
      // Refused (unknown method, too many subscriptions): asking again will not help.
      this.#note(`refused it: ${error.message} (code ${error.rpcCode})`);
      return;
    }
    if (acked) this.#missed = true;
    else {
      this.#failures++;
      const transport = error instanceof MCPConnectionError ||
        error instanceof MCPRequestLostError;
      if (!transport && this.#failures >= MAX_FAILURES) {
        this.#note(
          `ended it ${MAX_FAILURES} times in a row before acknowledging it${
            error === undefined ? "" : ` (last: ${errorMessage(error)})`
          }`,
        );
        return;
      }
    }
    // An acknowledged listen that ended waits a second: a server ending
    // every subscription at once cannot make the client spin.
    const pause = acked ? 1000 : Math.min(30_000, backoffMs(this.#failures));
    this.#timer = setTimeout(() => this.#open(), pause);
  }

  #note(what: string): void {
    this.#context.onError?.(
      new Error(
        `MCP server "${this.#context.label}" ${what}; tool-list changes are not followed: call discoverTools() to see its current tools`,
      ),
    );
  }
}
