/**
 * The tool catalog: the one index of the tools a hub, a lone adapter or a
 * registry offers to models, searched by a ranker. Passive: it reads the
 * registry (the one list of tools, which the hub and the adapters keep
 * current through `list_changed`, `subscriptions/listen` and reconnects)
 * when it is asked something, and hands the ranker only what changed since
 * it last looked. A tool held back by its pin is not in the registry, so it
 * is never found; an app-only tool (MCP Apps visibility without `"model"`)
 * is left out of the index.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import { toolAlias } from "../tools/alias.ts";
import {
  type RegisteredTool,
  ToolRegistry as Registry,
} from "../tools/registry.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { forModel } from "../tools/visibility.ts";
import { errorMessage } from "../util/caught.ts";
import { describeValue } from "../util/values.ts";
import { loadDefaultRanker } from "./_default_ranker.ts";
import type { ToolRanker, ToolSearchEntry } from "./types.ts";

/** What a search asks for beyond the query. */
export interface ToolSearchOptions {
  /** At most this many tools, best first: 1 to 100. Default 5. */
  k?: number;
  /** Only tools of these servers: server names (`config.name`) or namespaces. */
  servers?: readonly string[];
  /** Only tools known to be read-only (`capability.readOnly`, not `writes`). */
  readOnly?: boolean;
  /** Only tools this accepts (the host's own rule, e.g. access control). */
  only?: (tool: RegisteredTool) => boolean;
}

/** One tool a search found. */
export interface ToolSearchResult {
  /** Its registry name, `{namespace}/{tool}`. */
  name: string;
  /** Its model-safe alias, the name models call it by. */
  alias: string;
  /** Its namespace. */
  namespace: string;
  /** The ranker's score (higher is better; comparable within one answer). */
  score: number;
  /** The tool: descriptor, capability, provenance and `invoke()`. */
  tool: RegisteredTool;
}

/** A ranker, or what makes one (sync or async: loaded on the first search). */
export type ToolRankerSource =
  | ToolRanker
  | (() => ToolRanker | Promise<ToolRanker>);

/** Options of {@linkcode toolCatalog}. */
export interface ToolCatalogOptions {
  /**
   * The ranker: a host's own (embeddings, a small model) behind the
   * {@linkcode ToolRanker} contract, or a function that makes one. Default:
   * the built-in lexical ranker, loaded on the first search. Given for a
   * catalog that exists, it replaces that catalog's ranker.
   */
  ranker?: ToolRankerSource;
}

/** What the catalog needs of a hub: its registry and its servers in config order. */
export interface CatalogHub {
  /** The registry every server's tools are registered into. */
  readonly registry: ToolRegistry;
  /** The servers, in config order. */
  status(): readonly { readonly namespace: string }[];
}

/** What the catalog needs of a lone adapter: registration into a registry. */
export interface CatalogAdapter {
  /** The server's config; its name is the namespace. */
  readonly config: { readonly name: string };
  /** Registers the exposed (filtered, not held) tools. */
  registerTools(registry: ToolRegistry): Promise<readonly RegisteredTool[]>;
}

/**
 * What a catalog can be made over: a {@linkcode ToolRegistry}, a hub
 * (config order of its servers), a lone adapter, or a fixed list of tools
 * (a skill's `select(registry)`; its order is kept).
 */
export type CatalogSource =
  | ToolRegistry
  | CatalogHub
  | CatalogAdapter
  | readonly RegisteredTool[];

/** The default number of tools a search returns. */
export const DEFAULT_SEARCH_K = 5;
/** The most tools one search may return. */
export const MAX_SEARCH_K = 100;
/** The longest query read; longer ones are cut here. */
export const MAX_QUERY_CHARS = 1000;
/** The most hits read of one ranker answer, whatever it returns. */
const MAX_HITS_READ = 1000;

/** How a catalog reads its tools. */
interface Feed {
  /** The tools, as the source holds them now. */
  tools(): readonly RegisteredTool[];
  /** Namespaces in the order the model sees them (config order). */
  order?: (() => readonly string[]) | undefined;
  /** Brings the tools up to date first (a lone adapter's listing). */
  refresh?: (() => Promise<void>) | undefined;
  /** The registry behind the tools, when there is one. */
  registry?: ToolRegistry | undefined;
  /** Whether the list's own order is the model's order. */
  ordered?: boolean;
}

/** One indexed tool. */
interface Indexed {
  tool: RegisteredTool;
  namespace: string;
  /** What the ranker was given, to tell a change from a new object. */
  key: string;
  /** Estimated tokens of its definition; computed when first asked. */
  tokens?: number;
}

/**
 * One index of the tools a model may be offered, kept current from its
 * source, searched by a ranker. Get it with {@linkcode toolCatalog}: one
 * catalog per registry (a hub's, or the one a lone adapter is registered
 * into) and per lone adapter.
 *
 * @example Search a registry's tools
 * ```ts
 * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
 * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
 *
 * const registry = new ToolRegistry();
 * registry.register({
 *   name: "notes/delete_note",
 *   description: "Delete a note by its id",
 *   inputSchema: { type: "object", properties: { id: { type: "number" } } },
 *   capability: { readOnly: false, writes: true },
 *   checkpointable: false,
 *   source: "mcp",
 *   sourceMetadata: { server: "notes" },
 *   invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
 * } satisfies RegisteredTool);
 * const [best] = await toolCatalog(registry).search("remove a note", { k: 3 });
 * console.log(best?.name, best?.alias); // "notes/delete_note" "notes__delete_note"
 * ```
 */
export class ToolCatalog {
  #feed: Feed;
  #rankerSource: ToolRankerSource | undefined;
  /** The ranker, once loaded; a load in progress. */
  #ranker: ToolRanker | undefined;
  #loading: Promise<ToolRanker> | undefined;
  /** Every indexed tool by registry name. */
  readonly #indexed = new Map<string, Indexed>();
  /** Changes the ranker has not been given yet (ids; `undefined`: removed). */
  readonly #pending = new Map<string, true | undefined>();
  /** Every namespace seen, in first-seen order. */
  readonly #namespaces = new Set<string>();
  /** The model-visible tools in order; `undefined` after a change. */
  #sorted: RegisteredTool[] | undefined;

  /**
   * Creates a catalog. Prefer {@linkcode toolCatalog}, which keeps one per
   * registry, hub and adapter.
   *
   * @param source Where the tools come from.
   * @param options The ranker.
   */
  constructor(source: CatalogSource, options: ToolCatalogOptions = {}) {
    this.#feed = feedOf(source);
    this.#rankerSource = options.ranker;
  }

  /** The registry the tools are read from; `undefined` for a fixed list. */
  get registry(): ToolRegistry | undefined {
    return this.#feed.registry;
  }

  /**
   * The tools a model may be offered, in the order it sees them: servers in
   * config order (a hub's; otherwise by namespace), then tools by name; a
   * fixed list keeps its own order. Held and app-only tools are not in it.
   *
   * @returns A new array.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
   *
   * console.log(toolCatalog(new ToolRegistry()).list().length); // 0
   * ```
   */
  list(): RegisteredTool[] {
    this.#sync();
    this.#sorted ??= this.#sort();
    return [...this.#sorted];
  }

  /**
   * The namespaces of the catalog in the model's order: a hub's configured
   * servers (connected or not), then any other namespace seen. A server
   * that drops and returns keeps its place.
   *
   * @returns A new array.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
   *
   * console.log(toolCatalog(new ToolRegistry()).servers()); // []
   * ```
   */
  servers(): string[] {
    this.#sync();
    const order = this.#feed.order?.() ?? [];
    const rest = [...this.#namespaces].filter((ns) => !order.includes(ns));
    if (!this.#feed.ordered) rest.sort(compare);
    return [...new Set([...order, ...rest])];
  }

  /**
   * A model-visible tool by its registry name or alias.
   *
   * @param name `{namespace}/{tool}` or its alias.
   * @returns The tool, or `undefined` when the catalog has none of that name.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
   *
   * console.log(toolCatalog(new ToolRegistry()).get("notes__delete_note")); // undefined
   * ```
   */
  get(name: string): RegisteredTool | undefined {
    this.#sync();
    const found = this.#indexed.get(name) ??
      this.#indexed.get(this.#feed.registry?.resolve(name)?.name ?? "");
    return found?.tool;
  }

  /**
   * The estimated tokens of every tool's definition handed to a model flat
   * (name, description and input schema as JSON, about 4 characters a
   * token): what decides whether to switch to search.
   *
   * @returns The estimate.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
   *
   * console.log(toolCatalog(new ToolRegistry()).definitionTokens()); // 0
   * ```
   */
  definitionTokens(): number {
    this.#sync();
    let total = 0;
    for (const record of this.#indexed.values()) {
      record.tokens ??= estimateTokens(record.tool);
      total += record.tokens;
    }
    return total;
  }

  /**
   * The tools that best match `query`, best first, with their scores. The
   * ranker is loaded on the first search; the index then follows the source
   * change by change.
   *
   * @param query What the tool should do, in plain words (the first 1,000
   * characters are read).
   * @param options How many, from which servers, read-only only.
   * @returns The tools found, at most `k`.
   * @throws {MCPAdapterError} `invalid_argument` for an empty query or a bad
   * option; `search_failed` when the ranker fails.
   * @throws {MCPNotConnectedError} For a lone adapter that is not connected.
   *
   * @example
   * ```ts ignore
   * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
   *
   * declare const hub: import("@cleveragents/mcp-adapter").MCPToolHub;
   * for (const hit of await toolCatalog(hub).search("open a pull request", { k: 3, servers: ["github"] })) {
   *   console.log(hit.score.toFixed(2), hit.name, hit.tool.description);
   * }
   * ```
   */
  async search(
    query: string,
    options: ToolSearchOptions = {},
  ): Promise<ToolSearchResult[]> {
    const text = checkQuery(query);
    const { k, servers, readOnly } = checkOptions(options);
    const { only } = options;
    if (this.#feed.refresh) await this.#feed.refresh();
    const ranker = await this.#loadRanker();
    this.#sync();
    this.#flush(ranker);
    const accept = (id: string): boolean => {
      const record = this.#indexed.get(id);
      if (!record) return false;
      if (
        servers && !servers.has(record.namespace) &&
        !servers.has(record.tool.sourceMetadata.server)
      ) return false;
      if (
        readOnly &&
        !(record.tool.capability.readOnly && !record.tool.capability.writes)
      ) return false;
      return only === undefined || only(record.tool);
    };
    let hits: unknown;
    try {
      hits = await ranker.search(text, { k, accept });
    } catch (error) {
      throw new MCPAdapterError(
        "search_failed",
        `The tool ranker failed for the query ${describeValue(text)}: ${
          errorMessage(error)
        }`,
        { cause: error },
      );
    }
    const results: ToolSearchResult[] = [];
    const seen = new Set<string>();
    const list = Array.isArray(hits) ? hits.slice(0, MAX_HITS_READ) : [];
    for (const hit of list) {
      if (results.length >= k) break;
      const id = typeof hit?.id === "string" ? hit.id : undefined;
      const score = typeof hit?.score === "number" && Number.isFinite(hit.score)
        ? hit.score
        : undefined;
      // The source may have changed while the ranker ran: what it no
      // longer holds, or now refuses, is not returned.
      if (id === undefined || score === undefined || seen.has(id)) continue;
      if (!accept(id)) continue;
      seen.add(id);
      const record = this.#indexed.get(id)!;
      results.push({
        name: id,
        alias: toolAlias(id),
        namespace: record.namespace,
        score,
        tool: record.tool,
      });
    }
    return results;
  }

  /** Replaces the ranker; the next search indexes everything in the new one. */
  useRanker(ranker: ToolRankerSource): void {
    if (ranker === this.#rankerSource) return;
    this.#rankerSource = ranker;
    this.#ranker = undefined;
    this.#loading = undefined;
    this.#pending.clear();
  }

  /** The hub's config order, for a catalog first made over its registry. */
  orderBy(order: () => readonly string[]): void {
    this.#feed = { ...this.#feed, order };
    this.#sorted = undefined;
  }

  async #loadRanker(): Promise<ToolRanker> {
    if (this.#ranker) return this.#ranker;
    const source = this.#rankerSource;
    const loading = this.#loading ??= (async () => {
      try {
        return source === undefined
          ? await loadDefaultRanker()
          : typeof source === "function"
          ? await source()
          : source;
      } catch (error) {
        throw new MCPAdapterError(
          "search_failed",
          `The tool ranker could not be loaded: ${errorMessage(error)}`,
          { cause: error },
        );
      }
    })();
    let ranker: ToolRanker;
    try {
      ranker = await loading;
    } catch (error) {
      if (this.#loading === loading) this.#loading = undefined;
      throw error;
    }
    // Another ranker may have been chosen while this one loaded.
    if (this.#loading !== loading) return await this.#loadRanker();
    if (!this.#ranker) {
      this.#ranker = ranker;
      // The new ranker gets everything; what was pending is in it.
      this.#pending.clear();
      this.#sync();
      this.#pending.clear();
      ranker.add([...this.#indexed.values()].map(entryOf));
    }
    return this.#ranker;
  }

  /** Gives the ranker what changed since the last search. */
  #flush(ranker: ToolRanker): void {
    if (this.#pending.size === 0) return;
    const added: ToolSearchEntry[] = [];
    const removed: string[] = [];
    for (const [id, present] of this.#pending) {
      const record = present && this.#indexed.get(id);
      if (record) added.push(entryOf(record));
      else removed.push(id);
    }
    this.#pending.clear();
    if (removed.length > 0) ranker.remove(removed);
    if (added.length > 0) ranker.add(added);
  }

  /**
   * Compares the source with the index: a tool object that is new but the
   * same tool (a relisting) is taken without telling the ranker; a changed,
   * added or removed tool is queued for it.
   */
  #sync(): void {
    const tools = this.#feed.tools();
    let changed = false;
    const present = new Set<string>();
    for (const tool of tools) {
      if (!forModel(tool)) continue;
      const { name } = tool;
      present.add(name);
      const record = this.#indexed.get(name);
      if (record?.tool === tool) continue;
      changed = true;
      const key = keyOf(tool);
      if (record && record.key === key) {
        record.tool = tool;
        continue;
      }
      const namespace = name.slice(0, Math.max(0, name.indexOf("/")));
      this.#namespaces.add(namespace);
      this.#indexed.set(name, { tool, namespace, key });
      if (this.#ranker) this.#pending.set(name, true);
    }
    if (present.size !== this.#indexed.size) {
      for (const name of this.#indexed.keys()) {
        if (present.has(name)) continue;
        changed = true;
        this.#indexed.delete(name);
        if (this.#ranker) this.#pending.set(name, undefined);
      }
    }
    if (changed) this.#sorted = undefined;
  }

  #sort(): RegisteredTool[] {
    const tools = [...this.#indexed.values()];
    if (this.#feed.ordered) {
      // A fixed list: its own order.
      const rank = new Map(this.#feed.tools().map((tool, i) => [tool.name, i]));
      tools.sort((a, b) => rank.get(a.tool.name)! - rank.get(b.tool.name)!);
      return tools.map((record) => record.tool);
    }
    const order = new Map(this.servers().map((ns, i) => [ns, i]));
    tools.sort((a, b) =>
      order.get(a.namespace)! - order.get(b.namespace)! ||
      compare(a.tool.name, b.tool.name)
    );
    return tools.map((record) => record.tool);
  }
}

/** Code-unit order: the same in every runtime and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const catalogs = new WeakMap<object, ToolCatalog>();

/**
 * The catalog of a hub, a lone adapter or a registry: one per registry (a
 * hub's is its registry's) and one per lone adapter, made on first use.
 * Search, the model hand-off (`modelTools()` of `/models`) and the command
 * line all read it.
 *
 * - A hub: its registry's tools, servers in config order.
 * - A lone adapter: its exposed tools (filter applied, held tools left
 *   out), listed again when the list is stale before each search.
 * - A registry: its tools, namespaces by name.
 * - A list of tools: those, in that order (not kept: a new catalog each call).
 *
 * @param source The hub, adapter, registry or list.
 * @param options A ranker of the host's own, replacing the current one.
 * @returns The catalog.
 *
 * @example A hub's catalog with the built-in ranker
 * ```ts ignore
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { toolCatalog } from "@cleveragents/mcp-adapter/search";
 *
 * declare const hub: MCPToolHub;
 * const hits = await toolCatalog(hub).search("create a calendar event", { k: 5 });
 * ```
 */
export function toolCatalog(
  source: CatalogSource,
  options: ToolCatalogOptions = {},
): ToolCatalog {
  if (Array.isArray(source)) return new ToolCatalog(source, options);
  const key = isHub(source) ? source.registry : source as object;
  let catalog = catalogs.get(key);
  if (!catalog) {
    catalog = new ToolCatalog(source, options);
    catalogs.set(key, catalog);
  } else if (options.ranker !== undefined) {
    catalog.useRanker(options.ranker);
  }
  if (isHub(source)) {
    catalog.orderBy(() => source.status().map((server) => server.namespace));
  }
  return catalog;
}

function isHub(source: CatalogSource): source is CatalogHub {
  return !(source instanceof Registry) && !Array.isArray(source) &&
    typeof (source as CatalogHub).status === "function" &&
    (source as CatalogHub).registry instanceof Registry;
}

function feedOf(source: CatalogSource): Feed {
  if (source instanceof Registry) {
    return { tools: () => source.list(), registry: source };
  }
  if (Array.isArray(source)) {
    const tools = [...source] as RegisteredTool[];
    return { tools: () => tools, ordered: true };
  }
  if (isHub(source)) {
    const { registry } = source;
    return {
      tools: () => registry.list(),
      registry,
      order: () => source.status().map((server) => server.namespace),
    };
  }
  const adapter = source as CatalogAdapter;
  if (
    typeof adapter.registerTools !== "function" ||
    typeof adapter.config?.name !== "string"
  ) {
    throw new MCPAdapterError(
      "invalid_argument",
      `A tool catalog is made over a ToolRegistry, an MCPToolHub, an MCPToolAdapter or a list of registered tools, got ${
        describeValue(source)
      }`,
    );
  }
  const registry = new Registry();
  return {
    tools: () => registry.list(),
    registry,
    refresh: async () => {
      await adapter.registerTools(registry);
    },
  };
}

/** The ranker's view of a tool. */
function entryOf(record: Indexed): ToolSearchEntry {
  const { tool, namespace } = record;
  const entry: ToolSearchEntry = {
    id: tool.name,
    server: namespace,
    name: tool.name.slice(namespace.length + 1),
    inputSchema: tool.inputSchema,
  };
  if (tool.title !== undefined) entry.title = tool.title;
  if (tool.description) entry.description = tool.description;
  if (tool.annotations) {
    entry.annotations = tool.annotations as Readonly<Record<string, unknown>>;
  }
  return entry;
}

/**
 * What the ranker saw of a tool: its fingerprint (name, title, description,
 * schemas, annotations), or without one its text and schema as JSON.
 */
function keyOf(tool: RegisteredTool): string {
  if (tool.fingerprint) return tool.fingerprint;
  try {
    return JSON.stringify([
      tool.title,
      tool.description,
      tool.annotations,
      tool.inputSchema,
    ]);
  } catch {
    // Not JSON (a cycle, a BigInt): never equal, so always re-indexed.
    return `${Math.random()}`;
  }
}

/** About 4 characters a token (o200k on real MCP tools: 4.2). */
function estimateTokens(tool: RegisteredTool): number {
  let chars: number;
  try {
    chars = JSON.stringify({
      name: toolAlias(tool.name),
      description: tool.description,
      parameters: tool.inputSchema,
    }).length;
  } catch {
    chars = tool.name.length + (tool.description?.length ?? 0) + 1000;
  }
  return Math.ceil(chars / 4);
}

function checkQuery(query: unknown): string {
  if (typeof query !== "string" || query.trim() === "") {
    throw new MCPAdapterError(
      "invalid_argument",
      `A tool search needs a query: what the tool should do, in words; got ${
        describeValue(query)
      }`,
    );
  }
  return query.trim().slice(0, MAX_QUERY_CHARS);
}

function checkOptions(options: ToolSearchOptions): {
  k: number;
  servers: Set<string> | undefined;
  readOnly: boolean;
} {
  const k = options.k ?? DEFAULT_SEARCH_K;
  if (!Number.isInteger(k) || k < 1 || k > MAX_SEARCH_K) {
    throw new MCPAdapterError(
      "invalid_argument",
      `k must be an integer from 1 to ${MAX_SEARCH_K}, got ${describeValue(k)}`,
    );
  }
  const { servers } = options;
  if (
    servers !== undefined &&
    (!Array.isArray(servers) ||
      !servers.every((server) => typeof server === "string"))
  ) {
    throw new MCPAdapterError(
      "invalid_argument",
      `servers must be a list of server names or namespaces, got ${
        describeValue(servers)
      }`,
    );
  }
  return {
    k,
    servers: servers && new Set(servers),
    readOnly: options.readOnly === true,
  };
}
