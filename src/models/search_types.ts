/**
 * The JSON shapes of the providers' own tool search, for the progressive
 * hand-off: Anthropic's tool search tool and `tool_reference` blocks, OpenAI
 * Responses' `tool_search` tool, namespaces and tool-search items. Each
 * field name is the provider's, as its documentation and SDK spell it
 * (docs/tool-search.md cites the pages).
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";
import type { OpenAIResponsesTool } from "./types.ts";

export type { AnthropicToolReference } from "./types.ts";

/**
 * Anthropic's server-side tool search (BM25 over the deferred tools):
 * `{ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }`.
 */
export interface AnthropicToolSearchTool {
  /** The tool search tool's versioned type. */
  type: "tool_search_tool_bm25_20251119";
  /** Its fixed name. */
  name: "tool_search_tool_bm25";
}

/**
 * OpenAI Responses' tool search tool: `{ type: "tool_search" }` searched by
 * OpenAI over the deferred functions, or with `execution: "client"` a
 * search the host runs (this library's catalog), answered with a
 * `tool_search_output` item.
 */
export interface OpenAIResponsesToolSearch {
  /** Always `"tool_search"`. */
  type: "tool_search";
  /** `"client"`: the host answers its calls. Absent: OpenAI searches. */
  execution?: "client";
  /** For a client search: what the model is told it does. */
  description?: string;
  /** For a client search: its arguments' JSON Schema. */
  parameters?: JsonSchema;
}

/**
 * OpenAI Responses: functions grouped under a namespace (one per MCP
 * server). The model sees the namespace's name and description until a
 * search loads the functions in it.
 */
export interface OpenAIResponsesNamespace {
  /** Always `"namespace"`. */
  type: "namespace";
  /** The namespace, as calls name it (`function_call.namespace`). */
  name: string;
  /** What the namespace holds, for the model. */
  description: string;
  /** Its functions (`defer_loading: true` until searched). */
  tools: OpenAIResponsesTool[];
}

/** A `tool_search_call` item of `response.output`. */
export interface OpenAIResponsesToolSearchCall {
  /** Always `"tool_search_call"`. */
  type: "tool_search_call";
  /** The id to answer with; `null` for OpenAI's own searches. */
  call_id: string | null;
  /** `"client"`: the host answers it; `"server"`: OpenAI ran it. */
  execution: "client" | "server";
  /** The search's arguments (a client search: what its `parameters` declare). */
  arguments: unknown;
  /** The item's id. */
  id?: string;
}

/** A `tool_search_output` input item: the tools a client search loads. */
export interface OpenAIResponsesToolSearchOutput {
  /** Always `"tool_search_output"`. */
  type: "tool_search_output";
  /** The id of the `tool_search_call` it answers. */
  call_id: string | null;
  /** Always `"client"`. */
  execution: "client";
  /** The tools found: a namespace per server, its functions loaded. */
  tools: OpenAIResponsesNamespace[];
}
