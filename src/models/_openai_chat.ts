/**
 * OpenAI Chat Completions: function `tools` in the OpenAI schema dialect,
 * `tool_calls` read, and each outcome as a `role: "tool"` message followed
 * by a user message carrying any images (tool messages cannot). Internal.
 *
 * @module
 */

import {
  type Codec,
  type ContextMessage,
  joinedText,
  nameAndDescription,
  sameName,
} from "./_codec.ts";
import { dataUrl, type Outcome } from "./_content.ts";
import type { ContextShapes } from "./context_types.ts";
import { openaiSchema } from "./_openai_strict.ts";
import type {
  OpenAIChatImageMessage,
  OpenAIChatMessage,
  OpenAIChatToolMessage,
} from "./types.ts";

/** The Chat Completions codec. */
export const openaiChat: Codec<"openai-chat"> = {
  name: sameName,
  schema: openaiSchema,
  definitions: (entries) =>
    entries.map((entry) => ({
      type: "function",
      function: {
        ...nameAndDescription(entry),
        parameters: entry.schema ?? {},
        strict: entry.strict,
      },
    })),
  decode: (call) =>
    call.type === "function"
      ? {
        id: call.id,
        name: call.function.name,
        args: call.function.arguments,
      }
      : {
        id: call.id,
        name: call.custom.name,
        args: undefined,
        error: `Tool ${
          JSON.stringify(call.custom.name)
        } is not a custom tool; call it as a function with JSON arguments.`,
      },
  encode: (id, name, outcome) => result(id ?? "", name, outcome),
  turn,
  context: { assistantImages: false, message },
};

/** A user message of text and `image_url` parts; an assistant's as a string. */
function message(
  { role, parts }: ContextMessage,
): ContextShapes["openai-chat"] {
  if (role === "assistant") return { role, content: joinedText(parts) };
  return {
    role,
    content: parts.map((part) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image_url", image_url: { url: dataUrl(part.image) } }
    ),
  };
}

/** The tool message, then a user message with any images. */
function result(
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
 * Every tool message first (the API wants them right after the assistant
 * message), then one user message with all images.
 */
function turn(results: readonly OpenAIChatMessage[][]): OpenAIChatMessage[] {
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
