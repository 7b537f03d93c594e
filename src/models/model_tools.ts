/**
 * `modelTools()`: a registry's tools as one model API's tool definitions,
 * and a `dispatch()` that runs the calls the model makes and answers them
 * in that API's tool-result format. `toolDefinitions()` is the definitions
 * alone.
 *
 * @module
 */

import type { Codec, Runner } from "./_codec.ts";
import { buildEntries, catalogOf } from "./_entries.ts";
import { decide, searchSettings } from "./_handoff.ts";
import { type HandedOver, searchTools } from "./_search_tools.ts";
import { instructionsFragment } from "./_instructions.ts";
import { ResultPages } from "./_pages.ts";
import { codecOf } from "./_providers.ts";
import { dispatchCall, runner } from "./_run.ts";
import type {
  DispatchOptions,
  ModelToolsOptions,
  SchemaReport,
  ToolDefinitionOptions,
  ToolHandoff,
  ToolSource,
} from "./options.ts";
import type { ModelProvider } from "./types.ts";
import type {
  DispatchResult,
  FlatDefinitionShapes,
  ProviderShapes,
  ResultOf,
  TurnOf,
} from "./shapes.ts";

// Re-exported so this module documents on its own (`deno doc --lint`).
export type {
  DispatchOptions,
  ModelToolsOptions,
  ResultBudget,
  ResultCut,
  SchemaReport,
  ToolDefinitionOptions,
  ToolHandoff,
  ToolSearchSettings,
  ToolSource,
} from "./options.ts";

export type { ModelProvider } from "./types.ts";
export type {
  DispatchResult,
  FlatDefinitionShapes,
  ProviderShapes,
  ResultOf,
  TurnOf,
} from "./shapes.ts";

/** One provider's view of a set of tools: definitions, and dispatch of calls. */
export interface ModelTools<P extends ModelProvider> {
  /** The provider. */
  readonly provider: P;
  /**
   * The tool definitions, exactly as the provider's request takes them:
   * `tools` for OpenAI and Anthropic, `config.tools` for Gemini, `tools` of
   * `generateText()` for the AI SDK. In the search hand-off (see
   * {@linkcode ModelTools.handoff}): the search tool (and, for Anthropic
   * and OpenAI's own search, every tool deferred), or the meta-tool pair.
   */
  readonly definitions: ProviderShapes[P]["definitions"];
  /**
   * Whether the model got every tool (`"flat"`) or a search over them
   * (`"search"`), in which form, and the token estimate that decided it.
   */
  readonly handoff: ToolHandoff;
  /**
   * Per tool: the name the model sees, the schema form chosen and why; a
   * tool left out of the definitions (its schema nests too deeply) has
   * `omitted` saying why.
   */
  readonly report: readonly SchemaReport[];
  /**
   * The `instructions` option's texts of the servers whose tools are in the
   * definitions, as a system-prompt fragment (each server's text in a
   * `<mcp-server-instructions server="…">` block, capped); `""` without
   * the option or when none applies. In the search hand-off it starts with
   * what the model must know to search: the servers and, under a budget,
   * their tool names.
   */
  readonly instructions: string;
  /**
   * Runs one call the model made and returns the provider's tool-result
   * message(s). Never throws for a failed tool, an unknown name, bad
   * arguments or a refused approval: each becomes an error result the model
   * can read. Rejects with an `MCPConfigError` only for a `resultBudget`
   * option that is not valid.
   */
  dispatch<C extends ProviderShapes[P]["call"]>(
    call: C,
    options?: DispatchOptions,
  ): Promise<ResultOf<P, C>>;
  /**
   * Runs a turn's calls one after another (approval prompts never overlap)
   * and returns the message that answers them all, ready to append to the
   * conversation.
   */
  dispatchAll<C extends ProviderShapes[P]["call"]>(
    calls: readonly C[],
    options?: DispatchOptions,
  ): Promise<TurnOf<P, C>>;
  /**
   * `dispatch()`, returning beside the message the text the model reads in
   * it and the tool's whole result for the host (the model gets at most
   * the result budget; see {@linkcode ResultBudget}).
   */
  run(
    call: ProviderShapes[P]["call"],
    options?: DispatchOptions,
  ): Promise<DispatchResult<P>>;
  /**
   * `dispatchAll()`, returning beside the turn's message each call's
   * {@linkcode DispatchResult}, in order.
   */
  runAll(
    calls: readonly ProviderShapes[P]["call"][],
    options?: DispatchOptions,
  ): Promise<{ turn: ProviderShapes[P]["turn"]; runs: DispatchResult<P>[] }>;
}

/**
 * Hands a registry's tools to a model: the provider's tool definitions
 * (names are the registry's model-safe aliases; schemas transformed to what
 * the provider accepts, see {@linkcode ModelTools.report}), and a
 * `dispatch()` that validates and runs the calls the model makes and formats
 * the results as the provider's tool-result messages.
 *
 * @param source A hub (its servers in config order), a
 * {@linkcode ToolRegistry}, their catalog (`toolCatalog()` of `/search`), or
 * a list of registered tools (e.g. a skill's `select(registry)`).
 * @param provider `"openai-chat"`, `"openai-responses"`, `"anthropic"`,
 * `"gemini"` (`parametersJsonSchema`), `"gemini-openapi"` (OpenAPI-subset
 * `parameters`, for older endpoints) or `"ai-sdk"`.
 * @param options How definitions are written (title, capability hint,
 * OpenAI strict mode), when to hand over a search instead of every tool
 * (`toolSearch`, default `"auto"`: past 5% of a 128,000-token context), the
 * default dispatch options (approval hook, invoke options, result budget;
 * `dispatch()` may override them), per-server result budgets, and
 * `resultPages`.
 * @returns The definitions, a report per tool, `dispatch`/`dispatchAll`,
 * and `run`/`runAll` (the same, with the whole result for the host).
 * @throws {MCPConfigError} For a result budget that is not valid.
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
  const codec = codecOf(provider);
  const settings = searchSettings(options.toolSearch);
  const catalog = catalogOf(source);
  const handoff = decide(catalog, settings);
  const pages = options.resultPages ? new ResultPages() : undefined;
  const tools: HandedOver<P> = handoff.mode === "search"
    ? searchTools(source, codec, { catalog, settings, handoff, pages, options })
    : flatTools(source, codec, { handoff, pages, options });
  const runOne = tools.run;
  const runAll = async (
    calls: readonly ProviderShapes[P]["call"][],
    overrides?: DispatchOptions,
  ) => {
    const runs: DispatchResult<P>[] = [];
    for (const call of calls) runs.push(await runOne(call, overrides));
    return { turn: codec.turn(runs.map((each) => each.message)), runs };
  };
  return {
    provider,
    definitions: tools.definitions,
    handoff: tools.handoff,
    report: tools.report,
    instructions: tools.instructions,
    dispatch: (async (
      call: ProviderShapes[P]["call"],
      overrides?: DispatchOptions,
    ) => (await runOne(call, overrides)).message) as ModelTools<P>["dispatch"],
    dispatchAll: (async (
      calls: readonly ProviderShapes[P]["call"][],
      overrides?: DispatchOptions,
    ) => (await runAll(calls, overrides)).turn) as ModelTools<P>["dispatchAll"],
    run: runOne,
    runAll,
  };
}

/** Every tool's definition, and the run of their calls. */
function flatTools<P extends ModelProvider>(
  source: ToolSource,
  codec: Codec<P>,
  { handoff, pages, options }: {
    handoff: ToolHandoff;
    pages: ResultPages | undefined;
    options: ModelToolsOptions;
  },
): HandedOver<P> {
  const omitted: SchemaReport[] = [];
  const entries = buildEntries(source, codec, options, omitted);
  if (pages !== undefined) {
    for (const entry of buildEntries([pages.tool()], codec, options)) {
      entries.push({ ...entry, local: true });
    }
  }
  const run = runner(source, entries, { ...options, pages });
  return {
    definitions: codec.definitions(entries, run),
    handoff,
    report: [...entries.map((entry) => entry.report), ...omitted],
    instructions: instructionsFragment(
      options.instructions,
      entries,
      options.instructionsMaxChars,
    ),
    run: (call, overrides) => dispatchCall(codec, call, run, overrides),
  };
}

/**
 * A registry's tools as one model API's tool definitions: the JSON its
 * request takes, with the registry's model-safe aliases as names and each
 * schema transformed to what the provider accepts: always every tool (the
 * search hand-off needs `dispatch()`). Use {@linkcode modelTools} to also
 * run the calls the model makes, and for the search hand-off.
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
): FlatDefinitionShapes[P] {
  const codec = codecOf(provider);
  const entries = buildEntries(source, codec, options);
  // Only tools that run themselves (the AI SDK's `execute`) call `run`; it
  // is made on the first call, so plain definitions build no dispatch state.
  let run: Runner | undefined;
  return codec.definitions(
    entries,
    (call, overrides) =>
      (run ??= runner(source, entries, options))(call, overrides),
  );
}
