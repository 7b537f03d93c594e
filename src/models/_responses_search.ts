/**
 * OpenAI Responses' tool search: a `tool_search` tool whose searches this
 * library's catalog answers (`execution: "client"`: each
 * `tool_search_call` gets a `tool_search_output` loading the tools found,
 * grouped in a namespace per server), or OpenAI's hosted search over every
 * tool declared with `defer_loading: true` in a namespace per server.
 * Calls then come as `function_call` items naming the function (and its
 * `namespace`). Internal.
 *
 * Field names from "Tool search"
 * (https://developers.openai.com/api/docs/guides/tools-tool-search) and
 * `openai` 7.59 (`ToolSearchTool`, `NamespaceTool`,
 * `ResponseToolSearchCall`, `ResponseToolSearchOutputItemParam`,
 * `FunctionTool.defer_loading`, `ResponseFunctionToolCall.namespace`).
 *
 * @module
 */

import type { Entry, NativeSearch, SearchDeclaration } from "./_codec.ts";
import type { OpenAIResponsesNamespace } from "./search_types.ts";
import type { OpenAIResponsesTool } from "./types.ts";

/** OpenAI Responses' native deferral. */
export const responsesSearch: NativeSearch<"openai-responses"> = {
  // A client search hands the model the tools it finds, in its answer.
  declaresAll: (by) => by === "provider",
  definitions({ by, tool, deferred, namespace }, declare) {
    if (by === "catalog") {
      return [{
        type: "tool_search",
        execution: "client",
        description: tool.description,
        parameters: tool.parameters,
      }];
    }
    return [
      { type: "tool_search" },
      ...namespaces(deferred, namespace, declare, true),
    ];
  },
  searchCall: (call, { by }) =>
    by === "catalog" && call.type === "tool_search_call" &&
      call.execution === "client"
      ? { id: call.call_id ?? undefined, args: call.arguments }
      : undefined,
  found: (id, entries, _note, { namespace }, declare) => ({
    type: "tool_search_output",
    call_id: id ?? null,
    execution: "client",
    tools: namespaces(entries, namespace, declare, false),
  }),
};

/** The entries as one namespace per server, in the entries' order. */
function namespaces(
  entries: readonly Entry[],
  namespace: SearchDeclaration["namespace"],
  declare: (entries: readonly Entry[]) => unknown[],
  deferred: boolean,
): OpenAIResponsesNamespace[] {
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    const { name } = entry.tool;
    const ns = name.slice(0, Math.max(0, name.indexOf("/")));
    const group = groups.get(ns);
    if (group) group.push(entry);
    else groups.set(ns, [entry]);
  }
  return [...groups].map(([ns, group]) => ({
    type: "namespace",
    ...namespace(ns),
    tools: (declare(group) as OpenAIResponsesTool[]).map((definition) =>
      deferred ? { ...definition, defer_loading: true } : definition
    ),
  }));
}
