/**
 * Anthropic Messages: `tools` with an `input_schema`, `tool_use` blocks
 * read, and each outcome as a `tool_result` block (`is_error` on failure).
 * Internal.
 *
 * The `input_schema` is the tool's schema as it is, minus what the Messages
 * API refuses. The API reads it as JSON Schema draft 2020-12, requires
 * `type: "object"` at the root (the SDK's `Tool.InputSchema`), and refuses
 * `oneOf`/`allOf`/`anyOf` at the root ("input_schema does not support oneOf,
 * allOf, or anyOf at the top level", anthropics/claude-code #27337). So the
 * root is normalised ({@linkcode objectRoot}), and two draft-04/07 forms
 * that 2020-12 reads differently are rewritten: tuple `items: [...]` (now
 * `prefixItems`) and boolean `exclusiveMinimum`/`exclusiveMaximum`.
 *
 * @module
 */

import {
  isSchema,
  mapChildren,
  objectRoot,
  type Schema,
} from "./_json_schema.ts";
import { setOwn } from "../util/values.ts";
import {
  type Codec,
  type ContextMessage,
  nameAndDescription,
  sameName,
} from "./_codec.ts";
import type { Image, Outcome } from "./_content.ts";
import type { AnthropicMessage } from "./context_types.ts";
import { anthropicSearch } from "./_anthropic_search.ts";
import type {
  AnthropicResultBlock,
  AnthropicTool,
  AnthropicToolResult,
} from "./types.ts";

/** The Messages codec. */
export const anthropic: Codec<"anthropic"> = {
  name: sameName,
  schema: inputSchema,
  definitions: (entries) =>
    entries.map((entry) => ({
      ...nameAndDescription(entry),
      input_schema:
        (entry.schema ?? { type: "object" }) as AnthropicTool["input_schema"],
    })),
  decode: (call) => ({ id: call.id, name: call.name, args: call.input }),
  encode: (id, _name, outcome) => result(id ?? "", outcome),
  turn: (results) => ({ role: "user", content: results }),
  search: anthropicSearch,
  context: { assistantImages: false, message },
};

/** Image types the API takes in base64 image blocks. */
const IMAGES = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
]);

/** An Anthropic `input_schema` and what was changed to get it. */
interface AnthropicInputSchema {
  /** The schema, `type: "object"` at the root. */
  schema: Schema & { type: "object" };
  /** For the model: root constraints that could not be expressed. */
  hint?: string;
  /** For people: what was changed. */
  notes: string[];
}

/** Builds a tool's `input_schema`. */
function inputSchema(input: Schema): AnthropicInputSchema {
  const root = objectRoot(input);
  const notes = [...root.notes];
  const walk = (node: unknown): unknown => {
    if (!isSchema(node)) return node;
    const out = mapChildren(node, walk);
    // References stay, so the definitions they point at are rewritten too.
    for (const key of ["$defs", "definitions"] as const) {
      const defs = node[key];
      if (!isSchema(defs)) continue;
      const mapped: Schema = {};
      for (const [name, def] of Object.entries(defs)) {
        setOwn(mapped, name, walk(def));
      }
      out[key] = mapped;
    }
    if (Array.isArray(node.items)) {
      out.prefixItems = out.items;
      if ("additionalItems" in node) out.items = out.additionalItems;
      else delete out.items;
      delete out.additionalItems;
      notes.push("rewrote a draft-07 tuple (items: [...]) as prefixItems");
    }
    for (
      const [flag, bound] of [
        ["exclusiveMinimum", "minimum"],
        ["exclusiveMaximum", "maximum"],
      ] as const
    ) {
      if (typeof node[flag] !== "boolean") continue;
      if (node[flag] === true && typeof node[bound] === "number") {
        out[flag] = node[bound];
        delete out[bound];
      } else {
        delete out[flag];
      }
      notes.push(`rewrote a draft-04 boolean ${flag}`);
    }
    return out;
  };
  const schema = walk(root.schema) as Schema & { type: "object" };
  return root.hint === undefined
    ? { schema, notes }
    : { schema, hint: root.hint, notes };
}

/** A `tool_result` block; failures set `is_error`. */
function result(id: string, outcome: Outcome): AnthropicToolResult {
  const content: AnthropicResultBlock[] = [];
  if (outcome.text !== "" || outcome.images.length === 0) {
    content.push({ type: "text", text: outcome.text });
  }
  if (outcome.status === "ok") {
    for (const image of outcome.images) content.push(imageBlock(image));
  }
  const result: AnthropicToolResult = {
    type: "tool_result",
    tool_use_id: id,
    content,
  };
  if (outcome.status !== "ok") result.is_error = true;
  return result;
}

/** A base64 `image` block, or a note for a type the API does not take. */
function imageBlock(image: Image): AnthropicMessage["content"][number] {
  if (!IMAGES.has(image.mimeType)) {
    return {
      type: "text",
      text:
        `[image omitted: ${image.mimeType} is not a type the model accepts]`,
    };
  }
  return {
    type: "image",
    source: {
      type: "base64",
      media_type: image.mimeType as "image/png",
      data: image.data,
    },
  };
}

/**
 * A message of `text` and `image` blocks. An assistant's text ends without
 * whitespace: the API refuses a final assistant message that ends with it.
 */
function message({ role, parts }: ContextMessage): AnthropicMessage {
  const content = parts.map((part) =>
    part.type === "text"
      ? { type: "text" as const, text: part.text }
      : imageBlock(part.image)
  );
  const last = content.at(-1);
  if (role === "assistant" && last?.type === "text") {
    last.text = last.text.trimEnd();
  }
  return { role, content };
}
