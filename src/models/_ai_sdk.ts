/**
 * The Vercel AI SDK (`ai`): a record of tools that run themselves
 * (`execute`, through the shared dispatch rules) and turn their output
 * into the model's view (`toModelOutput`), schemas handed over as JSON
 * Schema (the SDK converts for each provider itself; only the root must be
 * an object), and `tool-call` parts read and answered with `tool-result`
 * parts. Internal.
 *
 * @module
 */

import {
  type Codec,
  type ContextMessage,
  type Entry,
  type Runner,
  sameName,
} from "./_codec.ts";
import type { ContextShapes } from "./context_types.ts";
import type { Outcome } from "./_content.ts";
import { objectRoot } from "./_json_schema.ts";
import type {
  AiSdkInputSchema,
  AiSdkModelOutput,
  AiSdkTool,
  AiSdkToolOutput,
} from "./types.ts";
import type { JsonSchema } from "../types.ts";

/** The AI SDK codec. */
export const aiSdk: Codec<"ai-sdk"> = {
  name: sameName,
  schema: objectRoot,
  definitions: tools,
  decode: (call) => ({
    id: call.toolCallId,
    name: call.toolName,
    args: call.input,
  }),
  encode: (id, name, outcome) => ({
    type: "tool-result",
    toolCallId: id ?? "",
    toolName: name,
    output: modelOutput(output(outcome)),
  }),
  turn: (results) => ({ role: "tool", content: results }),
  context: { assistantImages: false, message },
};

/**
 * A user message of `text` and `file` parts; an assistant's of text parts
 * (the AI SDK types allow files there, but not every provider takes them).
 */
function message({ role, parts }: ContextMessage): ContextShapes["ai-sdk"] {
  if (role === "assistant") {
    return {
      role,
      content: parts.flatMap((part) =>
        part.type === "text" ? [{ type: "text" as const, text: part.text }] : []
      ),
    };
  }
  return {
    role,
    content: parts.map((part) =>
      part.type === "text" ? { type: "text", text: part.text } : {
        type: "file",
        mediaType: part.image.mimeType,
        data: { type: "data", data: part.image.data },
      }
    ),
  };
}

const VENDOR = "cleveragents-mcp-adapter";

/**
 * The AI SDK's schema marker: `jsonSchema()` tags its objects with this
 * global symbol, and `asSchema()` then takes `jsonSchema` as it is.
 */
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/** Tools: description, input schema, `execute`, `toModelOutput`. */
function tools(
  entries: readonly Entry[],
  run: Runner,
): Record<string, AiSdkTool> {
  const tools: Record<string, AiSdkTool> = {};
  for (const entry of entries) {
    const tool: AiSdkTool = {
      inputSchema: inputSchema(entry.schema ?? { type: "object" }),
      execute: async (input, { toolCallId, abortSignal }) => {
        const outcome = await run(
          {
            name: entry.name,
            args: input,
            raw: { toolCallId, toolName: entry.name, input },
          },
          abortSignal ? { invokeOptions: { signal: abortSignal } } : undefined,
        );
        return output(outcome);
      },
      toModelOutput: ({ output }) => modelOutput(output),
    };
    if (entry.description !== undefined) tool.description = entry.description;
    tools[entry.name] = tool;
  }
  return tools;
}

function inputSchema(schema: JsonSchema): AiSdkInputSchema {
  const convert = () => structuredClone(schema);
  return {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    validate: undefined,
    jsonSchema: schema,
    "~standard": {
      version: 1,
      vendor: VENDOR,
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: convert, output: convert },
    },
  } as AiSdkInputSchema;
}

/** What `execute` returns. */
function output(outcome: Outcome): AiSdkToolOutput {
  const output: AiSdkToolOutput = {
    status: outcome.status,
    text: outcome.text,
    images: outcome.images.map((image) => ({ ...image })),
  };
  const { result } = outcome;
  if (result?.success && result.data.structuredContent !== undefined) {
    output.structuredContent = result.data.structuredContent;
  }
  if (result !== undefined) output.result = result;
  return output;
}

/** What `toModelOutput` returns for an `execute` output. */
function modelOutput(output: AiSdkToolOutput): AiSdkModelOutput {
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
