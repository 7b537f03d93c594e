/**
 * The registry of codecs: one per model API, picked once by
 * `modelTools()` / `toolDefinitions()`. The only place that reads the
 * provider's name. Internal.
 *
 * @module
 */

import { aiSdk } from "./_ai_sdk.ts";
import { anthropic } from "./_anthropic.ts";
import type { Codec } from "./_codec.ts";
import { gemini } from "./_gemini.ts";
import { geminiOpenApi } from "./_gemini_openapi.ts";
import { openaiChat } from "./_openai_chat.ts";
import { openaiResponses } from "./_openai_responses.ts";
import type { ModelProvider } from "./types.ts";

const CODECS: { readonly [P in ModelProvider]: Codec<P> } = {
  "openai-chat": openaiChat,
  "openai-responses": openaiResponses,
  anthropic,
  gemini,
  "gemini-openapi": geminiOpenApi,
  "ai-sdk": aiSdk,
};

/**
 * The codec of `provider`.
 *
 * @throws {TypeError} For a name that is not a provider.
 */
export function codecOf<P extends ModelProvider>(provider: P): Codec<P> {
  if (!Object.hasOwn(CODECS, provider)) {
    throw new TypeError(
      `Unknown model provider ${JSON.stringify(provider)}; use one of ${
        Object.keys(CODECS).map((name) => JSON.stringify(name)).join(", ")
      }`,
    );
  }
  return CODECS[provider] as Codec<P>;
}
