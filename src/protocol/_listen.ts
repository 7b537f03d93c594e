/**
 * `subscriptions/listen` (MCP 2026-07-28): there is no session to push
 * changes on, so the client opens a listen with a filter of what it wants
 * (`toolsListChanged`, `resourcesListChanged`, `promptsListChanged`,
 * `resourceSubscriptions`) and keeps it open. On stdio its notifications
 * share the channel and are told apart by
 * `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's
 * id); on HTTP they come on the listen POST's own SSE stream. A
 * subscription the server ends (its final response, or its
 * `notifications/cancelled`) or a stream that breaks is opened again, and
 * since changes may have been missed meanwhile, its owner is told so once
 * the new one is acknowledged. The connection keeps one for tool-list
 * changes (opened with the first modern connection to a server that
 * announces `tools.listChanged`) and opens others for resources and
 * prompts (`Connection.listen()`). Internal.
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
import { errorMessage } from "../util/caught.ts";
import { isRecord } from "../util/values.ts";
import { META_SUBSCRIPTION_ID } from "./era.ts";
import type { Session } from "./session.ts";

/** Listens in a row the server ends before acknowledging them, then it gives up. */
const MAX_FAILURES = 5;
/** The pause before the n-th attempt in a row: 0, 1, 2, 4, 8… seconds. */
const backoffMs = (failures: number) =>
  failures === 0 ? 0 : 1000 * 2 ** (failures - 1);

/** What a listen asks for (the spec's `SubscriptionFilter`). */
export interface SubscriptionFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

/** What a subscription needs from its owner. */
export interface ListenOptions {
  /** What to ask for. */
  filter: SubscriptionFilter;
  /** What it follows, for messages: "tool-list changes". */
  what: string;
  /** What to do when it is not followed: "call discoverTools() to see its current tools". */
  instead: string;
  /** A notification of the subscription, other than its acknowledgement. */
  onNotification: (notification: JSONRPCNotification) => void;
  /**
   * What the server agreed to, with every acknowledgement; a problem
   * returned ends the subscription (told to `onError`).
   */
  onAcknowledged?: (honored: SubscriptionFilter) => string | undefined;
  /** An acknowledged listen ended and a new one is acknowledged: changes may have been missed. */
  onMissed: () => void;
  /** The subscription stopped for good (refused, or never acknowledged), and why. */
  onGaveUp?: (error: Error) => void;
}

/** What a subscription needs from its connection. */
export interface ListenContext extends ListenOptions {
  /** The modern session it lives in; it ends with it. */
  session: Session;
  /** Names the server in messages. */
  label: string;
  /** Notes that are not failures of a call: the subscription gave up, say. */
  onError: ((error: Error) => void) | undefined;
}

/** The tool-list subscription's options: tool-list changes only. */
export function toolsListen(onToolsChanged: () => void): ListenOptions {
  return {
    filter: { toolsListChanged: true },
    what: "tool-list changes",
    instead: "call discoverTools() to see its current tools",
    onNotification: (notification) => {
      if (notification.method === "notifications/tools/list_changed") {
        onToolsChanged();
      }
    },
    // The server will not send them: stop asking.
    onAcknowledged: (honored) =>
      honored.toolsListChanged === true
        ? undefined
        : "acknowledged the subscription without tool-list changes",
    onMissed: onToolsChanged,
  };
}

/**
 * Opens a subscription and keeps it in `listens` (its connection's, which
 * routes notifications to them), forgetting those that ended; one whose
 * session is no longer `live` is closed at once.
 */
export function openListen(
  listens: Set<Subscription>,
  context: ListenContext,
  live: boolean,
): Subscription {
  for (const listen of listens) if (listen.closed) listens.delete(listen);
  const subscription = new Subscription(context);
  if (live) listens.add(subscription);
  else subscription.close();
  return subscription;
}

/** One `subscriptions/listen`, kept open for its session's life or until closed. */
export class Subscription {
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
   * Takes a notification of this subscription's listen in flight; returns
   * whether it was one (the connection drops those of listens that ended,
   * and handles the rest).
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
    if (
      this.#id === undefined || !isRecord(meta) ||
      meta[META_SUBSCRIPTION_ID] !== this.#id
    ) return false;
    if (notification.method === "notifications/subscriptions/acknowledged") {
      this.#acknowledged(params!.notifications);
    } else this.#context.onNotification(notification);
    return true;
  }

  /** Whether it was closed, or gave up. */
  get closed(): boolean {
    return this.#closed;
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
    session.request("subscriptions/listen", {
      notifications: this.#context.filter,
    }, {
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
    const problem = this.#context.onAcknowledged?.(
      isRecord(honored) ? honored : {},
    );
    if (problem !== undefined) {
      this.#giveUp(problem);
      return;
    }
    this.#failures = 0;
    if (this.#missed) {
      this.#missed = false;
      this.#context.onMissed();
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
      this.#giveUp(`refused it: ${error.message} (code ${error.rpcCode})`);
      return;
    }
    if (acked) this.#missed = true;
    else {
      this.#failures++;
      const transport = error instanceof MCPConnectionError ||
        error instanceof MCPRequestLostError;
      if (!transport && this.#failures >= MAX_FAILURES) {
        this.#giveUp(
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

  /** Stops for good, and says why. */
  #giveUp(problem: string): void {
    this.close();
    const { label, what, instead } = this.#context;
    const error = new Error(
      `MCP server "${label}" ${problem}; ${what} are not followed: ${instead}`,
    );
    this.#context.onGaveUp?.(error);
    this.#context.onError?.(error);
  }
}
