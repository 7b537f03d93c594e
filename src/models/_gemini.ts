/**
 * Gemini (`@google/genai`, REST) with `parametersJsonSchema`: function
 * declarations in one tool, `functionCall` parts read, each outcome as a
 * `functionResponse` part. The call and result forms, the name rule and
 * the schema steps here are shared with `_gemini_openapi.ts`, the same API
 * with OpenAPI-subset `parameters`. Internal.
 *
 * `parametersJsonSchema` is JSON Schema, but `$ref` into `$defs` fails
 * ("reference to undefined schema at properties.x.anyOf.1", gemini-cli
 * #13326; "$ref … was set alongside unsupported fields", opencode #12295)
 * and recursive schemas are refused (gemini-cli #11393). So references are
 * inlined, cycles cut, and only the keywords Gemini documents for JSON
 * Schema are kept.
 *
 * @module
 */

import {
  existingRequired,
  flattenAllOf,
  inlineRefs,
  isSchema,
  mapChildren,
  mergeProperties,
  objectRoot,
  type Schema,
} from "./_json_schema.ts";
import { setOwn } from "../util/values.ts";
import { toolAlias } from "../tools/alias.ts";
import {
  type Codec,
  type ContextMessage,
  type Dialect,
  nameAndDescription,
} from "./_codec.ts";
import type { GeminiContent } from "./context_types.ts";
import type { Outcome } from "./_content.ts";
import type { GeminiFunctionResponsePart } from "./types.ts";

/** How both Gemini dialects name tools, read calls and write results. */
export const geminiCalls: Omit<
  Codec<"gemini" | "gemini-openapi">,
  "schema" | "definitions" | "search" | "context"
> = {
  // A 64-character alias gets a hash, not a cut: two aliases that differ
  // only in their last character must not get one name.
  name: (alias) =>
    GEMINI_NAME_START.test(alias)
      ? alias
      : alias.length < 64
      ? `_${alias}`
      : toolAlias(`_${alias}`),
  decode: (call) => ({ id: call.id, name: call.name ?? "", args: call.args }),
  encode: result,
  turn: (results) => ({ role: "user", parts: results }),
};

/** How both Gemini dialects take messages: the model's may hold images. */
export const geminiContext = { assistantImages: true, message };

/** A `Content` of `text` and `inlineData` parts; the assistant is `"model"`. */
function message({ role, parts }: ContextMessage): GeminiContent {
  return {
    role: role === "assistant" ? "model" : "user",
    parts: parts.map((part) =>
      part.type === "text" ? { text: part.text } : {
        inlineData: { mimeType: part.image.mimeType, data: part.image.data },
      }
    ),
  };
}

/** The `parametersJsonSchema` codec. */
export const gemini: Codec<"gemini"> = {
  ...geminiCalls,
  context: geminiContext,
  schema: jsonSchema,
  definitions: (entries) => [{
    functionDeclarations: entries.map((entry) => ({
      ...nameAndDescription(entry),
      parametersJsonSchema: entry.schema ?? { type: "object", properties: {} },
    })),
  }],
};

/** Gemini: "Must start with a letter or an underscore". */
const GEMINI_NAME_START = /^[a-zA-Z_]/;

/** JSON Schema keywords Gemini documents for `parametersJsonSchema`. */
const JSON_KEYWORDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "enum",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "properties",
  "additionalProperties",
  "required",
  "propertyOrdering",
  "default",
]);

/** Builds `parametersJsonSchema`. */
function jsonSchema(input: Schema): Dialect {
  const { schema, hint, notes } = prepare(input);
  const dropped = new Set<string>();
  const walk = (input: unknown): unknown => {
    if (!isSchema(input)) return {};
    const node = Array.isArray(input.allOf) ? mergeAllOf(input) : input;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "oneOf" && Array.isArray(value)) {
        out.anyOf = [...(Array.isArray(out.anyOf) ? out.anyOf : []), ...value];
      } else if (key === "const") {
        out.enum = [value];
      } else if (key === "examples" && Array.isArray(value)) {
        continue;
      } else if (JSON_KEYWORDS.has(key)) {
        out[key] = value;
      } else {
        dropped.add(key);
      }
    }
    if (Array.isArray(node.anyOf) && Array.isArray(node.oneOf)) {
      out.anyOf = [...node.anyOf, ...node.oneOf];
    }
    if (Object.hasOwn(out, "required")) {
      // Gemini refuses a required property that is not declared.
      const required = existingRequired(out.required, out.properties);
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    return mapChildren(out, walk);
  };
  const result = walk(schema) as Schema;
  if (dropped.size > 0) {
    notes.push(
      `removed unsupported keywords: ${[...dropped].sort().join(", ")}`,
    );
  }
  return withHint({ schema: result, notes }, hint);
}

/** The object root, with references inlined and cycles cut. */
export function prepare(
  input: Schema,
): { schema: Schema; hint?: string; notes: string[] } {
  const root = objectRoot(input);
  const notes = [...root.notes];
  const schema = inlineRefs(root.schema, { note: (text) => notes.push(text) });
  return root.hint === undefined
    ? { schema, notes }
    : { schema, hint: root.hint, notes };
}

/** `parameters` with the root hint, when there is one. */
export function withHint(
  parameters: Dialect,
  hint: string | undefined,
): Dialect {
  return hint === undefined ? parameters : { ...parameters, hint };
}

/**
 * Keywords the OpenAPI form's conversion handles as structure rather than
 * copying, and that merging `allOf` branches leaves to the merge.
 */
export const STRUCTURE = new Set([
  "type",
  "anyOf",
  "oneOf",
  "allOf",
  "properties",
  "required",
  "items",
  "prefixItems",
]);

/** Merges object branches of `allOf` into `node`; other branches are ignored. */
export function mergeAllOf(node: Schema): Schema {
  const { allOf, ...rest } = node;
  const properties: Schema = isSchema(rest.properties)
    ? { ...rest.properties }
    : {};
  const required = new Set(Array.isArray(rest.required) ? rest.required : []);
  let type = rest.type;
  for (const branch of flattenAllOf(allOf as unknown[])) {
    if (!isSchema(branch)) continue;
    if (isSchema(branch.properties)) {
      mergeProperties(properties, branch.properties);
    }
    if (Array.isArray(branch.required)) {
      for (const key of branch.required) required.add(key);
    }
    type ??= branch.type;
    for (const [key, value] of Object.entries(branch)) {
      if (!Object.hasOwn(rest, key) && !STRUCTURE.has(key)) {
        setOwn(rest, key, value);
      }
    }
  }
  const out: Schema = { ...rest };
  if (type !== undefined) out.type = type;
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return out;
}

/** A `functionResponse` part (`{ output }` or `{ error }`). */
function result(
  id: string | undefined,
  name: string,
  outcome: Outcome,
): GeminiFunctionResponsePart {
  const response: Record<string, unknown> = outcome.status === "ok"
    ? { output: outcome.json ?? outcome.text }
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
