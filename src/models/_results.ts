/**
 * Formats a call's outcome as each provider's tool-result message: text,
 * images as the provider's image blocks, and failures the way the provider
 * marks them (`is_error`, `{ error }`, `error-text`). Internal.
 *
 * @module
 */

import type { Image, Outcome } from "./_content.ts";
import type {
  AiSdkModelOutput,
  AiSdkToolOutput,
  AnthropicResultBlock,
  AnthropicToolResult,
  GeminiFunctionResponsePart,
  OpenAIChatImageMessage,
  OpenAIChatMessage,
  OpenAIChatToolMessage,
  OpenAIResponsesFunctionCallOutput,
} from "./types.ts";

/** Image types the Anthropic API takes in base64 image blocks. */
const ANTHROPIC_IMAGES = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
]);

function dataUrl(image: Image): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** Chat Completions: the tool message, then a user message with any images. */
export function openaiChatResult(
  id: string,
  name: string,
  outcome: Outcome,
): OpenAIChatMessage[] {
  const message: OpenAIChatToolMessage = {
    role: "tool",
    tool_call_id: id,
    content: outcome.images.length > 0
      ? `${outcome.text}\n\n(${outcome.images.length} image(s) follow in the next user message.)`
      : outcome.text,
  };
  if (outcome.status !== "ok" || outcome.images.length === 0) return [message];
  const images: OpenAIChatImageMessage = {
    role: "user",
    content: [
      { type: "text", text: `Images returned by tool ${name} (call ${id}):` },
      ...outcome.images.map((image) => ({
        type: "image_url" as const,
        image_url: { url: dataUrl(image) },
      })),
    ],
  };
  return [message, images];
}

/**
 * Chat Completions: every tool message first (the API wants them right
 * after the assistant message), then one user message with all images.
 */
export function openaiChatTurn(
  results: readonly OpenAIChatMessage[][],
): OpenAIChatMessage[] {
  const tools = results.flatMap((messages) =>
    messages.filter((message) => message.role === "tool")
  );
  const images = results.flatMap((messages) =>
    messages.filter((message): message is OpenAIChatImageMessage =>
      message.role === "user"
    )
  );
  if (images.length === 0) return tools;
  return [...tools, {
    role: "user",
    content: images.flatMap((message) => message.content),
  }];
}

/** Responses: a `function_call_output`, with `input_image` parts for images. */
export function openaiResponsesResult(
  id: string,
  outcome: Outcome,
): OpenAIResponsesFunctionCallOutput {
  if (outcome.status !== "ok" || outcome.images.length === 0) {
    return { type: "function_call_output", call_id: id, output: outcome.text };
  }
  return {
    type: "function_call_output",
    call_id: id,
    output: [
      { type: "input_text", text: outcome.text },
      ...outcome.images.map((image) => ({
        type: "input_image" as const,
        image_url: dataUrl(image),
      })),
    ],
  };
}

/** Anthropic: a `tool_result` block; failures set `is_error`. */
export function anthropicResult(
  id: string,
  outcome: Outcome,
): AnthropicToolResult {
  const content: AnthropicResultBlock[] = [];
  if (outcome.text !== "" || outcome.images.length === 0) {
    content.push({ type: "text", text: outcome.text });
  }
  if (outcome.status === "ok") {
    for (const image of outcome.images) {
      if (ANTHROPIC_IMAGES.has(image.mimeType)) {
        content.push({
          type: "image",
          source: {
            type: "base64",
            media_type: image.mimeType as "image/png",
            data: image.data,
          },
        });
      } else {
        content.push({
          type: "text",
          text:
            `[image omitted: ${image.mimeType} is not a type the model accepts]`,
        });
      }
    }
  }
  const result: AnthropicToolResult = {
    type: "tool_result",
    tool_use_id: id,
    content,
  };
  if (outcome.status !== "ok") result.is_error = true;
  return result;
}

/** Gemini: a `functionResponse` part (`{ output }` or `{ error }`). */
export function geminiResult(
  id: string | undefined,
  name: string,
  outcome: Outcome,
): GeminiFunctionResponsePart {
  const response: Record<string, unknown> = outcome.status === "ok"
    ? { output: outcome.structured ?? outcome.text }
    : { error: outcome.text };
  const part: GeminiFunctionResponsePart = {
    functionResponse: {
      ...(id === undefined ? {} : { id }),
      name,
      response,
    },
  };
  if (outcome.status === "ok" && outcome.images.length > 0) {
    part.functionResponse.parts = outcome.images.map((image) => ({
      inlineData: { mimeType: image.mimeType, data: image.data },
    }));
  }
  return part;
}

/** AI SDK: what `execute` returns. */
export function aiSdkOutput(outcome: Outcome): AiSdkToolOutput {
  const output: AiSdkToolOutput = {
    status: outcome.status,
    text: outcome.text,
    images: outcome.images.map((image) => ({ ...image })),
  };
  if (outcome.structured !== undefined) {
    output.structuredContent = outcome.structured;
  }
  return output;
}

/** AI SDK: what `toModelOutput` returns for an `execute` output. */
export function aiSdkModelOutput(output: AiSdkToolOutput): AiSdkModelOutput {
  if (output.status === "declined") {
    return { type: "execution-denied", reason: output.text };
  }
  if (output.status === "error") {
    return { type: "error-text", value: output.text };
  }
  if (output.images.length === 0) return { type: "text", value: output.text };
  return {
    type: "content",
    value: [
      { type: "text", text: output.text },
      ...output.images.map((image) => ({
        type: "file" as const,
        mediaType: image.mimeType,
        data: { type: "data" as const, data: image.data },
      })),
    ],
  };
}
