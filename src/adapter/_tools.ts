/**
 * One server's tools as its adapter knows them, from the adapter's
 * construction on: the list (fetched whole by `Connection.listTools()`,
 * fresh until the server announces a change or, on a modern server, its
 * `ttlMs` runs out; a list that is the user's own is not kept across a new
 * login; at most one listing in flight and one queued), the filter the
 * host chose, the pins (`tools/watch.ts`, loaded with the first listing:
 * a tool that changed is held back until accepted), MCP Apps metadata, and
 * the entries a registry is given, which is where the tool search indexes
 * a lone adapter from. The adapter's tool methods and the stages of a call
 * (`_invoke.ts`) read it. Internal.
 *
 * @module
 */

import type { Connection, ToolsChangeReason } from "../protocol/connection.ts";
import type { PinnedTools } from "../tools/fingerprint.ts";
import type { ToolDrift } from "../tools/drift.ts";
import type { MCPToolHeldError, ToolWatch } from "../tools/watch.ts";
import {
  type CapabilityOverrides,
  resolveCapability,
} from "../tools/capabilities.ts";
import { compileToolFilter } from "../tools/filter.ts";
import type { RegisteredTool } from "../tools/registry.ts";
import type {
  InvokeOptions,
  MCPToolDescriptor,
  MCPToolFilter,
  MCPToolResult,
} from "../types.ts";
import { asError } from "../util/caught.ts";
import { lazy } from "../util/lazy.ts";
import { redactError } from "../util/redact.ts";

/** MCP Apps, loaded by the first tool list with `_meta`. */
const apps = lazy(() => import("../apps/apps.ts"));
/** Fingerprints, drift and pins, loaded by the first tool listing. */
const watching = lazy(() => import("../tools/watch.ts"));

/** What the tools of an adapter are kept with. */
export interface ToolsContext {
  /** The server's connection. */
  connection: Connection;
  /** The server's name (`config.name`), for messages and pins. */
  server: string;
  /** The deadline of each page, and of a whole listing, in ms. */
  requestTimeoutMs: number;
  /** The adapter's `pins` and `holdNewTools`. */
  pinning: {
    pins?: PinnedTools | undefined;
    holdNewTools?: boolean | undefined;
  };
  /** What no message may contain. */
  secrets: () => readonly string[];
  /** Tells `onError` of a tool the server sent that was set aside. */
  note: (message: string) => void;
  /** Where what a listener throws goes (the adapter's `onError`). */
  onError: ((error: Error) => void) | undefined;
}

type Tools = Map<string, MCPToolDescriptor>;

/** The tools of one server. */
export class ServerTools {
  readonly #context: ToolsContext;
  readonly #changeListeners = new Set<() => void>();
  readonly #driftListeners = new Set<(drift: ToolDrift) => void>();
  /** Made by `#watch()`, the one way to it; `undefined` until a listing (nothing held yet). */
  #made: ToolWatch | undefined;
  /** The server's whole tool list, by name; `undefined` when stale. */
  #tools: Tools | undefined;
  /**
   * Until when (`performance.now()`) a modern server said the list stays
   * fresh (`ttlMs`); a 2025-era list is fresh until a change is announced.
   */
  #freshUntil = Infinity;
  /** The list is the user's own (`cacheScope: "private"`): not kept across logins. */
  #personal = false;
  /** The listing in flight, and the generation it started in. */
  #refreshing: { tools: Promise<Tools>; generation: number } | undefined;
  /** The one listing queued behind a listing in flight that predates a change. */
  #queued: Promise<Tools> | undefined;
  /** Moves on every invalidation, so a fetch that started before one is not cached. */
  #generation = 0;
  /** The host's filter (`discoverTools(filter)`); `undefined`: every tool. */
  #filter: ((name: string) => boolean) | undefined;

  constructor(context: ToolsContext) {
    this.#context = context;
  }

  /** Calls `listener` whenever the tools may have changed; returns its remover. */
  onChanged(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Calls `listener` with each drift a listing finds; returns its remover. */
  onDrift(listener: (drift: ToolDrift) => void): () => void {
    this.#driftListeners.add(listener);
    return () => this.#driftListeners.delete(listener);
  }

  /** The connection changed: the list is forgotten, and for the server's doing, the listeners told. */
  sessionChanged(reason: ToolsChangeReason): void {
    this.#invalidate();
    if (reason === "renewed" || reason === "list_changed") {
      this.#tell(this.#changeListeners, undefined);
    }
  }

  /** A new login: a list that is the user's own is not the new login's. */
  loggedIn(): void {
    if (this.#personal) this.#invalidate();
  }

  /** The exposed tool `name` of the cached list, without a wait. */
  cached(name: string): MCPToolDescriptor | undefined {
    return this.#tools && this.#exposed(this.#tools, name);
  }

  /**
   * The exposed tool `name` once the connection is ready, the list fetched
   * again once when it is stale or does not have it.
   *
   * @throws {MCPNotConnectedError} When not connected.
   */
  async lookUp(name: string): Promise<MCPToolDescriptor | undefined> {
    await this.#context.connection.whenReady("invoke");
    const cached = this.cached(name);
    // A tool held back in a fresh list stays held: no need to list again.
    if (cached || (this.#tools && this.#made?.holds(name))) return cached;
    return this.#exposed(await this.#list(true), name);
  }

  /** Why `name` is held back by its pin, if it is. */
  heldError(name: string): MCPToolHeldError | undefined {
    return this.#made?.heldError(name);
  }

  /** The names of the exposed tools of the cached list, for a "not found" message. */
  exposedNames(): string[] {
    return [...(this.#tools?.keys() ?? [])].filter((tool) =>
      !this.#filter || this.#filter(tool)
    );
  }

  /**
   * Lists the tools again and keeps `filter` for every later use.
   *
   * @throws {MCPConfigError} When the filter is malformed.
   */
  async discover(filter?: MCPToolFilter): Promise<MCPToolDescriptor[]> {
    const accept = compileToolFilter(filter);
    const tools = await this.#redacted(this.#list(true));
    this.#filter = filter ? accept : undefined;
    return [...tools.values()].filter((tool) => accept(tool.name));
  }

  /** Compares the tools (listed when stale) with `pins`, default the adapter's own. */
  async compare(pins?: PinnedTools): Promise<ToolDrift> {
    await this.#redacted(this.#list(false));
    return (await this.#watch()).compare(pins);
  }

  /** Accepts the tools as they are now, tells the listeners, and returns every pin. */
  async accept(accepted?: readonly string[] | ToolDrift): Promise<PinnedTools> {
    const tools = await this.#redacted(this.#list(false));
    const pins = (await this.#watch()).accept(accepted, tools);
    this.#tell(this.#changeListeners, undefined);
    return pins;
  }

  /**
   * The registry entries of the exposed tools (listed when stale), as
   * `{namespace}/{tool}` with provenance and capabilities.
   *
   * @param namespace The name prefix.
   * @param overrides Capability overrides keyed by tool name or `*` glob.
   * @param invoke Calls the tool of that name.
   */
  async entries(
    namespace: string,
    overrides: CapabilityOverrides | undefined,
    invoke: (
      name: string,
      args?: Record<string, unknown>,
      options?: InvokeOptions,
    ) => Promise<MCPToolResult>,
  ): Promise<RegisteredTool[]> {
    const tools = await this.#list(false);
    const server = this.#context.server;
    const registered: RegisteredTool[] = [];
    for (const tool of tools.values()) {
      if (this.#filter && !this.#filter(tool.name)) continue;
      const toolName = tool.name;
      const title = tool.title ?? tool.annotations?.title;
      registered.push({
        name: `${namespace}/${toolName}`,
        description: tool.description,
        ...(typeof title === "string" ? { title } : {}),
        inputSchema: tool.inputSchema,
        ...(tool.execution ? { execution: tool.execution } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        ...(tool.ui ? { ui: tool.ui } : {}),
        capability: resolveCapability(toolName, {
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
          ...(overrides ? { overrides } : {}),
        }),
        ...(tool.fingerprint ? { fingerprint: tool.fingerprint } : {}),
        checkpointable: false,
        source: "mcp",
        sourceMetadata: { server },
        invoke: (args, invokeOptions) => invoke(toolName, args, invokeOptions),
      });
    }
    return registered;
  }

  /** Calls each listener with `value`; what one throws goes to `onError`. */
  #tell<T>(listeners: Iterable<(value: T) => void>, value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        this.#context.onError?.(asError(error));
      }
    }
  }

  /**
   * The tool watch, made by its first reader (its module loads lazily): the
   * one way to reach it where it must exist, so nothing reads it before.
   */
  async #watch(): Promise<ToolWatch> {
    const { ToolWatch } = await watching.load();
    return this.#made ??= new ToolWatch(
      this.#context.server,
      this.#context.pinning,
      (drift) => this.#tell(this.#driftListeners, drift),
    );
  }

  /** `tools`, its errors redacted: for the methods that throw them. */
  #redacted(tools: Promise<Tools>): Promise<Tools> {
    return tools.catch((error) => {
      throw redactError(error, this.#context.secrets());
    });
  }

  /**
   * Forgets the tool list (its validators go with its schema objects). A list
   * being fetched right now may predate the change, so it is not kept either
   * (the generation moves); it is not abandoned, so a flood of changes
   * cannot start a listing each.
   */
  #invalidate(): void {
    this.#tools = undefined;
    this.#generation++;
  }

  /** The server's whole tool list, fetched when stale (or always, with `refresh`). */
  async #list(refresh: boolean): Promise<Tools> {
    await this.#context.connection.whenReady("list tools");
    if (
      !refresh && this.#tools && performance.now() < this.#freshUntil
    ) return this.#tools;
    return await this.#listing();
  }

  /**
   * A listing newer than the last change: the one in flight, or, when that
   * one predates a change, one more after it, shared by every caller until
   * it starts. At most one listing is in flight and one queued, however
   * often the server announces changes.
   */
  #listing(): Promise<Tools> {
    const running = this.#refreshing;
    if (running?.generation === this.#generation) return running.tools;
    if (running !== undefined) {
      return this.#queued ??= running.tools.then(noop, noop).then(() => {
        this.#queued = undefined;
        return this.#listing();
      });
    }
    const refreshing = {
      tools: this.#fetch().finally(() => {
        if (this.#refreshing === refreshing) this.#refreshing = undefined;
      }),
      generation: this.#generation,
    };
    this.#refreshing = refreshing;
    return refreshing.tools;
  }

  /**
   * Lists every page. A list fetched across a change (reconnect, renewed
   * session, list_changed) is returned but not cached: the generation moved.
   */
  async #fetch(): Promise<Tools> {
    const generation = this.#generation;
    const { connection, requestTimeoutMs, note } = this.#context;
    // Every page has the request deadline, and so has the whole listing: a
    // server paging slowly forever cannot keep discoverTools() waiting.
    const { tools, freshUntil, personal } = await connection.listTools(
      requestTimeoutMs,
      note,
    );
    // MCP Apps metadata rides in `_meta`: its reader loads with the first tool that has one.
    for (const tool of tools.values()) {
      if (tool._meta === undefined) continue;
      (await apps.load()).attachUi(tools.values(), note);
      break;
    }
    await (await this.#watch()).update(tools);
    if (this.#generation === generation) {
      this.#tools = tools;
      this.#freshUntil = freshUntil;
      this.#personal = personal;
    }
    return tools;
  }

  /** The tool of that name in `tools`, if the filter lets it through. */
  #exposed(tools: Tools, name: string): MCPToolDescriptor | undefined {
    const tool = tools.get(name);
    return tool && (!this.#filter || this.#filter(name)) ? tool : undefined;
  }
}

function noop(): void {}
