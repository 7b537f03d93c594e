/**
 * OpenAI Responses: function `tools` in the OpenAI schema dialect,
 * `function_call` items read, and each outcome as a `function_call_output`
 * (with `input_image` parts for images). Internal.
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
import { responsesSearch } from "./_responses_search.ts";
import type { OpenAIResponsesFunctionCallOutput } from "./types.ts";

/** The Responses codec. */
export const openaiResponses: Codec<"openai-responses"> = {
  name: sameName,
  schema: openaiSchema,
  definitions: (entries) =>
    entries.map((entry) => ({
      type: "function",
      ...nameAndDescription(entry),
      parameters: entry.schema ?? {},
      strict: entry.strict,
    })),
  decode: (call) =>
    call.type === "tool_search_call"
      ? {
        id: call.call_id ?? undefined,
        name: "tool_search",
        args: call.arguments,
        error: "No tool search is declared in these tool definitions.",
      }
      : { id: call.call_id, name: call.name, args: call.arguments },
  search: responsesSearch,
  encode: (id, _name, outcome) => result(id ?? "", outcome),
  turn: (results) => results,
  context: { assistantImages: false, message },
};

/**
 * A user message of `input_text` and `input_image` parts; an assistant's
 * as a string (the API refuses `input_text` parts there).
 */
function message(
  { role, parts }: ContextMessage,
): ContextShapes["openai-responses"] {
  if (role === "assistant") {
    return { type: "message", role, content: joinedText(parts) };
  }
  return {
    type: "message",
    role,
    content: parts.map((part) =>
      part.type === "text" ? { type: "input_text", text: part.text } : {
        type: "input_image",
        image_url: dataUrl(part.image),
        detail: "auto",
      }
    ),
  };
}

/** A `function_call_output`, with `input_image` parts for images. */
function result(
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
