/**
 * The shapes `resourceMessages()` and `promptMessages()` take and return:
 * a server's resource read or prompt in, each model API's messages out.
 * Declared here so that no provider SDK is needed at run time (the tests
 * check them against the SDKs' own request types).
 *
 * @module
 */

import type { MCPContentBlock } from "../types.ts";
import type { ResultBudget } from "./options.ts";
import type { AnthropicResultBlock } from "./types.ts";

/**
 * What `resourceMessages()` reads: the `data` of a successful
 * `readResource()` (`MCPResourceRead`, from an adapter or the hub), or
 * anything of that shape.
 */
export interface ResourceReadData {
  /** What the server returned, in order: text, or a base64 blob, each with its URI. */
  readonly contents: readonly ResourceContentsData[];
}

/** One item of a resource read (`MCPResourceContents`). */
export interface ResourceContentsData {
  /** Its URI. */
  readonly uri: string;
  /** Its media type, when the server said. */
  readonly mimeType?: string | undefined;
  /** The text of a text resource. */
  readonly text?: string | undefined;
  /** The bytes of a binary resource, base64. */
  readonly blob?: string | undefined;
}

/**
 * What `promptMessages()` reads: the `data` of a successful `getPrompt()`
 * (`MCPPromptMessages`), or anything of that shape.
 */
export interface PromptData {
  /** The prompt's messages, in order. */
  readonly messages: readonly PromptMessageData[];
}

/** One message of a prompt (`MCPPromptMessage`). */
export interface PromptMessageData {
  /** `"user"` or `"assistant"`. */
  readonly role: "user" | "assistant";
  /** One content block: text, an image, audio, a resource link or an embedded resource. */
  readonly content: MCPContentBlock;
}

/** Options of `resourceMessages()` and `promptMessages()`. */
export interface ContextOptions {
  /**
   * How much the model is given (defaults as for tool results: 25,000
   * tokens, 10 images, 5 MiB per image). `maxTokens` bounds each message:
   * a resource read's message (its contents share it), or each of a
   * prompt's; `maxImages` counts the images of the whole call.
   */
  resultBudget?: ResultBudget;
  /**
   * The server the resource or prompt came from (its name, or the hub's
   * namespace): written into each resource block as `server="…"`.
   */
  server?: string;
}

// --- OpenAI Chat Completions ------------------------------------------------

/** A Chat Completions user message of text and image parts. */
export interface OpenAIChatUserMessage {
  /** Always `"user"`. */
  role: "user";
  /** Text parts and images (data: URLs), in order. */
  content: Array<
    | { type: "text"; text: string }
    | { type: "image_url"; image_url: { url: string } }
  >;
}

/** A Chat Completions assistant message: text only (the API takes no images there). */
export interface OpenAIChatAssistantMessage {
  /** Always `"assistant"`. */
  role: "assistant";
  /** The text. */
  content: string;
}

// --- OpenAI Responses ----------------------------------------------------------

/** A Responses input message from the user: `input_text` and `input_image` parts. */
export interface OpenAIResponsesUserMessage {
  /** Always `"message"`. */
  type: "message";
  /** Always `"user"`. */
  role: "user";
  /** Text parts and images (data: URLs), in order. */
  content: Array<
    | { type: "input_text"; text: string }
    | { type: "input_image"; image_url: string; detail: "auto" }
  >;
}

/**
 * A Responses input message from the assistant: a string (the API refuses
 * `input_text` parts in assistant messages, and takes no images there).
 */
export interface OpenAIResponsesAssistantMessage {
  /** Always `"message"`. */
  type: "message";
  /** Always `"assistant"`. */
  role: "assistant";
  /** The text. */
  content: string;
}

// --- Anthropic Messages --------------------------------------------------------

/** A Messages API message of `text` and `image` blocks (images in user messages only). */
export interface AnthropicMessage {
  /** `"user"` or `"assistant"`. */
  role: "user" | "assistant";
  /** Text and base64 image blocks, in order. */
  content: Array<Extract<AnthropicResultBlock, { type: "text" | "image" }>>;
}

// --- Gemini --------------------------------------------------------------------------

/** A Gemini `Content`: `text` and `inlineData` parts; the assistant's role is `"model"`. */
export interface GeminiContent {
  /** `"user"` or `"model"`. */
  role: "user" | "model";
  /** Text and inline images, in order. */
  parts: Array<
    | { text: string }
    | { inlineData: { mimeType: string; data: string } }
  >;
}

// --- AI SDK --------------------------------------------------------------------------

/** An AI SDK user `ModelMessage`: `text` parts and images as `file` parts. */
export interface AiSdkUserMessage {
  /** Always `"user"`. */
  role: "user";
  /** Text parts and images, in order. */
  content: Array<
    | { type: "text"; text: string }
    | { type: "file"; mediaType: string; data: { type: "data"; data: string } }
  >;
}

/** An AI SDK assistant `ModelMessage`: text parts only (not every model takes images there). */
export interface AiSdkAssistantMessage {
  /** Always `"assistant"`. */
  role: "assistant";
  /** Text parts. */
  content: Array<{ type: "text"; text: string }>;
}

// --- per provider ------------------------------------------------------------

/** Each provider's message, as `resourceMessages()` and `promptMessages()` return them. */
export interface ContextShapes {
  /** OpenAI Chat Completions: a `messages` entry. */
  "openai-chat": OpenAIChatUserMessage | OpenAIChatAssistantMessage;
  /** OpenAI Responses: an `input` item. */
  "openai-responses":
    | OpenAIResponsesUserMessage
    | OpenAIResponsesAssistantMessage;
  /** Anthropic Messages: a `messages` entry. */
  anthropic: AnthropicMessage;
  /** Gemini: a `contents` entry. */
  gemini: GeminiContent;
  /** Gemini with OpenAPI-subset schemas: the same `contents` entry. */
  "gemini-openapi": GeminiContent;
  /** The Vercel AI SDK: a `ModelMessage`. */
  "ai-sdk": AiSdkUserMessage | AiSdkAssistantMessage;
}
