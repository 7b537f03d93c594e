/**
 * Options of `modelTools()` / `toolDefinitions()`, the approval hook, and
 * the report on what each tool's schema became.
 *
 * @module
 */

import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import type {
  InvokeOptions,
  ToolAnnotations,
  ToolCapability,
} from "../types.ts";

/**
 * Where the tools come from: a registry (calls are resolved through it at
 * dispatch time, so a server's refreshed tools are used), or a list of
 * registered tools such as a skill's `select(registry)`.
 */
export type ToolSource = ToolRegistry | readonly RegisteredTool[];

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
}
