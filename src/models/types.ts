/**
 * The JSON shapes of each model API's tool definitions, tool calls and tool
 * results, declared here so that no provider SDK is needed at run time (the
 * tests check them against the SDKs' own request types).
 *
 * @module
 */

import type { JsonSchema, MCPToolResult } from "../types.ts";

/** The model APIs whose tool formats this module speaks. */
export type ModelProvider =
  | "openai-chat"
  | "openai-responses"
  | "anthropic"
  | "gemini"
  | "gemini-openapi"
  | "ai-sdk";

// --- OpenAI Chat Completions ------------------------------------------------

/** An entry of `tools` in a Chat Completions request. */
export interface OpenAIChatTool {
  /** Always `"function"`. */
  type: "function";
  /** The function. */
  function: {
    /** The tool's alias, `^[a-zA-Z0-9_-]{1,64}$`. */
    name: string;
    /** What the tool does. */
    description?: string;
    /** JSON Schema of the arguments. */
    parameters: JsonSchema;
    /** Whether `parameters` is the strict form. */
    strict: boolean;
  };
}

/** An entry of `message.tool_calls` in a Chat Completions response. */
export type OpenAIChatToolCall =
  | {
    /** The call's id. */
    id: string;
    /** A function call. */
    type: "function";
    /** The function and its JSON-encoded arguments. */
    function: { name: string; arguments: string };
  }
  | {
    /** The call's id. */
    id: string;
    /** A custom (free-form) tool call; these tools are never declared here. */
    type: "custom";
    /** The tool and its input. */
    custom: { name: string; input: string };
  };

/** A `role: "tool"` message answering one tool call. */
export interface OpenAIChatToolMessage {
  /** Always `"tool"`. */
  role: "tool";
  /** The id of the call it answers. */
  tool_call_id: string;
  /** The result as text (errors included). */
  content: string;
}

/**
 * A `role: "user"` message carrying the images tool calls returned: Chat
 * Completions accepts only text in tool messages.
 */
export interface OpenAIChatImageMessage {
  /** Always `"user"`. */
  role: "user";
  /** A text part naming the calls, then one part per image (data: URLs). */
  content: Array<
    | { type: "text"; text: string }
    | { type: "image_url"; image_url: { url: string } }
  >;
}

/** A message `dispatch()` returns for Chat Completions. */
export type OpenAIChatMessage = OpenAIChatToolMessage | OpenAIChatImageMessage;

// --- OpenAI Responses ---------------------------------------------------------

/** An entry of `tools` in a Responses request. */
export interface OpenAIResponsesTool {
  /** Always `"function"`. */
  type: "function";
  /** The tool's alias. */
  name: string;
  /** What the tool does. */
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: JsonSchema;
  /** Whether `parameters` is the strict form. */
  strict: boolean;
  /** Tool search: not loaded until a search finds it. */
  defer_loading?: boolean;
}

/** A `function_call` item of `response.output`. */
export interface OpenAIResponsesFunctionCall {
  /** Always `"function_call"`. */
  type: "function_call";
  /** The id to answer with. */
  call_id: string;
  /** The function's name. */
  name: string;
  /** JSON-encoded arguments. */
  arguments: string;
  /** The item's id. */
  id?: string;
  /** The namespace of a function declared in one (tool search). */
  namespace?: string;
}

/** A `function_call_output` input item answering one call. */
export interface OpenAIResponsesFunctionCallOutput {
  /** Always `"function_call_output"`. */
  type: "function_call_output";
  /** The id of the call it answers. */
  call_id: string;
  /** The result: text, or text and images (data: URLs). */
  output:
    | string
    | Array<
      | { type: "input_text"; text: string }
      | { type: "input_image"; image_url: string }
    >;
}

// --- Anthropic Messages --------------------------------------------------------

/** An entry of `tools` in a Messages request. */
export interface AnthropicTool {
  /** The tool's alias. */
  name: string;
  /** What the tool does. */
  description?: string;
  /** JSON Schema (draft 2020-12) of the input, an object at the root. */
  input_schema: JsonSchema & { type: "object" };
  /** Tool search: not loaded until a search finds it. */
  defer_loading?: boolean;
}

/** A `tool_use` content block of an assistant message. */
export interface AnthropicToolUse {
  /** Always `"tool_use"`. */
  type: "tool_use";
  /** The id to answer with. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The input object. */
  input: unknown;
}

/**
 * A `tool_reference` block of a `tool_result`: the tool it names (declared
 * with `defer_loading: true`) is loaded for the model.
 */
export interface AnthropicToolReference {
  /** Always `"tool_reference"`. */
  type: "tool_reference";
  /** The deferred tool's name. */
  tool_name: string;
}

/** A content block of a tool result. */
export type AnthropicResultBlock =
  | { type: "text"; text: string }
  | {
    type: "image";
    source: {
      type: "base64";
      media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
      data: string;
    };
  }
  | AnthropicToolReference;

/** A `tool_result` content block answering one `tool_use`. */
export interface AnthropicToolResult {
  /** Always `"tool_result"`. */
  type: "tool_result";
  /** The id of the `tool_use` it answers. */
  tool_use_id: string;
  /** Text and image blocks. */
  content: AnthropicResultBlock[];
  /** Set when the tool failed or was declined. */
  is_error?: boolean;
}

/** The user message that answers an assistant turn's `tool_use` blocks. */
export interface AnthropicToolResultMessage {
  /** Always `"user"`. */
  role: "user";
  /** One `tool_result` per call, in order. */
  content: AnthropicToolResult[];
}

// --- Gemini ------------------------------------------------------------------------

/**
 * A parameter schema in the OpenAPI 3.0 subset of Gemini's `Schema`
 * message (the `parameters` field). int64 limits are strings, as in the
 * API's JSON encoding.
 */
export interface GeminiSchema {
  /** Upper-case type name. */
  type?: "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT";
  /** A format the API knows (`date-time`, `enum`, `float`, `int32`, …). */
  format?: string;
  /** Title. */
  title?: string;
  /** Description. */
  description?: string;
  /** Whether `null` is allowed. */
  nullable?: boolean;
  /** Allowed string values. */
  enum?: string[];
  /** Array item schema. */
  items?: GeminiSchema;
  /** Minimum number of items. */
  minItems?: string;
  /** Maximum number of items. */
  maxItems?: string;
  /** Object properties. */
  properties?: Record<string, GeminiSchema>;
  /** Required property names. */
  required?: string[];
  /** Minimum number of properties. */
  minProperties?: string;
  /** Maximum number of properties. */
  maxProperties?: string;
  /** Minimum string length. */
  minLength?: string;
  /** Maximum string length. */
  maxLength?: string;
  /** Regular expression a string must match. */
  pattern?: string;
  /** Example value. */
  example?: unknown;
  /** Default value. */
  default?: unknown;
  /** Alternatives. */
  anyOf?: GeminiSchema[];
  /** Minimum value. */
  minimum?: number;
  /** Maximum value. */
  maximum?: number;
}

/** A function declaration with a JSON Schema (`"gemini"`). */
export interface GeminiFunctionDeclaration {
  /** The tool's alias (prefixed with `_` if it does not start with a letter or `_`, with a hash past 64 characters). */
  name: string;
  /** What the tool does. */
  description?: string;
  /** JSON Schema of the arguments. */
  parametersJsonSchema: JsonSchema;
}

/** An entry of `config.tools`: all the declarations in one tool (`"gemini"`). */
export interface GeminiTool {
  /** The function declarations. */
  functionDeclarations: GeminiFunctionDeclaration[];
}

/**
 * A function declaration with an OpenAPI-subset schema (`"gemini-openapi"`),
 * for endpoints without `parametersJsonSchema`.
 */
export interface GeminiOpenApiFunctionDeclaration {
  /** The tool's alias (prefixed with `_` if it does not start with a letter or `_`, with a hash past 64 characters). */
  name: string;
  /** What the tool does. */
  description?: string;
  /** The arguments; absent for a tool without any (the API refuses an empty OBJECT). */
  parameters?: GeminiSchema;
}

/**
 * An entry of `tools` with OpenAPI-subset schemas (`"gemini-openapi"`). With
 * `@google/genai`, cast it (`as Tool[]`): the SDK types `type` as a
 * TypeScript enum whose values are these same strings.
 */
export interface GeminiOpenApiTool {
  /** The function declarations. */
  functionDeclarations: GeminiOpenApiFunctionDeclaration[];
}

/** A `functionCall` of a response (`response.functionCalls`). */
export interface GeminiFunctionCall {
  /** The call's id, when the API sent one. */
  id?: string;
  /** The function's name. */
  name?: string;
  /** The arguments. */
  args?: Record<string, unknown>;
}

/** A part answering one function call. */
export interface GeminiFunctionResponsePart {
  /** The response. */
  functionResponse: {
    /** The id of the call it answers, when the call had one. */
    id?: string;
    /** The function's name. */
    name: string;
    /** `{ output }` on success, `{ error }` on failure. */
    response: Record<string, unknown>;
    /** Images the tool returned (multimodal function responses). */
    parts?: Array<{ inlineData: { mimeType: string; data: string } }>;
  };
}

/** The content that answers a turn's function calls. */
export interface GeminiFunctionResponseContent {
  /** Always `"user"`. */
  role: "user";
  /** One function response per call, in order. */
  parts: GeminiFunctionResponsePart[];
}

// --- AI SDK --------------------------------------------------------------------------

/**
 * The input schema of an AI SDK tool: a Standard Schema with a JSON Schema
 * converter (what `FlexibleSchema` accepts, so it type-checks against `ai`
 * without importing it), also tagged as the AI SDK's own `jsonSchema()`
 * objects are, so the AI SDK reads `jsonSchema` as it is. `validate` passes
 * every value: the registry's tool validates before it calls the server.
 */
export interface AiSdkInputSchema {
  /** The JSON Schema sent to the model (also for `jsonSchema(schema.jsonSchema)`). */
  readonly jsonSchema: JsonSchema;
  /** The Standard Schema interface. */
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { value: unknown };
    readonly jsonSchema: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/**
 * What an AI SDK tool's `execute` returns: the host's share, kept in the
 * step's `toolResults`; `toModelOutput` turns it into the model's share
 * (`text` and `images`).
 */
export interface AiSdkToolOutput {
  /** `ok`, `error` (the tool failed) or `declined` (the approval hook said no). */
  status: "ok" | "error" | "declined";
  /** What the model reads: the result's text within the result budget, or the error message. */
  text: string;
  /** Images the model is shown, base64 (within the result budget). */
  images: Array<{ data: string; mimeType: string }>;
  /** The server's `structuredContent`, when it sent one (never shown to the model twice). */
  structuredContent?: unknown;
  /** The whole result as the tool returned it; absent when no tool ran (declined, bad arguments). */
  result?: MCPToolResult;
}

/** What an AI SDK tool's `toModelOutput` returns (a `ToolResultOutput`). */
export type AiSdkModelOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "execution-denied"; reason: string }
  | {
    type: "content";
    value: Array<
      | { type: "text"; text: string }
      | {
        type: "file";
        mediaType: string;
        data: { type: "data"; data: string };
      }
    >;
  };

/** An AI SDK tool: pass a record of them as `tools` to `generateText()`. */
export interface AiSdkTool {
  /** What the tool does. */
  description?: string;
  /** The arguments' schema. */
  inputSchema: AiSdkInputSchema;
  /** Runs the tool through the registry; never throws for tool failures. */
  execute: (
    input: unknown,
    options: { toolCallId: string; abortSignal?: AbortSignal },
  ) => Promise<AiSdkToolOutput>;
  /** Turns the output into what the model reads (text, images, errors). */
  toModelOutput: (options: { output: AiSdkToolOutput }) => AiSdkModelOutput;
}

/** A tool call as the AI SDK reports it (`result.toolCalls`). */
export interface AiSdkToolCall {
  /** The call's id. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** The input. */
  input: unknown;
}

/** A `tool-result` part answering one call (for loops that run tools themselves). */
export interface AiSdkToolResultPart {
  /** Always `"tool-result"`. */
  type: "tool-result";
  /** The id of the call it answers. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** What the model reads. */
  output: AiSdkModelOutput;
}

/** The `role: "tool"` message answering a step's tool calls. */
export interface AiSdkToolMessage {
  /** Always `"tool"`. */
  role: "tool";
  /** One result per call, in order. */
  content: AiSdkToolResultPart[];
}
