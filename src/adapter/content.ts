/**
 * Everything an adapter offers besides tools: the server's resources
 * (`resources.ts`), its prompts and completion (`prompts.ts`) and their
 * change notices (`_updates.ts`), behind one object that `MCPToolAdapter`
 * loads with the first call that needs it and delegates to. Internal.
 *
 * @module
 */

import type { ToolsChangeReason } from "../protocol/connection.ts";
import type { JSONRPCNotification } from "../transports/transport.ts";
import type { MCPListKind } from "../protocol/content_types.ts";
import { checkTimeoutMs } from "../util/time.ts";
import { MCPAdapterError } from "../errors.ts";
import { uriProblem } from "../protocol/resource_list.ts";
import { quoted } from "../util/quoted.ts";
import type { ContentContext } from "./_context.ts";
import { Updates } from "./_updates.ts";
import { Prompts } from "./prompts.ts";
import { Resources } from "./resources.ts";
import { redactError } from "../util/redact.ts";

export type { ContentContext } from "./_context.ts";

/** The resources, prompts and change notices of one adapter. */
export class Content {
  readonly #context: ContentContext;
  readonly #updates: Updates;
  /** Listing and reading resources. */
  readonly resources: Resources;
  /** Listing and getting prompts; completion. */
  readonly prompts: Prompts;

  constructor(context: ContentContext) {
    this.#context = context;
    this.#updates = new Updates(context, (kind) => this.#listChanged(kind));
    this.resources = new Resources(context, this.#updates);
    this.prompts = new Prompts(context, this.#updates, this.resources);
  }

  /** A list changed: forget it, then tell the adapter's listeners. */
  #listChanged(kind: MCPListKind): void {
    this.#forget(kind);
    this.#context.listChanged(kind);
  }

  #forget(kind: MCPListKind): void {
    if (kind === "prompts") this.prompts.list.invalidate();
    else {
      this.resources.list.invalidate();
      this.resources.templates.invalidate();
    }
  }

  /** A notification the connection passed on (resources, prompts). */
  notice(notification: JSONRPCNotification): void {
    this.#updates.notice(notification);
  }

  /**
   * The connection changed: the lists are forgotten (another session may
   * offer others), subscriptions are made again, and on a renewed session
   * (a server restart) the listeners are told the lists may have changed.
   */
  sessionChanged(reason: ToolsChangeReason): void {
    if (reason === "list_changed") return;
    this.#forget("resources");
    this.#forget("prompts");
    this.#updates.sessionChanged(reason);
    if (reason === "renewed") {
      this.#context.listChanged("resources");
      this.#context.listChanged("prompts");
    }
  }

  /** A new login: a list that is the user's own is not the new login's. */
  loggedIn(): void {
    this.resources.list.forgetPersonal();
    this.resources.templates.forgetPersonal();
    this.prompts.list.forgetPersonal();
  }

  /**
   * Follows a resource's changes; see `MCPToolAdapter.subscribeResource`.
   *
   * @throws {MCPAdapterError} `invalid_argument` for a URI that is not one.
   */
  async subscribe(
    uri: string,
    listener: (uri: string) => void,
    options: { timeoutMs?: number } = {},
  ): Promise<() => Promise<void>> {
    const problem = uriProblem(uri);
    if (problem !== undefined) {
      throw new MCPAdapterError(
        "invalid_argument",
        `Cannot subscribe to ${quoted(uri)}: it ${problem}`,
      );
    }
    if (typeof listener !== "function") {
      throw new MCPAdapterError(
        "invalid_argument",
        "subscribeResource() needs a listener function",
      );
    }
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#context.requestTimeoutMs;
    try {
      const stop = await this.#updates.subscribe(uri, listener, timeoutMs);
      return () =>
        stop().catch((error) => {
          throw redactError(error, this.#context.secrets());
        });
    } catch (error) {
      throw redactError(error, this.#context.secrets());
    }
  }
}
