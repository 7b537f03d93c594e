/**
 * `modelTools()`: a registry's tools as one model API's tool definitions,
 * and a `dispatch()` that runs the calls the model makes and answers them
 * in that API's tool-result format. `toolDefinitions()` is the definitions
 * alone.
 *
 * @module
 */

import {
  anthropicTools,
  buildEntries,
  type Entry,
  geminiDeclarations,
  geminiOpenApiDeclarations,
  openaiChatTools,
  openaiResponsesTools,
} from "./_build.ts";
import type { Outcome } from "./_content.ts";
import {
  aiSdkModelOutput,
  aiSdkOutput,
  anthropicResult,
  geminiResult,
  openaiChatResult,
  openaiChatTurn,
  openaiResponsesResult,
} from "./_results.ts";
import { runCall, ToolIndex } from "./_run.ts";
import { instructionsFragment } from "./_instructions.ts";
import type {
  DispatchOptions,
  ModelToolsOptions,
  SchemaReport,
  ToolDefinitionOptions,
  ToolSource,
} from "./options.ts";
import type {
  AiSdkInputSchema,
  AiSdkTool,
  AiSdkToolCall,
  AiSdkToolResultPart,
  AnthropicToolResult,
  AnthropicToolUse,
  GeminiFunctionCall,
  GeminiFunctionResponsePart,
  ModelProvider,
  OpenAIChatMessage,
  OpenAIChatToolCall,
  OpenAIResponsesFunctionCall,
  OpenAIResponsesFunctionCallOutput,
  ProviderShapes,
} from "./types.ts";
import type { JsonSchema } from "../types.ts";

// Re-exported so this module documents on its own (`deno doc --lint`).
export type {
  DispatchOptions,
  ModelToolsOptions,
  SchemaReport,
  ToolDefinitionOptions,
  ToolSource,
} from "./options.ts";
export type { ModelProvider, ProviderShapes } from "./types.ts";

/** One provider's view of a set of tools: definitions, and dispatch of calls. */
export interface ModelTools<P extends ModelProvider> {
  /** The provider. */
  readonly provider: P;
  /**
   * The tool definitions, exactly as the provider's request takes them:
   * `tools` for OpenAI and Anthropic, `config.tools` for Gemini, `tools` of
   * `generateText()` for the AI SDK.
   */
  readonly definitions: ProviderShapes[P]["definitions"];
  /** Per tool: the name the model sees, the schema form chosen and why. */
  readonly report: readonly SchemaReport[];
  /**
   * The `instructions` option's texts of the servers whose tools are in the
   * definitions, as a system-prompt fragment (each server's text in a
   * `<mcp-server-instructions server="…">` block, capped); `""` without
   * the option or when none applies.
   */
  readonly instructions: string;
  /**
   * Runs one call the model made and returns the provider's tool-result
   * message(s). Never throws for a failed tool, an unknown name, bad
   * arguments or a refused approval: each becomes an error result the model
   * can read.
   */
  dispatch(
    call: ProviderShapes[P]["call"],
    options?: DispatchOptions,
  ): Promise<ProviderShapes[P]["result"]>;
  /**
   * Runs a turn's calls one after another (approval prompts never overlap)
   * and returns the message that answers them all, ready to append to the
   * conversation.
   */
  dispatchAll(
    calls: readonly ProviderShapes[P]["call"][],
    options?: DispatchOptions,
  ): Promise<ProviderShapes[P]["turn"]>;
}

/** How one provider reads calls and writes results. */
interface Codec<P extends ModelProvider> {
  definitions(entries: Entry[], run: Runner): ProviderShapes[P]["definitions"];
  read(
    call: ProviderShapes[P]["call"],
  ): { id: string | undefined; name: string; args: unknown; error?: string };
  write(
    id: string | undefined,
    name: string,
    outcome: Outcome,
  ): ProviderShapes[P]["result"];
  turn(results: ProviderShapes[P]["result"][]): ProviderShapes[P]["turn"];
}

type Runner = (
  call: { name: string; args: unknown; raw: unknown },
  options?: DispatchOptions,
) => Promise<Outcome>;

const AI_SDK_VENDOR = "cleveragents-mcp-adapter";

/** Gemini's two dialects differ only in how parameters are declared. */
const GEMINI_CALLS: Omit<Codec<"gemini" | "gemini-openapi">, "definitions"> = {
  read: (call: GeminiFunctionCall) => ({
    id: call.id,
    name: call.name ?? "",
    args: call.args,
  }),
  write: (id, name, outcome): GeminiFunctionResponsePart =>
    geminiResult(id, name, outcome),
  turn: (results) => ({ role: "user", parts: results }),
};

const CODECS: { [P in ModelProvider]: Codec<P> } = {
  "openai-chat": {
    definitions: (entries) => openaiChatTools(entries),
    read: (call: OpenAIChatToolCall) =>
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
    write: (id, name, outcome): OpenAIChatMessage[] =>
      openaiChatResult(id ?? "", name, outcome),
    turn: (results) => openaiChatTurn(results),
  },
  "openai-responses": {
    definitions: (entries) => openaiResponsesTools(entries),
    read: (call: OpenAIResponsesFunctionCall) => ({
      id: call.call_id,
      name: call.name,
      args: call.arguments,
    }),
    write: (id, _name, outcome): OpenAIResponsesFunctionCallOutput =>
      openaiResponsesResult(id ?? "", outcome),
    turn: (results) => results,
  },
  anthropic: {
    definitions: (entries) => anthropicTools(entries),
    read: (call: AnthropicToolUse) => ({
      id: call.id,
      name: call.name,
      args: call.input,
    }),
    write: (id, _name, outcome): AnthropicToolResult =>
      anthropicResult(id ?? "", outcome),
    turn: (results) => ({ role: "user", content: results }),
  },
  gemini: {
    ...GEMINI_CALLS,
    definitions: (entries) => [{
      functionDeclarations: geminiDeclarations(entries),
    }],
  },
  "gemini-openapi": {
    ...GEMINI_CALLS,
    definitions: (entries) => [{
      functionDeclarations: geminiOpenApiDeclarations(entries),
    }],
  },
  "ai-sdk": {
    definitions: (entries, run) => aiSdkTools(entries, run),
    read: (call: AiSdkToolCall) => ({
      id: call.toolCallId,
      name: call.toolName,
      args: call.input,
    }),
    write: (id, name, outcome): AiSdkToolResultPart => ({
      type: "tool-result",
      toolCallId: id ?? "",
      toolName: name,
      output: aiSdkModelOutput(aiSdkOutput(outcome)),
    }),
    turn: (results) => ({ role: "tool", content: results }),
  },
};

/**
 * Hands a registry's tools to a model: the provider's tool definitions
 * (names are the registry's model-safe aliases; schemas transformed to what
 * the provider accepts, see {@linkcode ModelTools.report}), and a
 * `dispatch()` that validates and runs the calls the model makes and formats
 * the results as the provider's tool-result messages.
 *
 * @param source A {@linkcode ToolRegistry}, or a list of its tools (e.g. a
 * skill's `select(registry)`).
 * @param provider `"openai-chat"`, `"openai-responses"`, `"anthropic"`,
 * `"gemini"` (`parametersJsonSchema`), `"gemini-openapi"` (OpenAPI-subset
 * `parameters`, for older endpoints) or `"ai-sdk"`.
 * @param options How definitions are written (title, capability hint,
 * OpenAI strict mode) and the default dispatch options
 * (approval hook, invoke options); `dispatch()` may override the latter.
 * @returns The definitions, a report per tool, and `dispatch`/`dispatchAll`.
 *
 * @example Answer Anthropic `tool_use` blocks, asking before writes
 * ```ts
 * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
 * import { modelTools } from "@cleveragents/mcp-adapter/models";
 *
 * const registry = new ToolRegistry();
 * registry.register({
 *   name: "notes/delete_note",
 *   description: "Delete a note",
 *   inputSchema: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
 *   capability: { readOnly: false, writes: true },
 *   checkpointable: false,
 *   source: "mcp",
 *   sourceMetadata: { server: "notes" },
 *   invoke: () =>
 *     Promise.resolve({ success: true, data: { content: [] }, error: null, durationMs: 0 }),
 * } satisfies RegisteredTool);
 *
 * const tools = modelTools(registry, "anthropic", {
 *   capabilityHint: true,
 *   approve: ({ name, args }) => confirm(`Run ${name} with ${JSON.stringify(args)}?`),
 * });
 * console.log(tools.definitions[0]?.name); // "notes__delete_note"
 * const reply = await tools.dispatchAll([
 *   { type: "tool_use", id: "toolu_1", name: "notes__delete_note", input: { id: 3 } },
 * ], { approve: () => false });
 * console.log(reply.content[0]?.is_error); // true: the user declined
 * ```
 */
export function modelTools<P extends ModelProvider>(
  source: ToolSource,
  provider: P,
  options: ModelToolsOptions = {},
): ModelTools<P> {
  const codec = CODECS[provider] as Codec<P> | undefined;
  if (codec === undefined) {
    throw new TypeError(
      `Unknown model provider ${JSON.stringify(provider)}; use one of ${
        Object.keys(CODECS).map((name) => JSON.stringify(name)).join(", ")
      }`,
    );
  }
  const entries = buildEntries(source, provider, options);
  const index = new ToolIndex(source, entries);
  const defaults: DispatchOptions = {
    ...(options.approve ? { approve: options.approve } : {}),
    ...(options.approveAll ? { approveAll: options.approveAll } : {}),
    ...(options.approvalPolicy
      ? { approvalPolicy: options.approvalPolicy }
      : {}),
    ...(options.invokeOptions ? { invokeOptions: options.invokeOptions } : {}),
  };
  const run: Runner = (call, overrides) =>
    runCall(index, call, {
      ...defaults,
      ...overrides,
      invokeOptions: { ...defaults.invokeOptions, ...overrides?.invokeOptions },
    });
  const dispatch = async (
    call: ProviderShapes[P]["call"],
    overrides?: DispatchOptions,
  ): Promise<ProviderShapes[P]["result"]> => {
    const { id, name, args, error } = codec.read(call);
    const outcome = error === undefined
      ? await run({ name, args, raw: call }, overrides)
      : { status: "error" as const, text: error, images: [] };
    return codec.write(id, name, outcome);
  };
  return {
    provider,
    definitions: codec.definitions(entries, run),
    report: entries.map((entry) => entry.report),
    instructions: instructionsFragment(
      options.instructions,
      entries,
      options.instructionsMaxChars,
    ),
    dispatch,
    async dispatchAll(calls, overrides) {
      const results: ProviderShapes[P]["result"][] = [];
      for (const call of calls) results.push(await dispatch(call, overrides));
      return codec.turn(results);
    },
  };
}

/**
 * A registry's tools as one model API's tool definitions: the JSON its
 * request takes, with the registry's model-safe aliases as names and each
 * schema transformed to what the provider accepts. Use
 * {@linkcode modelTools} to also run the calls the model makes.
 *
 * @param source A {@linkcode ToolRegistry}, or a list of its tools.
 * @param provider The model API.
 * @param options Title, capability hint, OpenAI strict mode (and, for
 * `"ai-sdk"`, whose tools run themselves, dispatch options).
 * @returns The definitions: an array of tools, or for Gemini one tool
 * holding every function declaration, or for `"ai-sdk"` a record by name.
 *
 * @example OpenAI Chat Completions `tools`
 * ```ts
 * import { ToolRegistry } from "@cleveragents/mcp-adapter";
 * import { toolDefinitions } from "@cleveragents/mcp-adapter/models";
 *
 * const registry = new ToolRegistry();
 * registry.register({
 *   name: "everything/echo",
 *   description: "Echoes back the input",
 *   title: "Echo Tool",
 *   inputSchema: { type: "object", properties: { message: { type: "string" } } },
 *   capability: { readOnly: true, writes: false },
 *   checkpointable: false,
 *   source: "mcp",
 *   sourceMetadata: { server: "everything" },
 *   invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
 * });
 * const [echo] = toolDefinitions(registry, "openai-chat", { capabilityHint: true });
 * console.log(echo?.function.name); // "everything__echo"
 * console.log(echo?.function.description); // "Echo Tool: Echoes back the input (read-only)"
 * console.log(echo?.function.strict); // true; `message` became required and nullable
 * ```
 */
export function toolDefinitions<P extends ModelProvider>(
  source: ToolSource,
  provider: P,
  options: ToolDefinitionOptions & DispatchOptions = {},
): ProviderShapes[P]["definitions"] {
  return modelTools(source, provider, options).definitions;
}

/** AI SDK tools: description, input schema, `execute`, `toModelOutput`. */
function aiSdkTools(entries: Entry[], run: Runner): Record<string, AiSdkTool> {
  const tools: Record<string, AiSdkTool> = {};
  for (const entry of entries) {
    const tool: AiSdkTool = {
      inputSchema: aiSdkSchema(entry.schema ?? { type: "object" }),
      execute: async (input, { toolCallId, abortSignal }) => {
        const outcome = await run(
          {
            name: entry.name,
            args: input,
            raw: { toolCallId, toolName: entry.name, input },
          },
          abortSignal ? { invokeOptions: { signal: abortSignal } } : undefined,
        );
        return aiSdkOutput(outcome);
      },
      toModelOutput: ({ output }) => aiSdkModelOutput(output),
    };
    if (entry.description !== undefined) tool.description = entry.description;
    tools[entry.name] = tool;
  }
  return tools;
}

/**
 * The AI SDK's schema marker: `jsonSchema()` tags its objects with this
 * global symbol, and `asSchema()` then takes `jsonSchema` as it is.
 */
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

function aiSdkSchema(schema: JsonSchema): AiSdkInputSchema {
  const convert = () => structuredClone(schema);
  return {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    validate: undefined,
    jsonSchema: schema,
    "~standard": {
      version: 1,
      vendor: AI_SDK_VENDOR,
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: convert, output: convert },
    },
  } as AiSdkInputSchema;
}
