/**
 * What `resourceMessages()` and `promptMessages()` give a model, read back
 * in one provider-neutral form, and each API's documented rules for
 * messages, as the context tests check them. The rules are written out
 * here rather than taken from `src/models/`: an oracle that shares the
 * code's rule would pass a wrong one.
 *
 * @module
 */

import assert from "node:assert/strict";
import { modelMessageSchema } from "ai";
import type {
  ContextShapes,
  ModelProvider,
} from "@cleveragents/mcp-adapter/models";

/** One message as the model reads it. */
export interface Read {
  /** `user` or `assistant` (Gemini's `model`). */
  role: "user" | "assistant";
  /** Its texts, in order. */
  texts: string[];
  /** Its images' media types, in order. */
  images: string[];
}

type Json = Record<string, unknown>;

/** The messages of `provider`, read back. */
export function readBack(
  provider: ModelProvider,
  messages: readonly ContextShapes[ModelProvider][],
): Read[] {
  return (JSON.parse(JSON.stringify(messages)) as Json[]).map((message) => {
    const role = message.role === "model" ? "assistant" : message.role;
    assert.ok(role === "user" || role === "assistant", String(role));
    const parts: Json[] = typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : (message.content ?? message.parts) as Json[];
    const texts: string[] = [];
    const images: string[] = [];
    for (const part of parts) {
      if (typeof part.text === "string") texts.push(part.text);
      else images.push(imageType(provider, part));
    }
    return { role, texts, images };
  });
}

/** All the text a model reads in `messages`, joined. */
export function allText(reads: readonly Read[]): string {
  return reads.flatMap((read) => read.texts).join("\n\n");
}

/** The media type of an image part. */
function imageType(provider: ModelProvider, part: Json): string {
  switch (provider) {
    case "openai-chat":
      return dataUrlType((part.image_url as Json).url as string);
    case "openai-responses":
      return dataUrlType(part.image_url as string);
    case "anthropic":
      return (part.source as Json).media_type as string;
    case "gemini":
    case "gemini-openapi":
      return (part.inlineData as Json).mimeType as string;
    case "ai-sdk":
      return part.mediaType as string;
  }
}

function dataUrlType(url: string): string {
  const match = /^data:([^;,]+);base64,[A-Za-z0-9+/]*={0,2}$/.exec(url);
  assert.ok(match, `not a base64 data: URL: ${url.slice(0, 80)}`);
  return match[1]!;
}

const ANTHROPIC_IMAGES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/**
 * Asserts `provider`'s documented rules for input messages:
 * - OpenAI Chat: images (`image_url`) only in user messages ("Image URLs
 *   are only allowed for messages with role 'user'"); an assistant's
 *   content text.
 * - OpenAI Responses: `type: "message"`; user content of `input_text` and
 *   `input_image` (with `detail`); an assistant's content a string (the API
 *   refuses `input_text` there: "Supported values are: 'output_text' and
 *   'refusal'").
 * - Anthropic: text blocks non-empty and not only whitespace ("text
 *   content blocks must contain non-whitespace text"), base64 images of
 *   jpeg/png/gif/webp in user messages, a final assistant message without
 *   trailing whitespace.
 * - Gemini: roles `user` and `model`, each part one of `text` and
 *   `inlineData`.
 * - AI SDK: what its own `modelMessageSchema` accepts; an assistant's
 *   parts text.
 *
 * Every provider: no empty message, no blank text, no control or
 * invisible character but line breaks and tabs.
 */
export function assertRules(
  provider: ModelProvider,
  messages: readonly ContextShapes[ModelProvider][],
): void {
  const json = JSON.parse(JSON.stringify(messages)) as Json[];
  for (const [index, message] of json.entries()) {
    const where = `${provider} message ${index}`;
    const parts = (message.content ?? message.parts) as Json[] | string;
    assert.ok(parts.length > 0, `${where} is empty`);
    switch (provider) {
      case "openai-chat":
        if (message.role === "assistant") {
          assert.equal(typeof parts, "string", where);
        } else {
          assert.equal(message.role, "user", where);
          for (const part of parts as Json[]) {
            assert.ok(
              part.type === "text" || part.type === "image_url",
              where,
            );
          }
        }
        break;
      case "openai-responses":
        assert.equal(message.type, "message", where);
        if (message.role === "assistant") {
          assert.equal(typeof parts, "string", where);
        } else {
          assert.equal(message.role, "user", where);
          for (const part of parts as Json[]) {
            if (part.type === "input_image") {
              assert.ok(typeof part.detail === "string", where);
            } else assert.equal(part.type, "input_text", where);
          }
        }
        break;
      case "anthropic": {
        assert.ok(Array.isArray(parts), where);
        for (const part of parts) {
          if (part.type === "image") {
            assert.equal(message.role, "user", `${where}: image`);
            const source = part.source as Json;
            assert.equal(source.type, "base64", where);
            assert.ok(
              ANTHROPIC_IMAGES.includes(source.media_type as string),
              where,
            );
          } else assert.equal(part.type, "text", where);
        }
        const last = parts.at(-1)!;
        if (
          index === json.length - 1 && message.role === "assistant" &&
          last.type === "text"
        ) {
          assert.equal(last.text, (last.text as string).trimEnd(), where);
        }
        break;
      }
      case "gemini":
      case "gemini-openapi":
        assert.ok(message.role === "user" || message.role === "model", where);
        for (const part of parts as Json[]) {
          assert.equal(Object.keys(part).length, 1, where);
          assert.ok("text" in part || "inlineData" in part, where);
        }
        break;
      case "ai-sdk": {
        const parsed = modelMessageSchema.safeParse(message);
        assert.ok(parsed.success, `${where}: ${parsed.error?.message}`);
        if (message.role === "assistant") {
          for (const part of parts as Json[]) {
            assert.equal(part.type, "text", where);
          }
        }
        break;
      }
    }
  }
  for (const [index, read] of readBack(provider, messages).entries()) {
    for (const text of read.texts) {
      assert.notEqual(text.trim(), "", `${provider} message ${index}: blank`);
      assert.doesNotMatch(
        text,
        // deno-lint-ignore no-control-regex
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u{e0000}-\u{e007f}]/u,
        `${provider} message ${index}: an unseen character`,
      );
    }
  }
}

/** The resource tags of a text: every opening and closing tag, in order. */
export function resourceTags(text: string): string[] {
  // A tag is a line of its own: an attribute may hold a `>`.
  return [
    ...text.matchAll(/^<\/?mcp-resource-[0-9a-f]{16}(?: [^\n]*)?>$/gm),
  ].map((match) => match[0]);
}
