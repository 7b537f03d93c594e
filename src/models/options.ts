/**
 * Options of `modelTools()` / `toolDefinitions()`, the approval hook, and
 * the report on what each tool's schema became.
 *
 * @module
 */

import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import type { CatalogHub, ToolCatalog } from "../search/catalog.ts";
import type {
  InvokeOptions,
  ToolAnnotations,
  ToolCapability,
} from "../types.ts";

/**
 * Where the tools come from: a hub (its servers in config order), a
 * registry (namespaces by name), or their catalog (`toolCatalog()` of
 * `/search`) — calls are resolved through the registry at dispatch time, so
 * a server's refreshed tools are used — or a list of registered tools such
 * as a skill's `select(registry)`, in its own order. Within a server, tools
 * are ordered by name, so the definitions are the same bytes whatever order
 * the server lists them in and however often it reconnects.
 */
export type ToolSource =
  | ToolRegistry
  | readonly RegisteredTool[]
  | ToolCatalog
  | CatalogHub;

/**
 * When the tools are handed over for search rather than all at once (the
 * progressive hand-off), and how. See docs/tool-search.md.
 */
export interface ToolSearchSettings {
  /**
   * `"auto"`: every tool's definition while they take less than the
   * threshold of the context, the search hand-off from there; `"always"`;
   * `"never"`. Default `"auto"`.
   */
  when?: "auto" | "always" | "never";
  /** The model's context window, in tokens. Default 128,000. */
  contextTokens?: number;
  /**
   * The share of the context the definitions may take before search is
   * used, from 0 to 1. Default 0.05: the MCP client guidance says to switch
   * at 1–5% of the context window.
   */
  threshold?: number;
  /** The threshold in tokens instead (over `threshold`). */
  thresholdTokens?: number;
  /**
   * `"native"`: the provider's own deferral where it has one (Anthropic
   * `defer_loading` with `tool_reference` results, OpenAI Responses
   * `tool_search` with namespaces), the meta-tool pair elsewhere; `"meta"`:
   * the pair (`search_tools`, then `call_tool`) for every provider. Default
   * `"native"`.
   */
  form?: "native" | "meta";
  /**
   * Who searches in the native forms: `"catalog"`, this library's ranker
   * (the host's, if the catalog has one), through a search tool the model
   * calls and `dispatch()` answers; or `"provider"`, Anthropic's BM25 tool
   * search or OpenAI's hosted `tool_search`. Default `"catalog"`.
   */
  searchBy?: "catalog" | "provider";
  /** How many tools one search gives the model: 1 to 20. Default 5. */
  results?: number;
  /**
   * The budget, in characters, of the tool names listed in
   * `ModelTools.instructions` (server by server, cut with `+N more`); `0`
   * lists server names only. Default 2,000 (about 500 tokens).
   */
  overviewChars?: number;
}

/** How tool definitions are written. */
export interface ToolDefinitionOptions {
  /**
   * Start each description with the tool's title, when it has one that the
   * description does not already start with. Default `true`.
   */
  title?: boolean;
  /**
   * End each description with what the tool may do: `(read-only)` or
   * `(writes)`; nothing when neither is known. Default `false`.
   */
  capabilityHint?: boolean;
  /**
   * OpenAI: send the strict form of a schema when it can be made strict
   * (`strict: true`), the plain schema otherwise. `false`: always the plain
   * schema with `strict: false`. Default `true`.
   */
  strict?: boolean;
}

/** What the approval hook is asked about. */
export interface ApprovalRequest {
  /** The tool about to run. */
  tool: RegisteredTool;
  /** The name the model called it by. */
  name: string;
  /** The arguments it will get (parsed, and for strict OpenAI schemas with nulls of omitted optionals removed). */
  args: Record<string, unknown>;
  /** The provider's tool call, as received. */
  call: unknown;
}

/**
 * Decides whether a tool may run. Resolve `false` to refuse: the model gets
 * a tool result saying the user declined, not an exception.
 */
export type ApproveFunction = (
  request: ApprovalRequest,
) => boolean | Promise<boolean>;

/**
 * Which calls `approve` is asked about:
 * - `"not-read-only"` (the default): every tool not known to be read-only,
 *   that is every tool whose `capability.readOnly` is not `true` (known
 *   read-only: a capability override, the server's `readOnlyHint: true`, or
 *   a read verb in its name such as `get_`/`list_`; a tool that also writes
 *   is asked about).
 * - `"writes"`: only tools whose `capability.writes` is `true` (the
 *   old default, under which a tool named `save_pdf` without annotations
 *   was never asked about).
 * - `"all"`: every call.
 * - a function of the tool, its capability and the server's annotations:
 *   `true` asks. One that throws, or returns anything but `false`, asks.
 *
 * Names and annotations come from the server: hints, not trust.
 */
export type ApprovalPolicy =
  | "all"
  | "not-read-only"
  | "writes"
  | ((
    tool: RegisteredTool,
    capability: ToolCapability,
    annotations: ToolAnnotations | undefined,
  ) => boolean);

/**
 * How much of one tool result a model is given. The host always keeps the
 * whole result (`ModelTools.run()`); what is over the budget reaches the
 * model as a head and a tail with a marker between them saying how much was
 * cut and how to get the rest. Each field falls back to the next level:
 * the call's `resultBudget`, the server's (`serverResultBudgets`), the one
 * given to `modelTools()`, then the default.
 */
export interface ResultBudget {
  /**
   * The most tokens of text (the result's text, resources and notes, the
   * marker included), estimated as the UTF-8 bytes ÷ 4, so at most 4 ×
   * `maxTokens` bytes. Whole number, at least 256. Default 25,000 (Claude
   * Code's default for an MCP tool result).
   */
  maxTokens?: number;
  /** The most images; the others become a note. Default 10. */
  maxImages?: number;
  /**
   * The largest image, in decoded bytes; a larger one becomes a note.
   * Default 5 MiB (Anthropic's limit per image).
   */
  maxImageBytes?: number;
}

/** How calls are run. */
export interface DispatchOptions {
  /**
   * Asked before a tool runs, for the calls `approvalPolicy` names (by
   * default every tool not known to be read-only). Without it, tools run
   * unasked. A hook that throws counts as a refusal.
   */
  approve?: ApproveFunction;
  /** Which calls `approve` is asked about. Default `"not-read-only"`. */
  approvalPolicy?: ApprovalPolicy;
  /** Ask `approve` before every tool: the same as `approvalPolicy: "all"`. Default `false`. */
  approveAll?: boolean;
  /** Passed to each tool's `invoke()`: deadlines, `signal`, `onProgress`. */
  invokeOptions?: InvokeOptions;
  /**
   * How much of a result the model is given: on `modelTools()` the default
   * of every call, on `dispatch()` that call's, merged field by field.
   */
  resultBudget?: ResultBudget;
}

/** Options of `modelTools()`: how definitions are written and calls run. */
export interface ModelToolsOptions
  extends ToolDefinitionOptions, DispatchOptions {
  /**
   * Servers' `instructions` by server name (`hub.instructions()`, or
   * `{ [adapter.config.name]: adapter.instructions }`): those of servers
   * with a tool in the definitions become `ModelTools.instructions`, a
   * system-prompt fragment. Default: none.
   */
  instructions?: Readonly<Record<string, string | undefined>>;
  /** The most characters of one server's instructions kept. Default 4096. */
  instructionsMaxChars?: number;
  /**
   * Result budgets by server name (`sourceMetadata.server`), between the
   * `resultBudget` of `modelTools()` and that of a call. Default: none.
   */
  serverResultBudgets?: Readonly<Record<string, ResultBudget>>;
  /**
   * Also declare `read_tool_result`, a tool with which the model reads on
   * in a result the budget cut (by the id and offset the cut marker gives),
   * instead of calling the tool again. The last 16 cut results are kept.
   * Default `false`.
   */
  resultPages?: boolean;
  /**
   * The progressive hand-off: definitions for searching the tools instead
   * of every tool's, once they would take too much of the context. A mode
   * name or the settings. Default `"auto"` at 5% of 128,000 tokens.
   */
  toolSearch?: "auto" | "always" | "never" | ToolSearchSettings;
}

/** How the tools were handed to the model, and why. */
export interface ToolHandoff {
  /**
   * `"flat"`: every tool's definition; `"search"`: the model searches the
   * catalog and gets the tools it finds.
   */
  mode: "flat" | "search";
  /**
   * The definitions' form: `"flat"`; `"native"`, the provider's own
   * deferral; `"meta"`, the pair `search_tools` and `call_tool`.
   */
  form: "flat" | "native" | "meta";
  /** In the native form: who searches, the catalog or the provider. */
  searchBy?: "catalog" | "provider";
  /** The estimated tokens of every tool's definition (0 with `when: "never"`). */
  definitionTokens: number;
  /** The threshold they were compared with. */
  thresholdTokens: number;
}

/**
 * What the result budget left out of one result, for the host
 * (`ModelTools.run()`).
 */
export interface ResultCut {
  /** Characters of the whole text the model would have read. */
  totalChars: number;
  /** Characters of it the model read: the head and the tail. */
  shownChars: number;
  /** Images left out (over `maxImages` or `maxImageBytes`, or not valid base64). */
  omittedImages: number;
  /** With `resultPages`: the id `read_tool_result` takes, when text was cut. */
  id?: string;
}

/** What one tool's definition became, and why. */
export interface SchemaReport {
  /** The registry name, `{namespace}/{tool}`. */
  tool: string;
  /** The name the model sees. */
  name: string;
  /** OpenAI only: whether the strict form was sent. */
  strict?: boolean;
  /**
   * What was changed and why, e.g. `"strict"`, `"not strict: /properties/env
   * allows additional properties (a map); …"`, `"removed unsupported
   * keywords: $schema, additionalProperties"`.
   */
  notes: string[];
  /**
   * Set when the tool was left out of the definitions, and why (e.g. `"left
   * out: its input schema nests more than 128 levels deep"`); the other
   * tools are declared as usual.
   */
  omitted?: string;
}
