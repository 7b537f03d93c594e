/**
 * Change notices of resources and prompts, one listener API on both eras.
 * A 2025-era server is asked with `resources/subscribe` per URI and pushes
 * `notifications/resources/updated` and the `list_changed` notifications
 * unasked. A modern one (2026-07-28) has no session to push on: one
 * `subscriptions/listen` carries every subscribed URI
 * (`resourceSubscriptions`) and the list changes of the lists listed so
 * far; when that set changes, a new listen is opened and acknowledged
 * before the old one is closed, so no notice falls between them. After a
 * reconnect, a renewed session or a listen that broke, every subscription
 * is made again and its listeners are told their resource may have
 * changed: notices may have been missed. Internal.
 *
 * @module
 */

import { MCPAdapterError, MCPTimeoutError } from "../errors.ts";
import type {
  Subscription,
  SubscriptionFilter,
  ToolsChangeReason,
} from "../protocol/connection.ts";
import type { JSONRPCNotification } from "../transports/transport.ts";
import type { MCPListKind } from "../protocol/content_types.ts";
import { asError } from "../util/caught.ts";
import { SerialQueue } from "../util/serial_queue.ts";
import { race } from "../util/time.ts";
import { isRecord } from "../util/values.ts";
import type { ContentContext } from "./_context.ts";
import { quoted } from "../util/quoted.ts";

/** The most resources one adapter may follow: every URI rides on each listen. */
export const MAX_SUBSCRIPTIONS = 1000;
/**
 * How long listing waits for a modern server to acknowledge that it will
 * announce changes: as long as `connect()` waits for the tools'.
 */
const FOLLOW_ACK_MS = 1000;

type Listener = (uri: string) => void;

/** The open modern listen, and what it asked for. */
interface Listen {
  subscription: Subscription;
  /** Its filter as JSON, to tell whether a new one differs. */
  key: string;
  /** What the server agreed to, once it acknowledged; why it gave up, if it did. */
  state: { honored?: SubscriptionFilter; gaveUp?: Error };
}

/** The change notices of one adapter's resources and prompts. */
export class Updates {
  readonly #context: ContentContext;
  /** Tells the lists that one changed (they forget themselves). */
  readonly #onList: (kind: MCPListKind) => void;
  readonly #listeners = new Map<string, Set<Listener>>();
  /** The lists listed: a modern listen carries their changes. */
  readonly #followed = new Set<MCPListKind>();
  /** 2025 era: the URIs the live session subscribed to. */
  readonly #subscribed = new Set<string>();
  #listen: Listen | undefined;
  /** Subscribing, unsubscribing and listening again, one at a time. */
  readonly #queue = new SerialQueue();

  constructor(context: ContentContext, onList: (kind: MCPListKind) => void) {
    this.#context = context;
    this.#onList = onList;
  }

  get #modern(): boolean {
    return this.#context.connection.serverInfo?.era === "modern";
  }

  /**
   * Follows changes to resource `uri`: `listener` is called with it each
   * time the server says it changed, and when it may have (after a
   * reconnect). Resolves once the server agreed.
   *
   * @returns Stops following (the server is told when no listener is left).
   * @throws {MCPAdapterError} `not_supported` when the server does not
   * offer resource subscriptions or would not follow this URI;
   * `too_many_subscriptions` past {@linkcode MAX_SUBSCRIPTIONS} URIs.
   * @throws {MCPTimeoutError} When a modern server does not acknowledge in time.
   * @throws {MCPNotConnectedError} When not connected.
   */
  async subscribe(
    uri: string,
    listener: Listener,
    timeoutMs: number,
  ): Promise<() => Promise<void>> {
    const { connection, server } = this.#context;
    await connection.whenReady("subscribe to a resource");
    const resources = connection.serverInfo?.capabilities.resources;
    if (!isRecord(resources) || resources.subscribe !== true) {
      throw new MCPAdapterError(
        "not_supported",
        `MCP server "${server}" does not offer resource subscriptions (capabilities.resources.subscribe); read ${
          quoted(uri)
        } again when you need it`,
      );
    }
    await this.#queue.run(async () => {
      const listeners = this.#listeners.get(uri);
      if (listeners !== undefined) {
        listeners.add(listener);
        return;
      }
      if (this.#listeners.size >= MAX_SUBSCRIPTIONS) {
        throw new MCPAdapterError(
          "too_many_subscriptions",
          `Cannot follow ${
            quoted(uri)
          }: this adapter follows ${MAX_SUBSCRIPTIONS} resources of MCP server "${server}" already; unsubscribe from some first`,
        );
      }
      this.#listeners.set(uri, new Set([listener]));
      try {
        await this.#follow(uri, timeoutMs);
      } catch (error) {
        this.#listeners.delete(uri);
        if (this.#modern) await this.#relisten(timeoutMs).catch(() => {});
        throw error;
      }
    });
    let done = false;
    return () => {
      if (done) return Promise.resolve();
      done = true;
      return this.#queue.run(() => this.#unsubscribe(uri, listener));
    };
  }

  /** Asks the server for `uri`'s changes, on the session's era. */
  async #follow(uri: string, timeoutMs: number): Promise<void> {
    const { connection, server } = this.#context;
    if (!this.#modern) {
      await connection.request("resources/subscribe", { uri }, { timeoutMs });
      this.#subscribed.add(uri);
      return;
    }
    const honored = await this.#relisten(timeoutMs);
    if (!honored?.resourceSubscriptions?.includes(uri)) {
      throw new MCPAdapterError(
        "not_supported",
        `MCP server "${server}" did not acknowledge changes of ${
          quoted(uri)
        } in its subscriptions/listen; read it again when you need it`,
      );
    }
  }

  async #unsubscribe(uri: string, listener: Listener): Promise<void> {
    const listeners = this.#listeners.get(uri);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.#listeners.delete(uri);
    const { connection } = this.#context;
    if (this.#modern) {
      await this.#relisten(this.#context.requestTimeoutMs);
    } else if (this.#subscribed.delete(uri) && connection.connected) {
      await connection.request("resources/unsubscribe", { uri }, {
        timeoutMs: this.#context.requestTimeoutMs,
      });
    }
  }

  /**
   * Follows the changes of a list about to be listed: a 2025-era server
   * announces them unasked; a modern one is asked on the listen, and has
   * a second to acknowledge (as for the tools at connect).
   */
  async followList(kind: MCPListKind): Promise<void> {
    if (this.#followed.has(kind) || !this.#modern) {
      this.#followed.add(kind);
      return;
    }
    this.#followed.add(kind);
    await this.#queue.run(async () => {
      await this.#relisten(FOLLOW_ACK_MS).catch((error) => {
        // Slow to acknowledge: the listen stays open and counts once it does.
        if (!(error instanceof MCPTimeoutError)) {
          this.#context.onError?.(asError(error));
        }
      });
    });
  }

  /** The filter the modern listen should have now. */
  #wanted(): SubscriptionFilter {
    const capabilities = this.#context.connection.serverInfo?.capabilities;
    const filter: SubscriptionFilter = {};
    const announces = (name: string) => {
      const capability = capabilities?.[name];
      return isRecord(capability) && capability.listChanged === true;
    };
    if (this.#followed.has("resources") && announces("resources")) {
      filter.resourcesListChanged = true;
    }
    if (this.#followed.has("prompts") && announces("prompts")) {
      filter.promptsListChanged = true;
    }
    if (this.#listeners.size > 0) {
      filter.resourceSubscriptions = [...this.#listeners.keys()].sort();
    }
    return filter;
  }

  /**
   * Opens a listen with the filter wanted now, unless the open one has it;
   * closes the old one once the new one is acknowledged (or failed).
   *
   * @returns What the server agreed to.
   * @throws {MCPTimeoutError} When it is not acknowledged within `timeoutMs`.
   */
  async #relisten(timeoutMs: number): Promise<SubscriptionFilter | undefined> {
    const filter = this.#wanted();
    const key = JSON.stringify(filter);
    const open = this.#listen;
    if (open !== undefined && !open.subscription.closed && open.key === key) {
      return open.state.honored;
    }
    if (key === "{}") {
      this.#listen = undefined;
      open?.subscription.close();
      return {};
    }
    const state: Listen["state"] = {};
    const subscription = await this.#context.connection.listen({
      filter,
      what: "resource and prompt changes",
      instead: "read or list them again to see the current ones",
      onNotification: (notification) => this.notice(notification),
      onAcknowledged: (honored) => {
        state.honored = honored;
        return undefined;
      },
      onMissed: () => this.#missed(true),
      onGaveUp: (error) => state.gaveUp = error,
    });
    if (subscription === undefined) return undefined; // a 2025-era session
    this.#listen = { subscription, key, state };
    // The old listen goes once the new one follows: nothing falls between.
    await race(subscription.ready, { timeoutMs }).catch(() => {});
    open?.subscription.close();
    if (state.honored === undefined && state.gaveUp === undefined) {
      throw new MCPTimeoutError(
        `MCP server "${this.#context.server}" did not acknowledge subscriptions/listen within ${timeoutMs} ms`,
        timeoutMs,
      );
    }
    return state.honored;
  }

  /**
   * A notification about resources or prompts, from the session (2025
   * era) or from the listen: updates of subscribed URIs go to their
   * listeners, list changes to the lists.
   */
  notice(notification: JSONRPCNotification): void {
    const { method, params } = notification;
    if (method === "notifications/resources/updated") {
      const uri = params?.uri;
      const listeners = typeof uri === "string"
        ? this.#listeners.get(uri)
        : undefined;
      if (listeners !== undefined) this.#tell(listeners, uri as string);
    } else if (method === "notifications/resources/list_changed") {
      this.#onList("resources");
    } else if (method === "notifications/prompts/list_changed") {
      this.#onList("prompts");
    }
  }

  /**
   * The connection changed: a new or renewed session knows nothing of our
   * subscriptions, so they are made again, and their listeners told.
   */
  sessionChanged(reason: ToolsChangeReason): void {
    if (reason === "list_changed") return;
    this.#subscribed.clear();
    // The connection closes a modern listen with its session.
    this.#listen = undefined;
    if (reason === "closed") return;
    if (this.#listeners.size > 0 || this.#followed.size > 0) {
      void this.#queue.run(() => this.#resubscribe());
    }
  }

  async #resubscribe(): Promise<void> {
    const { connection, requestTimeoutMs: timeoutMs } = this.#context;
    try {
      await connection.whenReady("subscribe to resources");
      if (this.#modern) await this.#relisten(timeoutMs);
      else {
        for (const uri of [...this.#listeners.keys()]) {
          await connection.request("resources/subscribe", { uri }, {
            timeoutMs,
          });
          this.#subscribed.add(uri);
        }
      }
    } catch (error) {
      this.#context.onError?.(asError(error));
    }
    this.#missed(false);
  }

  /** Notices may have been missed: the listeners are told (with `lists`, those of the lists too). */
  #missed(lists: boolean): void {
    if (lists) { for (const kind of this.#followed) this.#onList(kind); }
    for (const [uri, listeners] of this.#listeners) {
      this.#tell(listeners, uri);
    }
  }

  #tell(listeners: Iterable<Listener>, uri: string): void {
    for (const listener of [...listeners]) {
      try {
        listener(uri);
      } catch (error) {
        this.#context.onError?.(asError(error));
      }
    }
  }
}
