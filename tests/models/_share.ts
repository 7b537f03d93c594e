/**
 * What a model is sent in a provider's tool-result message, read back in
 * one provider-neutral form, so the results tests can check every
 * provider with the same assertions.
 *
 * @module
 */

import type {
  AiSdkToolResultPart,
  AnthropicToolResult,
  GeminiFunctionResponsePart,
  ModelProvider,
  OpenAIChatMessage,
  OpenAIResponsesFunctionCallOutput,
  ProviderShapes,
} from "@cleveragents/mcp-adapter/models";

export { PROVIDERS } from "./_rules.ts";

/** The model's share of one result. */
export interface Share {
  /** Every text the model reads, joined by a blank line (a JSON output as its JSON). */
  text: string;
  /** A JSON output (Gemini's `output` when it is not a string). */
  json?: unknown;
  /** The images' media types, in order. */
  images: string[];
  /** Whether the message says the call failed. */
  error: boolean;
}

/** A tool call named `name` with `args`, in the provider's form. */
export function callOf<P extends ModelProvider>(
  provider: P,
  name: string,
  args: Record<string, unknown>,
  id = "call_1",
): ProviderShapes[P]["call"] {
  const calls: { [K in ModelProvider]: ProviderShapes[K]["call"] } = {
    "openai-chat": {
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    },
    "openai-responses": {
      type: "function_call",
      call_id: id,
      name,
      arguments: JSON.stringify(args),
    },
    anthropic: { type: "tool_use", id, name, input: args },
    gemini: { id, name, args },
    "gemini-openapi": { id, name, args },
    "ai-sdk": { toolCallId: id, toolName: name, input: args },
  };
  return calls[provider];
}

/** Reads the model's share out of a `dispatch()` message. */
export function shareOf(provider: ModelProvider, message: unknown): Share {
  switch (provider) {
    case "openai-chat": {
      const messages = message as OpenAIChatMessage[];
      const texts: string[] = [];
      const images: string[] = [];
      for (const each of messages) {
        if (each.role === "tool") texts.push(each.content);
        else {
          for (const part of each.content) {
            if (part.type === "image_url") {
              images.push(
                part.image_url.url.slice(5, part.image_url.url.indexOf(";")),
              );
            }
          }
        }
      }
      return { text: texts.join("\n\n"), images, error: false };
    }
    case "openai-responses": {
      const { output } = message as OpenAIResponsesFunctionCallOutput;
      if (typeof output === "string") {
        return { text: output, images: [], error: false };
      }
      return {
        text: output.flatMap((part) =>
          part.type === "input_text" ? [part.text] : []
        ).join("\n\n"),
        images: output.flatMap((part) =>
          part.type === "input_image"
            ? [part.image_url.slice(5, part.image_url.indexOf(";"))]
            : []
        ),
        error: false,
      };
    }
    case "anthropic": {
      const result = message as AnthropicToolResult;
      return {
        text: result.content.flatMap((block) =>
          block.type === "text" ? [block.text] : []
        ).join("\n\n"),
        images: result.content.flatMap((block) =>
          block.type === "image" ? [block.source.media_type] : []
        ),
        error: result.is_error === true,
      };
    }
    case "gemini":
    case "gemini-openapi": {
      const { response, parts } =
        (message as GeminiFunctionResponsePart).functionResponse;
      const value = "error" in response ? response.error : response.output;
      const share: Share = {
        text: typeof value === "string" ? value : JSON.stringify(value),
        images: (parts ?? []).map((part) => part.inlineData.mimeType),
        error: "error" in response,
      };
      if (typeof value !== "string") share.json = value;
      return share;
    }
    case "ai-sdk": {
      const { output } = message as AiSdkToolResultPart;
      switch (output.type) {
        case "text":
          return { text: output.value, images: [], error: false };
        case "error-text":
          return { text: output.value, images: [], error: true };
        case "execution-denied":
          return { text: output.reason, images: [], error: true };
        case "content":
          return {
            text: output.value.flatMap((part) =>
              part.type === "text" ? [part.text] : []
            ).join("\n\n"),
            images: output.value.flatMap((part) =>
              part.type === "file" ? [part.mediaType] : []
            ),
            error: false,
          };
      }
    }
  }
}

/** Bytes of `text` in UTF-8. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** How often `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  let count = 0;
  for (
    let at = text.indexOf(needle);
    at !== -1;
    at = text.indexOf(needle, at + needle.length)
  ) count++;
  return count;
}
