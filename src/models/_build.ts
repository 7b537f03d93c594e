/**
 * Turns registry tools into one provider's tool definitions: names,
 * descriptions and parameter schemas, plus a report per tool. Internal;
 * `model_tools.ts` adds dispatch (and the AI SDK's `execute`).
 *
 * @module
 */

import { toolAlias } from "../tools/alias.ts";
import type { RegisteredTool } from "../tools/registry.ts";
import type { Schema } from "./_json_schema.ts";
import { anthropicInputSchema } from "./_schema_anthropic.ts";
import { geminiJsonSchema, geminiOpenApiSchema } from "./_schema_gemini.ts";
import { dropStrictNulls, openaiParameters } from "./_schema_openai.ts";
import { objectRoot } from "./_json_schema.ts";
import type {
  SchemaReport,
  ToolDefinitionOptions,
  ToolSource,
} from "./options.ts";
import type {
  AnthropicTool,
  GeminiFunctionDeclaration,
  GeminiOpenApiFunctionDeclaration,
  GeminiSchema,
  ModelProvider,
  OpenAIChatTool,
  OpenAIResponsesTool,
} from "./types.ts";

/** One tool as declared to the provider. */
export interface Entry {
  /** The registry tool, as it was when the definitions were built. */
  tool: RegisteredTool;
  /** The name declared to the provider. */
  name: string;
  /** The description declared, if any. */
  description: string | undefined;
  /** The arguments' schema in the provider's form. */
  schema: Schema | undefined;
  /** OpenAI: whether `schema` is strict. */
  strict: boolean;
  /** Undoes schema changes on the model's arguments (strict nulls). */
  restore: (args: Record<string, unknown>) => Record<string, unknown>;
  /** What was changed. */
  report: SchemaReport;
}

const identity = (args: Record<string, unknown>) => args;
/** Gemini: "Must start with a letter or an underscore". */
const GEMINI_NAME_START = /^[a-zA-Z_]/;

/** The tools of a source, in order. */
export function toolsOf(source: ToolSource): RegisteredTool[] {
  return Array.isArray(source)
    ? [...source]
    : (source as { list(): RegisteredTool[] }).list();
}

/**
 * Whether a tool may reach a model: MCP Apps tools whose `visibility` lacks
 * `"model"` are for the server's app only (the spec: a host MUST NOT
 * include them in the agent's tool list).
 */
export function forModel(tool: RegisteredTool): boolean {
  return tool.ui === undefined || tool.ui.visibility.includes("model");
}

/** Declares every tool of `source` a model may see to `provider`. */
export function buildEntries(
  source: ToolSource,
  provider: ModelProvider,
  options: ToolDefinitionOptions,
): Entry[] {
  return toolsOf(source).filter(forModel).map((tool) =>
    buildEntry(tool, provider, options)
  );
}

function buildEntry(
  tool: RegisteredTool,
  provider: ModelProvider,
  options: ToolDefinitionOptions,
): Entry {
  const alias = toolAlias(tool.name);
  const gemini = provider === "gemini" || provider === "gemini-openapi";
  const name = gemini && !GEMINI_NAME_START.test(alias)
    ? `_${alias}`.slice(0, 64)
    : alias;
  const input = tool.inputSchema ?? { type: "object" };
  let schema: Schema | undefined;
  let hint: string | undefined;
  let notes: string[];
  let strict = false;
  let restore = identity;
  switch (provider) {
    case "openai-chat":
    case "openai-responses": {
      const built = openaiParameters(input, options.strict ?? true);
      ({ hint, notes } = built);
      schema = built.parameters;
      strict = built.strict;
      if (strict) {
        const original = objectRoot(input).schema;
        restore = (args) => dropStrictNulls(original, args);
      }
      break;
    }
    case "anthropic":
      ({ schema, hint, notes } = anthropicInputSchema(input));
      break;
    case "gemini":
      ({ schema, hint, notes } = geminiJsonSchema(input));
      break;
    case "gemini-openapi":
      ({ schema, hint, notes } = geminiOpenApiSchema(input));
      break;
    case "ai-sdk": {
      // The AI SDK converts for each provider itself; only the root must
      // be an object.
      ({ schema, hint, notes } = objectRoot(input));
      break;
    }
  }
  const report: SchemaReport = { tool: tool.name, name, notes };
  if (provider === "openai-chat" || provider === "openai-responses") {
    report.strict = strict;
  }
  return {
    tool,
    name,
    description: describe(tool, options, hint),
    schema,
    strict,
    restore,
    report,
  };
}

/** The description a model reads: title, description, capability, root hint. */
function describe(
  tool: RegisteredTool,
  options: ToolDefinitionOptions,
  hint: string | undefined,
): string | undefined {
  let text = (tool.description ?? "").trim();
  const title = tool.title?.trim();
  if ((options.title ?? true) && title && !text.startsWith(title)) {
    text = text === "" ? title : `${title}: ${text}`;
  }
  if (options.capabilityHint) {
    const { readOnly, writes } = tool.capability;
    const label = writes ? "(writes)" : readOnly ? "(read-only)" : "";
    if (label !== "") text = text === "" ? label : `${text} ${label}`;
  }
  if (hint !== undefined) text = text === "" ? hint : `${text} ${hint}`;
  return text === "" ? undefined : text;
}

/** `name`, and `description` when the entry has one (providers reject `undefined`). */
function nameAndDescription(
  entry: Entry,
): { name: string; description?: string } {
  return entry.description === undefined
    ? { name: entry.name }
    : { name: entry.name, description: entry.description };
}

/** Chat Completions `tools`. */
export function openaiChatTools(entries: readonly Entry[]): OpenAIChatTool[] {
  return entries.map((entry) => ({
    type: "function",
    function: {
      ...nameAndDescription(entry),
      parameters: entry.schema ?? {},
      strict: entry.strict,
    },
  }));
}

/** Responses `tools`. */
export function openaiResponsesTools(
  entries: readonly Entry[],
): OpenAIResponsesTool[] {
  return entries.map((entry) => ({
    type: "function",
    ...nameAndDescription(entry),
    parameters: entry.schema ?? {},
    strict: entry.strict,
  }));
}

/** Messages `tools`. */
export function anthropicTools(entries: readonly Entry[]): AnthropicTool[] {
  return entries.map((entry) => ({
    ...nameAndDescription(entry),
    input_schema:
      (entry.schema ?? { type: "object" }) as AnthropicTool["input_schema"],
  }));
}

/** Gemini function declarations with `parametersJsonSchema`. */
export function geminiDeclarations(
  entries: readonly Entry[],
): GeminiFunctionDeclaration[] {
  return entries.map((entry) => ({
    ...nameAndDescription(entry),
    parametersJsonSchema: entry.schema ?? { type: "object", properties: {} },
  }));
}

/** Gemini function declarations with OpenAPI-subset `parameters`. */
export function geminiOpenApiDeclarations(
  entries: readonly Entry[],
): GeminiOpenApiFunctionDeclaration[] {
  return entries.map((entry) => ({
    ...nameAndDescription(entry),
    ...(entry.schema === undefined
      ? {}
      : { parameters: entry.schema as GeminiSchema }),
  }));
}
