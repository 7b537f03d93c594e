/**
 * One cached list of a server (its resources, its resource templates, its
 * prompts), kept as the tool list is: fetched whole with the shared pager
 * (`protocol/pages.ts`, its page bound and one deadline for all pages),
 * fresh until the server announces a change or, on a modern server, its
 * `ttlMs` runs out; a list marked `cacheScope: "private"` is not kept
 * across a new login; a fetch that started before a change is returned but
 * not kept. Internal.
 *
 * @module
 */

import { MCPProtocolError } from "../errors.ts";
import { eachPage, MAX_ENTRIES } from "../protocol/pages.ts";
import type { Note } from "../protocol/resource_list.ts";
import { redactError } from "../util/redact.ts";
import { type ContentContext, Notes } from "./_context.ts";
import type { ListOptions } from "../protocol/content_types.ts";

/** How one list is fetched and read. */
export interface ListSpec<T> {
  /** The list method, e.g. `resources/list`: its first part names the capability that offers it. */
  method: string;
  /** The result's field with the entries, e.g. `resources`. */
  field: string;
  /** An entry read and checked; `undefined` (with a note) to leave it out. */
  read: (raw: unknown, note: Note) => T | undefined;
  /** What identifies an entry: a second one with the same key is left out. */
  key: (entry: T) => string;
  /** Run before each listing for a caller: follows the list's changes. */
  follow: () => Promise<void>;
  /**
   * A server that declares the capability may still not implement this
   * method (`resources/templates/list`): "method not found" is an empty list.
   */
  optional?: boolean;
}

/** `-32601`: the server does not implement the method. */
const METHOD_NOT_FOUND = -32601;

/** One list of a server, cached. */
export class ListCache<T> {
  readonly #spec: ListSpec<T>;
  readonly #context: ContentContext;
  #items: T[] | undefined;
  /** Until when (`performance.now()`) the list is fresh. */
  #freshUntil = Infinity;
  /** The list is the user's own: not kept across logins. */
  #personal = false;
  #refreshing: Promise<T[]> | undefined;
  /** Moves on every invalidation, so a fetch that started before one is not kept. */
  #generation = 0;

  constructor(spec: ListSpec<T>, context: ContentContext) {
    this.#spec = spec;
    this.#context = context;
  }

  /** The capability that offers the list: `resources`, `prompts`. */
  get #capability(): string {
    return this.#spec.method.slice(0, this.#spec.method.indexOf("/"));
  }

  /** Whether the server offers this list at all (its capability). */
  get offered(): boolean {
    const capabilities = this.#context.connection.serverInfo?.capabilities;
    return capabilities?.[this.#capability] !== undefined;
  }

  /**
   * The list for a caller, its changes followed from now on: a copy of the
   * cached list when fresh, else fetched.
   */
  async listed(options: ListOptions = {}): Promise<T[]> {
    await this.#spec.follow();
    return [...await this.get(options.refresh === true)];
  }

  /** The cached list, when it is still fresh. */
  get fresh(): T[] | undefined {
    return this.#items !== undefined && performance.now() < this.#freshUntil
      ? this.#items
      : undefined;
  }

  /** Forgets the list (a change, a new session). */
  invalidate(): void {
    this.#items = undefined;
    this.#refreshing = undefined;
    this.#generation++;
  }

  /** Forgets the list if it is the user's own (a new login). */
  forgetPersonal(): void {
    if (this.#personal) this.invalidate();
  }

  /**
   * The list: cached when fresh, else fetched (concurrent callers share one
   * fetch). Empty, without a request, when the server does not offer it.
   *
   * @param refresh Fetch even when fresh.
   * @throws {MCPNotConnectedError} When not connected.
   * @throws {MCPAdapterError} `invalid_response` when the pagination is broken.
   * @throws {MCPProtocolError} When the server refuses.
   */
  async get(refresh = false): Promise<T[]> {
    const { connection } = this.#context;
    await connection.whenReady(`list ${this.#spec.field}`);
    if (!this.offered) return [];
    const fresh = refresh ? undefined : this.fresh;
    if (fresh !== undefined) return fresh;
    if (!this.#refreshing) {
      const refreshing = this.#fetch().finally(() => {
        if (this.#refreshing === refreshing) this.#refreshing = undefined;
      });
      this.#refreshing = refreshing;
    }
    try {
      return await this.#refreshing;
    } catch (error) {
      throw redactError(error, this.#context.secrets());
    }
  }

  async #fetch(): Promise<T[]> {
    const { connection, requestTimeoutMs, server } = this.#context;
    const { method, field, read, key } = this.#spec;
    const generation = this.#generation;
    const startedAt = performance.now();
    // "invalid_resource", "invalid_prompt".
    const notes = new Notes(
      this.#context,
      `invalid_${this.#capability.slice(0, -1)}`,
    );
    const items: T[] = [];
    const keys = new Set<string>();
    try {
      const hints = await eachPage(
        (cursor) =>
          connection.request(
            method,
            cursor === undefined ? undefined : { cursor },
            {
              timeoutMs: requestTimeoutMs,
              totalTimeoutMs: requestTimeoutMs,
              startedAt,
            },
          ),
        {
          method,
          server,
          modern: connection.serverInfo?.era === "modern",
          onPage: (page) => {
            const entries = Array.isArray(page[field]) ? page[field] : [];
            for (const raw of entries) {
              if (items.length >= MAX_ENTRIES) {
                notes.add(
                  `${method} listed more than ${MAX_ENTRIES} entries; the rest are left out`,
                );
                return;
              }
              const item = read(raw, notes.add);
              if (item === undefined) continue;
              const id = key(item);
              if (keys.has(id)) {
                notes.add(
                  `${method} listed ${
                    JSON.stringify(id.slice(0, 80))
                  } twice; the second is left out`,
                );
                continue;
              }
              keys.add(id);
              items.push(item);
            }
          },
        },
      );
      if (this.#generation === generation) {
        this.#items = items;
        this.#freshUntil = startedAt + hints.ttlMs;
        this.#personal = hints.personal;
      }
      return items;
    } catch (error) {
      if (
        !this.#spec.optional || !(error instanceof MCPProtocolError) ||
        error.rpcCode !== METHOD_NOT_FOUND
      ) throw error;
      if (this.#generation === generation) {
        this.#items = [];
        this.#freshUntil = Infinity;
      }
      return [];
    } finally {
      notes.flush();
    }
  }
}
