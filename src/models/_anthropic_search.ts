/**
 * Anthropic's tool search: every tool declared with `defer_loading: true`,
 * found either by this library's catalog through a client tool whose
 * `tool_result` holds `tool_reference` blocks (the API then loads those
 * tools for the model), or by Anthropic's own BM25 tool search tool.
 * Internal.
 *
 * Field names from "Tool search tool"
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool)
 * and `@anthropic-ai/sdk` 1.14 (`ToolSearchToolBm25_20251119`,
 * `ToolReferenceBlockParam`, `Tool.defer_loading`).
 *
 * @module
 */

import type { NativeSearch } from "./_codec.ts";
import type { AnthropicTool } from "./types.ts";

/** Anthropic's native deferral. */
export const anthropicSearch: NativeSearch<"anthropic"> = {
  // A tool_reference may only name a tool declared in the request.
  declaresAll: () => true,
  definitions({ by, tool, deferred }, declare) {
    const tools = (declare(deferred) as AnthropicTool[]).map((
      definition,
    ) => ({ ...definition, defer_loading: true }));
    return [
      by === "provider"
        ? {
          type: "tool_search_tool_bm25_20251119",
          name: "tool_search_tool_bm25",
        }
        : {
          name: tool.name,
          description: tool.description,
          input_schema: tool.parameters as AnthropicTool["input_schema"],
        },
      ...tools,
    ];
  },
  searchCall: (call, { by, tool }) =>
    by === "catalog" && call.name === tool.name
      ? { id: call.id, args: call.input }
      : undefined,
  found: (id, entries, note) => ({
    type: "tool_result",
    tool_use_id: id ?? "",
    content: entries.length === 0
      ? [{ type: "text", text: note }]
      : entries.map((entry) => ({
        type: "tool_reference",
        tool_name: entry.name,
      })),
  }),
};
