/**
 * Hand the registered tools to a model: tool definitions in the exact JSON
 * of the OpenAI (Chat Completions and Responses), Anthropic, Gemini and
 * Vercel AI SDK APIs — each schema transformed to what that API accepts —
 * and a `dispatch()` that runs the calls the model makes through the
 * registry and answers in that API's tool-result format, with an approval
 * hook before writing tools.
 *
 * No provider SDK is imported: the shapes are plain JSON, checked against
 * the SDKs' types in this package's tests.
 *
 * @example Give a registry's tools to OpenAI and answer its tool calls
 * ```ts ignore
 * import OpenAI from "openai";
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { modelTools } from "@cleveragents/mcp-adapter/models";
 *
 * const hub = new MCPToolHub(servers);
 * await hub.start();
 * const tools = modelTools(hub.registry, "openai-chat", {
 *   approve: ({ name, args }) => confirm(`${name} ${JSON.stringify(args)}?`),
 * });
 * const openai = new OpenAI(); // reads OPENAI_API_KEY
 * const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "…" }];
 * const response = await openai.chat.completions.create({
 *   model: "gpt-5",
 *   messages,
 *   tools: tools.definitions,
 * });
 * const message = response.choices[0]!.message;
 * messages.push(message, ...await tools.dispatchAll(message.tool_calls ?? []));
 * ```
 *
 * @module
 */

export { modelTools, toolDefinitions } from "./src/models/model_tools.ts";
export {
  promptMessages,
  resourceMessages,
} from "./src/models/context_messages.ts";
export type {
  AiSdkAssistantMessage,
  AiSdkUserMessage,
  AnthropicMessage,
  ContextOptions,
  ContextShapes,
  GeminiContent,
  OpenAIChatAssistantMessage,
  OpenAIChatUserMessage,
  OpenAIResponsesAssistantMessage,
  OpenAIResponsesUserMessage,
  PromptData,
  PromptMessageData,
  ResourceContentsData,
  ResourceReadData,
} from "./src/models/context_types.ts";
// Types of the root entry that this one's API uses, so it documents on its own.
export type { RegisteredTool, ToolRegistry } from "./src/tools/registry.ts";
export type {
  InvokeOptions,
  JsonSchema,
  MCPAppVisibility,
  MCPContentBlock,
  MCPErrorKind,
  MCPProgress,
  MCPToolResult,
  MCPToolUi,
  ToolAnnotations,
  ToolCapability,
} from "./src/types.ts";
export type { DispatchResult, ModelTools } from "./src/models/model_tools.ts";
export type {
  ApprovalPolicy,
  ApprovalRequest,
  ApproveFunction,
  DispatchOptions,
  ModelToolsOptions,
  ResultBudget,
  ResultCut,
  SchemaReport,
  ToolDefinitionOptions,
  ToolHandoff,
  ToolSearchSettings,
  ToolSource,
} from "./src/models/options.ts";
export type {
  AnthropicToolReference,
  AnthropicToolSearchTool,
  OpenAIResponsesNamespace,
  OpenAIResponsesToolSearch,
  OpenAIResponsesToolSearchCall,
  OpenAIResponsesToolSearchOutput,
} from "./src/models/search_types.ts";
export type {
  CatalogHub,
  ToolCatalog,
  ToolRankerSource,
  ToolSearchOptions,
  ToolSearchResult,
} from "./src/search/catalog.ts";
export type {
  ToolRanker,
  ToolRankerSearchOptions,
  ToolSearchEntry,
  ToolSearchHit,
} from "./src/search/types.ts";
export type {
  AiSdkInputSchema,
  AiSdkModelOutput,
  AiSdkTool,
  AiSdkToolCall,
  AiSdkToolMessage,
  AiSdkToolOutput,
  AiSdkToolResultPart,
  AnthropicResultBlock,
  AnthropicTool,
  AnthropicToolResult,
  AnthropicToolResultMessage,
  AnthropicToolUse,
  GeminiFunctionCall,
  GeminiFunctionDeclaration,
  GeminiFunctionResponseContent,
  GeminiFunctionResponsePart,
  GeminiOpenApiFunctionDeclaration,
  GeminiOpenApiTool,
  GeminiSchema,
  GeminiTool,
  ModelProvider,
  OpenAIChatImageMessage,
  OpenAIChatMessage,
  OpenAIChatTool,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIResponsesFunctionCall,
  OpenAIResponsesFunctionCallOutput,
  OpenAIResponsesTool,
} from "./src/models/types.ts";
export type {
  FlatDefinitionShapes,
  ProviderShapes,
  ResultOf,
  TurnOf,
} from "./src/models/shapes.ts";
