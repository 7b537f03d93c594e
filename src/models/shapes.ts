/**
 * Each model API's shapes in one map, by provider: its definitions, a
 * call, a result and a turn (`ProviderShapes`), what the flat hand-off
 * declares (`FlatDefinitionShapes`), and what `dispatch()` answers a call
 * of a given type with (`ResultOf`, `TurnOf`). The shapes themselves are
 * `types.ts`'s and, for the providers' own tool search, `search_types.ts`'s.
 *
 * @module
 */

import type {
  AiSdkTool,
  AiSdkToolCall,
  AiSdkToolMessage,
  AiSdkToolResultPart,
  AnthropicTool,
  AnthropicToolResult,
  AnthropicToolResultMessage,
  AnthropicToolUse,
  GeminiFunctionCall,
  GeminiFunctionResponseContent,
  GeminiFunctionResponsePart,
  GeminiOpenApiTool,
  GeminiTool,
  ModelProvider,
  OpenAIChatMessage,
  OpenAIChatTool,
  OpenAIChatToolCall,
  OpenAIResponsesFunctionCall,
  OpenAIResponsesFunctionCallOutput,
  OpenAIResponsesTool,
} from "./types.ts";
import type {
  AnthropicToolSearchTool,
  OpenAIResponsesNamespace,
  OpenAIResponsesToolSearch,
  OpenAIResponsesToolSearchCall,
  OpenAIResponsesToolSearchOutput,
} from "./search_types.ts";
import type { MCPToolResult } from "../types.ts";
import type { ResultCut } from "./options.ts";

/**
 * Each provider's definitions when every tool is declared (the flat
 * hand-off, and what `toolDefinitions()` returns).
 */
export interface FlatDefinitionShapes {
  /** OpenAI Chat Completions. */
  "openai-chat": OpenAIChatTool[];
  /** OpenAI Responses. */
  "openai-responses": OpenAIResponsesTool[];
  /** Anthropic Messages. */
  anthropic: AnthropicTool[];
  /** Gemini, `parametersJsonSchema`. */
  gemini: GeminiTool[];
  /** Gemini, OpenAPI-subset `parameters`. */
  "gemini-openapi": GeminiOpenApiTool[];
  /** The Vercel AI SDK. */
  "ai-sdk": Record<string, AiSdkTool>;
}

/**
 * What `dispatch()` returns for a call of type `C`: for OpenAI Responses a
 * `tool_search_call` is answered with a `tool_search_output`, a
 * `function_call` with a `function_call_output`.
 */
export type ResultOf<P extends ModelProvider, C> = P extends "openai-responses"
  ? C extends OpenAIResponsesToolSearchCall ? OpenAIResponsesToolSearchOutput
  : OpenAIResponsesFunctionCallOutput
  : ProviderShapes[P]["result"];

/** What `dispatchAll()` returns for calls of type `C` (see {@linkcode ResultOf}). */
export type TurnOf<P extends ModelProvider, C> = P extends "openai-responses"
  ? ResultOf<P, C>[]
  : ProviderShapes[P]["turn"];

/** Each provider's definition, call, result and turn types. */
export interface ProviderShapes {
  /** OpenAI Chat Completions. */
  "openai-chat": {
    definitions: OpenAIChatTool[];
    call: OpenAIChatToolCall;
    result: OpenAIChatMessage[];
    turn: OpenAIChatMessage[];
  };
  /** OpenAI Responses. */
  "openai-responses": {
    definitions: Array<
      OpenAIResponsesTool | OpenAIResponsesToolSearch | OpenAIResponsesNamespace
    >;
    call: OpenAIResponsesFunctionCall | OpenAIResponsesToolSearchCall;
    result: OpenAIResponsesFunctionCallOutput | OpenAIResponsesToolSearchOutput;
    turn: Array<
      OpenAIResponsesFunctionCallOutput | OpenAIResponsesToolSearchOutput
    >;
  };
  /** Anthropic Messages. */
  anthropic: {
    definitions: Array<AnthropicTool | AnthropicToolSearchTool>;
    call: AnthropicToolUse;
    result: AnthropicToolResult;
    turn: AnthropicToolResultMessage;
  };
  /** Gemini (`@google/genai`, REST), `parametersJsonSchema`. */
  gemini: {
    definitions: GeminiTool[];
    call: GeminiFunctionCall;
    result: GeminiFunctionResponsePart;
    turn: GeminiFunctionResponseContent;
  };
  /** Gemini with OpenAPI-subset `parameters` (older endpoints, Vertex AI). */
  "gemini-openapi": {
    definitions: GeminiOpenApiTool[];
    call: GeminiFunctionCall;
    result: GeminiFunctionResponsePart;
    turn: GeminiFunctionResponseContent;
  };
  /** Vercel AI SDK 7 (`ai`): tool results carry images as `file` parts. */
  "ai-sdk": {
    definitions: Record<string, AiSdkTool>;
    call: AiSdkToolCall;
    result: AiSdkToolResultPart;
    turn: AiSdkToolMessage;
  };
}

/**
 * One call, run: what the model is sent, and the whole result for the
 * host.
 */
export interface DispatchResult<P extends ModelProvider> {
  /** The provider's tool-result message(s): what `dispatch()` returns. */
  message: ProviderShapes[P]["result"];
  /** The text the model reads in it (within the result budget), or the error message. */
  text: string;
  /**
   * The tool's result envelope, untouched (`result.data` is the server's
   * `MCPCallResult`); `undefined` when no tool ran (an unknown name, bad
   * arguments, a refused approval).
   */
  result: MCPToolResult | undefined;
  /** What the result budget left out, if anything. */
  cut: ResultCut | undefined;
}
