/**
 * `MCPToolHub`: many MCP servers, one {@linkcode ToolRegistry}. Connects the
 * servers of a loaded config concurrently, registers each one's tools under
 * its namespace, and reports a server that fails instead of throwing.
 *
 * @module
 */

import {
  type MCPProtocolEra,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "./adapter/adapter.ts";
import { configSecrets, redact } from "./util/redact.ts";
import { SerialQueue } from "./util/serial_queue.ts";
import { lazy } from "./util/lazy.ts";
import { delay } from "./util/time.ts";
import type { ServerEntry } from "./config/load.ts";
import { type MCPServerConfig, validateServerConfig } from "./server_config.ts";
import { isRecord } from "./util/values.ts";
import type { OAuthClientProviderLike } from "./adapter/adapter.ts";
import {
  MCPAdapterError,
  MCPConfigError,
  MCPNotConnectedError,
} from "./errors.ts";
import { namespaceProblem, ToolRegistry } from "./tools/registry.ts";
import { errorMessage } from "./util/caught.ts";
import type { MCPLogLevel, MCPToolResult } from "./types.ts";
import type { TaskHandle } from "./tasks/store.ts";
import type { MCPTransportKind } from "./server_config.ts";
import type { PinnedTools } from "./tools/fingerprint.ts";
import type { ToolDrift } from "./tools/drift.ts";
import type { HubList, HubMember } from "./adapter/aggregate.ts";
import type * as shapes from "./adapter/types.ts";

// Re-exported so this module documents on its own (`deno doc --lint`).
export type { ServerAuth, ServerEntry } from "./config/load.ts";
export type { HubList, MCPProvenance } from "./adapter/aggregate.ts";

/** Resources and prompts across servers (`adapter/aggregate.ts`), loaded with the first use. */
const aggregates = lazy(() => import("./adapter/aggregate.ts"));

/** Where one server of a {@linkcode MCPToolHub} stands. */
export interface HubServerStatus {
  /** The server's name (`config.name`). */
  name: string;
  /** The registry namespace of its tools. */
  namespace: string;
  /**
   * `connected`: its tools are registered. `failed`: it could not be started,
   * reached or listed, or its connection was lost (see `error`); also before
   * `start()` and after `close()`. `disabled`: `enabled: false` in the config.
   */
  state: "connected" | "failed" | "disabled";
  /**
   * Why the server is not connected — or, while connected, why its last tool
   * list refresh failed (its earlier tools stay registered). Never contains
   * env or header values.
   */
  error?: string;
  /** How many of its tools are in the registry. */
  toolCount: number;
  /** How long the last connection took (start + handshake), in ms. */
  connectMs?: number;
  /** The protocol version the server agreed to. */
  protocolVersion?: string;
  /** The protocol era of that version: `"modern"` (2026-07-28 and later) or `"legacy"`. */
  era?: MCPProtocolEra;
  /**
   * The transport of the last connection: the configured one, or `"sse"`
   * when a `streamable-http` server fell back to the legacy transport.
   */
  transport?: MCPTransportKind | "custom";
}

/** Options of {@linkcode MCPToolHub}'s constructor. */
export interface MCPToolHubOptions {
  /** Where to register the tools. Default: a new, empty registry. */
  registry?: ToolRegistry;
  /**
   * Builds the adapter of a server (custom transports, tests). Default:
   * `new MCPToolAdapter(entry.config, { ...adapterOptions, clientInfo, onLog, connectTimeoutMs, requestTimeoutMs, validateArguments })`.
   */
  createAdapter?: (entry: ServerEntry) => MCPToolAdapter;
  /** Sent in `initialize` by the default adapters. */
  clientInfo?: { name: string; version: string };
  /**
   * Options every default adapter gets (handlers for server requests,
   * `onError`, `onStderr`, `maxMessageBytes`, …); an entry's own deadlines
   * win over these.
   */
  adapterOptions?: Omit<MCPToolAdapterOptions, "transport">;
  /**
   * The OAuth provider of a server's default adapter, e.g. for the servers
   * with `auth: oauth` (`entry.auth`); `undefined` falls back to
   * `adapterOptions.authProvider`, if any. The command
   * line's token store provides one: `tokenStoreAuth()` of
   * `@cleveragents/mcp-adapter/cli`.
   */
  authProvider?: (entry: ServerEntry) => OAuthClientProviderLike | undefined;
  /**
   * Receives every server's log messages (`notifications/message`), with the
   * server's name last. Passed to the default adapters (over `adapterOptions.onLog`). Default:
   * dropped.
   */
  onLog?: (
    level: MCPLogLevel,
    logger: string | undefined,
    data: unknown,
    server: string,
  ) => void;
  /**
   * Pins of the servers' tools, by server name (`config.name`), for the
   * default adapters (see `MCPToolAdapterOptions.pins`): a tool that
   * differs from its pin, or has none, is not registered until
   * `hub.adapter(name).acceptToolChanges()`, which registers it. A server
   * without an entry has every tool held back. Default: nothing pinned.
   */
  pins?: Readonly<Record<string, PinnedTools>>;
  /**
   * Receives the drift of every server's tools (see
   * `MCPToolAdapter.onToolDrift`), with the server's name last.
   */
  onToolDrift?: (drift: ToolDrift, server: string) => void;
}

/** Options of {@linkcode MCPToolHub.start}. */
export interface HubStartOptions {
  /**
   * Resume the open tasks of the servers that connected (those in their
   * adapters' task stores, `adapterOptions.taskStore`: a worker restarted
   * after a crash, or a new worker of a fleet), in the background; each
   * resumed task's envelope goes here. A task another worker polls, or one
   * that is gone, is left alone.
   */
  resumeTasks?: (result: MCPToolResult, task: TaskHandle) => void;
}

/** One server of the hub and what the hub knows about it. */
interface Slot {
  entry: ServerEntry;
  adapter: MCPToolAdapter | undefined;
  status: HubServerStatus;
  /** Operations on this server run one after another. */
  queue: SerialQueue;
  /** Bumped by `close()`; an attempt of an older epoch stops. */
  epoch: number;
  /** A re-registration after the server's tools changed is queued. */
  refreshQueued: boolean;
}

const NOT_STARTED = "Not connected yet; call start()";
/**
 * After a refresh during which the server announced more changes, the one
 * queued behind it waits this long, so that a burst of announcements (or
 * one that never ends) is relisted a few times, not once per listing.
 */
const RELIST_GAP_MS = 500;

/**
 * Connects several MCP servers and registers all their tools into one
 * {@linkcode ToolRegistry}, each server under its own namespace, so tool
 * names cannot collide. The hub owns those namespaces in the registry: it
 * replaces their entries on (re)connect and removes them on close. A server that cannot be reached is reported in
 * {@linkcode MCPToolHub.status} (never thrown) and the others keep working;
 * {@linkcode MCPToolHub.retry} tries it again.
 *
 * @example Two servers from a config file
 * ```ts ignore
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const { servers } = await loadConfig("mcp.yaml");
 * const hub = new MCPToolHub(servers);
 * for (const server of await hub.start()) {
 *   console.log(server.name, server.state, server.toolCount, server.error ?? "");
 * }
 * const result = await hub.registry.resolve("notes__list_notes")?.invoke();
 * await hub.close();
 * ```
 */
export class MCPToolHub {
  /** The registry every server's tools are registered into. */
  readonly registry: ToolRegistry;
  readonly #slots = new Map<string, Slot>();
  readonly #createAdapter: (entry: ServerEntry) => MCPToolAdapter;
  readonly #onToolDrift: MCPToolHubOptions["onToolDrift"];

  /**
   * Creates a hub. Nothing is started until {@linkcode MCPToolHub.start}.
   *
   * @param servers The servers: entries of a config file
   * (`(await loadConfig(file)).servers`), or plain server configs, each of
   * which becomes an enabled entry whose namespace is its name.
   * @param options The registry, an adapter factory, the client info.
   * @throws {MCPConfigError} When a server config is invalid, two servers
   * share a name (`field` is `"name"`), or a namespace is empty, contains
   * `/` or is shared (`field` is `"namespace"`).
   *
   * @example
   * ```ts
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * const hub = new MCPToolHub([{
   *   config: { name: "notes", transport: "stdio", command: "notes-server" },
   *   namespace: "notes",
   *   enabled: false,
   * }]);
   * console.log(hub.status()[0]?.state); // "disabled"
   * ```
   *
   * @example Plain server configs
   * ```ts
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * const hub = new MCPToolHub([
   *   { name: "files", transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
   *   { name: "docs", transport: "streamable-http", url: "https://example.com/mcp" },
   * ]);
   * console.log(hub.status().map((server) => server.name)); // ["files", "docs"]
   * ```
   */
  constructor(
    servers: readonly (ServerEntry | MCPServerConfig)[],
    options: MCPToolHubOptions = {},
  ) {
    this.registry = options.registry ?? new ToolRegistry();
    const { clientInfo, authProvider, onLog, pins } = options;
    this.#onToolDrift = options.onToolDrift;
    this.#createAdapter = options.createAdapter ??
      ((entry) =>
        new MCPToolAdapter(entry.config, {
          ...options.adapterOptions,
          ...(clientInfo ? { clientInfo } : {}),
          // The per-server callback wins over a provider for every server.
          authProvider: authProvider?.(entry) ??
            options.adapterOptions?.authProvider,
          ...(onLog
            ? {
              onLog: (level, logger, data) =>
                onLog(level, logger, data, entry.config.name),
            }
            : {}),
          ...(pins
            ? {
              pins: Object.hasOwn(pins, entry.config.name)
                ? pins[entry.config.name]!
                : {},
            }
            : {}),
          ...(entry.connectTimeoutMs === undefined
            ? {}
            : { connectTimeoutMs: entry.connectTimeoutMs }),
          ...(entry.requestTimeoutMs === undefined
            ? {}
            : { requestTimeoutMs: entry.requestTimeoutMs }),
          ...(entry.validateArguments === false
            ? { validateArguments: false }
            : {}),
        }));
    const namespaces = new Map<string, string>();
    for (const server of servers) {
      const entry = entryOf(server);
      const name = entry.config.name;
      if (this.#slots.has(name)) {
        throw new MCPConfigError(
          "name",
          `Two servers are named ${
            JSON.stringify(name)
          }; give each server a unique name`,
        );
      }
      const problem = namespaceProblem(entry.namespace);
      if (problem !== undefined) {
        throw new MCPConfigError(
          "namespace",
          `Server ${JSON.stringify(name)}: its namespace ${problem}, e.g. ${
            JSON.stringify(name.replaceAll("/", "_") || "files")
          }`,
        );
      }
      const other = namespaces.get(entry.namespace);
      if (other !== undefined) {
        throw new MCPConfigError(
          "namespace",
          `Servers ${JSON.stringify(other)} and ${
            JSON.stringify(name)
          } share the namespace ${
            JSON.stringify(entry.namespace)
          }; give each server its own namespace`,
        );
      }
      namespaces.set(entry.namespace, name);
      this.#slots.set(name, {
        entry,
        adapter: undefined,
        status: initialStatus(entry),
        queue: new SerialQueue(),
        epoch: 0,
        refreshQueued: false,
      });
    }
  }

  /**
   * Connects every enabled server that is not connected yet, concurrently,
   * each within its `connectTimeoutMs`; lists its tools through its `filter`
   * and registers them as `{namespace}/{tool}` with its `overrides`. A
   * failure is reported in the returned status, never thrown.
   *
   * @param options `resumeTasks`: also resume the servers' open tasks.
   * @returns The status of every server, in config order.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   * import { loadConfig } from "@cleveragents/mcp-adapter/config";
   *
   * const hub = new MCPToolHub((await loadConfig("mcp.yaml")).servers);
   * const failed = (await hub.start()).filter((server) => server.state === "failed");
   * ```
   */
  async start(options: HubStartOptions = {}): Promise<HubServerStatus[]> {
    const slots = [...this.#slots.values()];
    await Promise.all(slots.map((slot) => this.#schedule(slot, false)));
    const onResult = options.resumeTasks;
    if (onResult) {
      // In the background: a task may take long; results go to onResult.
      void import("./tasks/durable.ts").then((tasks) =>
        tasks.resumeOpen(
          slots.flatMap((slot) =>
            slot.adapter?.connected ? [slot.adapter] : []
          ),
          onResult,
        )
      );
    }
    return this.status();
  }

  /**
   * Connects servers again. Without a name, every enabled server that is not
   * connected (failed, lost, or never started); with a name, that server,
   * disconnecting it first if it is connected. Failures are reported in the
   * status, not thrown.
   *
   * @param name The server's name (`config.name`); omit for all failed ones.
   * @returns The status of every server, in config order.
   * @throws {MCPAdapterError} When no server has that name (`code` is
   * `"unknown_server"`) or it is disabled in the config (`code` is
   * `"server_disabled"`).
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * const [notes] = await hub.retry("notes");
   * ```
   */
  async retry(name?: string): Promise<HubServerStatus[]> {
    if (name === undefined) return await this.start();
    const slot = this.#slot(name);
    if (!slot.entry.enabled) {
      throw new MCPAdapterError(
        "server_disabled",
        `MCP server ${
          JSON.stringify(name)
        } is disabled in the config; set "enabled: true" to use it`,
      );
    }
    await this.#schedule(slot, true);
    return this.status();
  }

  /**
   * The status of every server, in config order. A server whose connection
   * was lost since it connected is reported as `failed`.
   *
   * @returns A new array of statuses.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * for (const { name, state, error } of hub.status()) console.log(name, state, error ?? "");
   * ```
   */
  status(): HubServerStatus[] {
    return [...this.#slots.values()].map((slot) => {
      const status = { ...slot.status };
      if (status.state === "connected" && !slot.adapter?.connected) {
        status.state = "failed";
        status.error = `The connection to MCP server ${
          JSON.stringify(status.name)
        } was lost; call retry(${JSON.stringify(status.name)})`;
      }
      return status;
    });
  }

  /**
   * Each server's `instructions` (its usage guidance for the model, at most
   * 8192 characters each), by server name; servers that sent none, or are
   * not connected, are left out. Hand them to a model with the `instructions`
   * option of `modelTools()`.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * for (const [server, text] of Object.entries(hub.instructions())) console.log(server, text.length);
   * ```
   *
   * @returns Server name → instructions.
   */
  instructions(): Record<string, string> {
    const all: Record<string, string> = {};
    for (const [name, slot] of this.#slots) {
      const text = slot.adapter?.connected && slot.adapter.instructions;
      if (text) all[name] = text;
    }
    return all;
  }

  /**
   * The adapter of a server, for what the registry does not cover
   * (`serverInfo`, `discoverTools()` with other filters).
   *
   * @param name The server's name (`config.name`).
   * @returns Its adapter, or `undefined` if it was never started or is disabled.
   * @throws {MCPAdapterError} When no server has that name (`code` is `"unknown_server"`).
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * console.log(hub.adapter("notes")?.serverInfo?.serverInfo.name);
   * ```
   */
  adapter(name: string): MCPToolAdapter | undefined {
    return this.#slot(name).adapter;
  }

  /**
   * Every connected server's resources (see `MCPToolAdapter.listResources`),
   * listed concurrently, servers in config order; each has an `id`
   * (`{namespace}/{uri}`) and names its `server` and `namespace`. A server
   * whose listing fails is reported in `failed`, and the others listed.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * const { items, failed } = await hub.listResources();
   * for (const resource of items) console.log(resource.id, resource.mimeType ?? "");
   * for (const { server, error } of failed) console.error(server, error);
   * ```
   *
   * @returns The resources, and the servers that failed.
   */
  async listResources(): Promise<HubList<shapes.MCPResource>> {
    return (await aggregates.load()).listResources(this.#members());
  }

  /**
   * Every connected server's resource templates, as `listResources()`;
   * each `id` is `{namespace}/{uriTemplate}`.
   *
   * @returns The templates, and the servers that failed.
   */
  async listResourceTemplates(): Promise<HubList<shapes.MCPResourceTemplate>> {
    return (await aggregates.load()).listResourceTemplates(this.#members());
  }

  /**
   * Every connected server's prompts, as `listResources()`; each `id` is
   * `{namespace}/{name}`.
   *
   * @returns The prompts, and the servers that failed.
   */
  async listPrompts(): Promise<HubList<shapes.MCPPrompt>> {
    return (await aggregates.load()).listPrompts(this.#members());
  }

  /**
   * Reads a resource by its `id` (`{namespace}/{uri}`), or a template's
   * with `options.variables` (`{namespace}/{uriTemplate}`), from the server
   * of that namespace; see `MCPToolAdapter.readResource`.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * const read = await hub.readResource("docs/file:///README.md");
   * if (read.success) console.log(read.data.contents[0]?.text);
   * ```
   *
   * @param id The resource's or template's `id`.
   * @param options Template variables, size cap, deadline, cancellation.
   * @returns The envelope; `not_found` when no connected server has the namespace.
   * @throws {MCPNotConnectedError} When the connection dropped.
   */
  async readResource(
    id: string,
    options?: shapes.ReadResourceOptions,
  ): Promise<shapes.MCPOutcome<shapes.MCPResourceRead>> {
    return await (await aggregates.load()).readResource(
      this.#members(),
      id,
      options,
    );
  }

  /**
   * Gets a prompt by its `id` (`{namespace}/{name}`) from the server of
   * that namespace; see `MCPToolAdapter.getPrompt`.
   *
   * @param id The prompt's `id`.
   * @param args Its arguments, each a string.
   * @param options Deadline and cancellation.
   * @returns The envelope; `not_found` when no connected server has the namespace.
   * @throws {MCPNotConnectedError} When the connection dropped.
   */
  async getPrompt(
    id: string,
    args?: Record<string, string>,
    options?: shapes.PromptOptions,
  ): Promise<shapes.MCPOutcome<shapes.MCPPromptMessages>> {
    return await (await aggregates.load()).getPrompt(
      this.#members(),
      id,
      args,
      options,
    );
  }

  /** The connected servers, in config order. */
  #members(): HubMember[] {
    return [...this.#slots.values()].filter((slot) =>
      slot.status.state === "connected" && slot.adapter?.connected
    ).map((slot) => ({
      server: slot.entry.config.name,
      namespace: slot.entry.namespace,
      adapter: slot.adapter!,
    }));
  }

  /**
   * Accepts a server's held-back tools (see
   * `MCPToolAdapter.acceptToolChanges`) and resolves once the registry has
   * them.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * const drift = await hub.adapter("notes")!.compareTools();
   * const pins = await hub.acceptToolChanges("notes", drift); // keep them for the next run
   * ```
   *
   * @param name The server's name (`config.name`).
   * @param accepted Tool names, or a drift to accept exactly; default every tool.
   * @returns Every pin of the server's tools now.
   * @throws {MCPNotConnectedError} When the server is not connected.
   * @throws {MCPAdapterError} When no server has that name (`code` is `"unknown_server"`).
   */
  async acceptToolChanges(
    name: string,
    accepted?: readonly string[] | ToolDrift,
  ): Promise<PinnedTools> {
    const slot = this.#slot(name);
    if (!slot.adapter) {
      throw new MCPNotConnectedError(
        `MCP server ${JSON.stringify(name)} is not connected; call start()`,
      );
    }
    const pins = await slot.adapter.acceptToolChanges(accepted);
    // The re-registration it queued has run once the queue is idle.
    await slot.queue.idle;
    return pins;
  }

  /**
   * Disconnects every server (stdio servers are stopped) and removes their
   * tools from the registry. Connection attempts in progress are cancelled.
   * Idempotent; `start()` connects again afterwards.
   *
   * @example
   * ```ts ignore
   * import { MCPToolHub } from "@cleveragents/mcp-adapter";
   *
   * declare const hub: MCPToolHub;
   * try {
   *   await hub.start();
   * } finally {
   *   await hub.close();
   * }
   * ```
   */
  async close(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((slot) => {
      slot.epoch++;
      // Cancels a connect in progress now rather than after it times out.
      const cancelling = slot.adapter?.disconnect().catch(() => {});
      return slot.queue.run(async () => {
        await cancelling;
        await this.#stop(slot);
        slot.status = initialStatus(slot.entry);
      });
    }));
  }

  #slot(name: string): Slot {
    const slot = this.#slots.get(name);
    if (slot) return slot;
    throw new MCPAdapterError(
      "unknown_server",
      `No MCP server is named ${JSON.stringify(name)}; configured: ${
        [...this.#slots.keys()].map((key) => JSON.stringify(key)).join(", ") ||
        "none"
      }`,
    );
  }

  #schedule(slot: Slot, force: boolean): Promise<void> {
    if (!slot.entry.enabled) return Promise.resolve();
    const epoch = slot.epoch;
    return slot.queue.run(async () => {
      if (slot.epoch !== epoch) return; // closed while waiting
      if (
        !force && slot.status.state === "connected" && slot.adapter?.connected
      ) {
        return;
      }
      await this.#attempt(slot, epoch);
    });
  }

  /**
   * Re-registers a connected server's tools after it announced a change (or
   * was restarted), so the registry never serves a stale list. Bursts of
   * announcements coalesce: one refresh runs at a time, at most one more is
   * queued behind it, and that one first waits `RELIST_GAP_MS`.
   */
  #refreshTools(slot: Slot): void {
    if (slot.refreshQueued) return;
    slot.refreshQueued = true;
    const epoch = slot.epoch;
    void slot.queue.run(async () => {
      slot.refreshQueued = false;
      const adapter = slot.adapter;
      if (
        slot.epoch !== epoch || slot.status.state !== "connected" ||
        !adapter?.connected
      ) return;
      const { entry } = slot;
      try {
        const tools = await adapter.registerTools(
          this.registry,
          entry.namespace,
          entry.overrides ? { overrides: entry.overrides } : {},
        );
        slot.status = { ...slot.status, toolCount: tools.length };
      } catch (error) {
        if (slot.epoch !== epoch) return;
        if (error instanceof MCPNotConnectedError) {
          await this.#stop(slot);
          slot.status = failedStatus(entry, error);
          return;
        }
        // The connection is fine; keep the tools registered before and
        // report why the list could not be refreshed.
        slot.status = {
          ...slot.status,
          error: failedStatus(entry, error).error!,
        };
      }
      // Announced again meanwhile: let the burst go on before relisting.
      if (slot.refreshQueued && slot.epoch === epoch) {
        await delay(RELIST_GAP_MS);
      }
    });
  }

  async #attempt(slot: Slot, epoch: number): Promise<void> {
    const { entry } = slot;
    const { name } = entry.config;
    let connectMs: number | undefined;
    try {
      await this.#stop(slot);
      if (slot.epoch !== epoch) return; // closed while stopping
      if (!slot.adapter) {
        slot.adapter = this.#createAdapter(entry);
        slot.adapter.onToolsChanged(() => this.#refreshTools(slot));
        slot.adapter.onToolDrift((drift) => this.#onToolDrift?.(drift, name));
      }
      const adapter = slot.adapter;
      const started = performance.now();
      await adapter.connect(
        entry.connectTimeoutMs === undefined
          ? {}
          : { timeoutMs: entry.connectTimeoutMs },
      );
      connectMs = Math.round(performance.now() - started);
      if (slot.epoch !== epoch) return;
      await adapter.discoverTools(entry.filter);
      if (slot.epoch !== epoch) return;
      const tools = await adapter.registerTools(
        this.registry,
        entry.namespace,
        entry.overrides ? { overrides: entry.overrides } : {},
      );
      if (slot.epoch !== epoch) return;
      slot.status = {
        name,
        namespace: entry.namespace,
        state: "connected",
        toolCount: tools.length,
        connectMs,
      };
      const info = adapter.serverInfo;
      if (info !== undefined) {
        slot.status.protocolVersion = info.protocolVersion;
        slot.status.era = info.era;
      }
      const transport = adapter.transportKind;
      if (transport !== undefined) slot.status.transport = transport;
    } catch (error) {
      if (slot.epoch !== epoch) return;
      await this.#stop(slot);
      slot.status = failedStatus(entry, error);
      if (connectMs !== undefined) slot.status.connectMs = connectMs;
    }
  }

  /** Disconnects the server and removes its tools from the registry. */
  async #stop(slot: Slot): Promise<void> {
    this.registry.replaceNamespace(slot.entry.namespace, []);
    await slot.adapter?.disconnect().catch(() => {});
  }
}

/**
 * The status of a server that failed. The adapter's own errors are redacted
 * already; a custom `createAdapter`'s may not be.
 */
function failedStatus(entry: ServerEntry, error: unknown): HubServerStatus {
  return {
    name: entry.config.name,
    namespace: entry.namespace,
    state: "failed",
    error: redact(
      errorMessage(error),
      configSecrets(entry.config),
    ),
    toolCount: 0,
  };
}

function initialStatus(entry: ServerEntry): HubServerStatus {
  const status: HubServerStatus = {
    name: entry.config.name,
    namespace: entry.namespace,
    state: entry.enabled ? "failed" : "disabled",
    toolCount: 0,
  };
  if (entry.enabled) status.error = NOT_STARTED;
  return status;
}

/** A plain server config as an enabled entry; an entry with its config checked. */
function entryOf(server: ServerEntry | MCPServerConfig): ServerEntry {
  if (isRecord(server) && isRecord(server.config)) {
    const entry = server as ServerEntry;
    return { ...entry, config: validateServerConfig(entry.config) };
  }
  const config = validateServerConfig(server);
  return { config, namespace: config.name, enabled: true };
}
