/**
 * The progressive hand-off's definitions and dispatch. The model gets a
 * search over the catalog instead of every tool: the provider's own
 * deferral where it has one (`codec.search`: Anthropic, OpenAI Responses),
 * or for every other API the meta-tool pair — `search_tools`, which answers
 * with the tools found and their input schemas, then `call_tool`, whose
 * inner call runs through the same dispatch as a direct call (lookup,
 * app-only check, arguments, approval policy, the adapter's validation,
 * drift holds, errors). The definitions never list a server's tools, so
 * they stay the same bytes while tools come and go; the tools found reach
 * the model in the conversation, after what it already has. Internal.
 *
 * @module
 */

import type { ToolCatalog, ToolSearchResult } from "../search/catalog.ts";
import { toolAlias } from "../tools/alias.ts";
import type { RegisteredTool } from "../tools/registry.ts";
import { errorMessage } from "../util/caught.ts";
import type { Codec, Entry, Runner, SearchDeclaration } from "./_codec.ts";
import { failure, type Outcome } from "./_content.ts";
import { buildEntries, entryOrOmission, modelDescription } from "./_entries.ts";
import {
  CALL_TOOL,
  callParameters,
  namespaceInfo,
  overview,
  SEARCH_PARAMETERS,
  SEARCH_TOOL,
  searchDescription,
  type SearchSettings,
  shown,
} from "./_handoff.ts";
import { instructionsFragment } from "./_instructions.ts";
import { isSchema, MAX_SCHEMA_DEPTH, type Schema } from "./_json_schema.ts";
import { schemaText } from "./_model_text.ts";
import type { ResultPages } from "./_pages.ts";
import { dispatchCall, runner } from "./_run.ts";
import type {
  DispatchOptions,
  ModelToolsOptions,
  SchemaReport,
  ToolHandoff,
  ToolSource,
} from "./options.ts";
import type { ModelProvider } from "./types.ts";
import type { DispatchResult, ProviderShapes } from "./shapes.ts";

/** The largest input schema shown in a search result, as JSON characters. */
const MAX_SCHEMA_CHARS = 16_000;
/** The longest description shown in a search result. */
const MAX_DESCRIPTION_CHARS = 1_000;

/** What `modelTools()` is made of: definitions, and the run of a call. */
export interface HandedOver<P extends ModelProvider> {
  definitions: ProviderShapes[P]["definitions"];
  report: SchemaReport[];
  instructions: string;
  handoff: ToolHandoff;
  run(
    call: ProviderShapes[P]["call"],
    options?: DispatchOptions,
  ): Promise<DispatchResult<P>>;
}

const identity = (args: Record<string, unknown>) => args;

/** Builds the search hand-off of `catalog` for one API. */
export function searchTools<P extends ModelProvider>(
  source: ToolSource,
  codec: Codec<P>,
  { catalog, settings, handoff: decision, pages, options }: {
    catalog: ToolCatalog;
    settings: SearchSettings;
    handoff: ToolHandoff;
    pages: ResultPages | undefined;
    options: ModelToolsOptions;
  },
): HandedOver<P> {
  const native = settings.form === "native" ? codec.search : undefined;
  const meta = native === undefined;
  const { by } = settings;
  // One entry per tool object: a relisted tool is declared afresh. A tool
  // whose definition cannot be built is left out and reported, once.
  const omitted: SchemaReport[] = [];
  const entries = new WeakMap<RegisteredTool, Entry | undefined>();
  const entryOf = (tool: RegisteredTool): Entry | undefined => {
    if (entries.has(tool)) return entries.get(tool);
    const entry = meta
      ? rawEntry(tool, options)
      : entryOrOmission(tool, codec, options, omitted);
    entries.set(tool, entry);
    return entry;
  };
  const declaresAll = native?.declaresAll(by) ?? false;
  const deferred = declaresAll
    ? catalog.list().map(entryOf).filter((entry) => entry !== undefined)
    : [];
  const declared = new Set(deferred.map((entry) => entry.tool.name));
  const declaration: SearchDeclaration = {
    by,
    tool: {
      name: SEARCH_TOOL,
      description: searchDescription(catalog.servers(), meta),
      parameters: SEARCH_PARAMETERS,
    },
    deferred,
    namespace: namespaceInfo(catalog),
  };
  // `read_tool_result` (resultPages) is declared beside the search, never deferred.
  const local = pages === undefined
    ? []
    : buildEntries([pages.tool()], codec, options).map((
      entry,
    ) => ({ ...entry, local: true as const }));
  const run = runner(source, [...deferred, ...local], { ...options, pages }, {
    find(name) {
      const tool = catalog.get(name);
      return tool && entryOf(tool);
    },
    unknown: (name) =>
      `Unknown tool ${JSON.stringify(name)}. ${
        meta
          ? `Find tools with ${SEARCH_TOOL}, then run one with ${CALL_TOOL} by the name it returns.`
          : "Search for the tool first; call it by the name the search returns."
      }`,
  });

  /** The tools a search finds for the model, as entries. */
  const find = async (
    args: unknown,
  ): Promise<{ hits: ToolSearchResult[]; note: string }> => {
    const query = argument(args, "query");
    if (typeof query !== "string" || query.trim() === "") {
      return {
        hits: [],
        note:
          `The tool search needs a query: what you want to do, in plain words.`,
      };
    }
    let hits: ToolSearchResult[];
    try {
      hits = await catalog.search(query, {
        k: settings.results,
        // Anthropic loads only tools declared in this request.
        ...(declaresAll ? { only: (tool) => declared.has(tool.name) } : {}),
      });
    } catch (error) {
      return {
        hits: [],
        note: `The tool search failed: ${errorMessage(error)}`,
      };
    }
    return {
      hits,
      note: hits.length > 0
        ? ""
        : `No tool matched ${
          JSON.stringify(shown(query, 200))
        }. Search again with other words: what the tool does, or its server's name.`,
    };
  };

  const searchName = codec.name(SEARCH_TOOL);
  const callName = codec.name(CALL_TOOL);
  const routed: Runner = async (call, overrides) => {
    if (meta && call.name === searchName) {
      const { hits, note } = await find(call.args);
      return ok(hits.length === 0 ? note : results(hits, options));
    }
    if (meta && call.name === callName) {
      const name = argument(call.args, "name");
      if (typeof name !== "string" || name === "") {
        return failure(
          `${CALL_TOOL} needs the name of a tool ${SEARCH_TOOL} returned, and its arguments: {"name": "…", "arguments": {…}}.`,
        );
      }
      return await run(
        { name, args: argument(call.args, "arguments"), raw: call.raw },
        overrides,
      );
    }
    return await run(call, overrides);
  };
  const declare = (list: readonly Entry[]) => codec.definitions(list, routed);

  let definitions: ProviderShapes[P]["definitions"];
  let report: SchemaReport[];
  if (native) {
    definitions = [
      ...native.definitions(declaration, declare) as unknown[],
      ...declare(local) as unknown[],
    ] as ProviderShapes[P]["definitions"];
    report = [
      ...[...deferred, ...local].map((entry) => entry.report),
      ...omitted,
    ];
  } else {
    const pair = [
      metaEntry(codec, SEARCH_TOOL, declaration.tool.description, {
        parameters: SEARCH_PARAMETERS,
        options,
      }),
      callEntry(codec, options),
      ...local,
    ];
    definitions = declare(pair);
    report = pair.map((entry) => entry.report);
  }

  const how = meta
    ? `find them with ${SEARCH_TOOL} by what they do, then run one with ${CALL_TOOL}.`
    : "search for them with the tool search by what they do; the tools it finds become callable.";
  const servers = instructionsFragment(
    options.instructions,
    catalog.list().map((tool) => ({ tool }) as Entry),
    options.instructionsMaxChars,
  );
  return {
    definitions,
    report,
    instructions: [overview(catalog, how, settings.overviewChars), servers]
      .filter((part) => part !== "").join("\n\n"),
    handoff: {
      ...decision,
      form: meta ? "meta" : "native",
      ...(meta ? {} : { searchBy: by }),
    },
    async run(call, overrides) {
      const search = native?.searchCall(call, declaration);
      if (native && search) {
        const { hits, note } = await find(search.args);
        return {
          message: native.found(
            search.id,
            hits.map((hit) => entryOf(hit.tool)).filter((entry) =>
              entry !== undefined
            ),
            note,
            declaration,
            declare,
          ),
          text: hits.length === 0
            ? note
            : hits.map((hit) => hit.alias).join(", "),
          result: undefined,
          cut: undefined,
        };
      }
      return await dispatchCall(codec, call, routed, overrides);
    },
  };
}

function ok(text: string): Outcome {
  return { status: "ok", text, images: [] };
}

/** One argument of a meta call: from an object, or an object as JSON text. */
function argument(args: unknown, key: string): unknown {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return isSchema(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** A tool as the meta pair runs it: its own schema, arguments as sent. */
function rawEntry(tool: RegisteredTool, options: ModelToolsOptions): Entry {
  const name = toolAlias(tool.name);
  return {
    tool,
    name,
    description: modelDescription(tool, options, undefined),
    schema: tool.inputSchema,
    strict: false,
    restore: identity,
    report: { tool: tool.name, name, notes: [] },
  };
}

/** A meta tool, declared in the API's dialect like any tool. */
function metaEntry<P extends ModelProvider>(
  codec: Codec<P>,
  name: string,
  description: string,
  { parameters, options }: { parameters: Schema; options: ModelToolsOptions },
): Entry {
  const dialect = codec.schema(parameters, options);
  const declared = codec.name(name);
  const report: SchemaReport = {
    tool: name,
    name: declared,
    notes: dialect.notes,
  };
  if (dialect.strict !== undefined) report.strict = dialect.strict;
  return {
    tool: {
      name: `mcp-adapter/${name}`,
      description,
      inputSchema: parameters,
      capability: { readOnly: true, writes: false },
      checkpointable: false,
      source: "mcp",
      sourceMetadata: { server: "" },
      invoke: () => Promise.reject(new Error(`${name} runs in dispatch()`)),
    },
    name: declared,
    description,
    schema: dialect.schema,
    strict: dialect.strict ?? false,
    restore: dialect.restore ?? identity,
    report,
  };
}

/**
 * `call_tool`, its `arguments` an open object; for a dialect that cannot
 * say "any object" (Gemini's OpenAPI subset drops `additionalProperties`,
 * and refuses an OBJECT without properties), JSON text instead.
 */
function callEntry<P extends ModelProvider>(
  codec: Codec<P>,
  options: ModelToolsOptions,
): Entry {
  const description =
    `Runs a tool that ${SEARCH_TOOL} found: its name, and its arguments as its input schema asks.`;
  const entry = metaEntry(codec, CALL_TOOL, description, {
    parameters: callParameters(false),
    options,
  });
  const args = isSchema(entry.schema?.properties)
    ? entry.schema.properties.arguments
    : undefined;
  const open = isSchema(args) &&
    (Object.hasOwn(args, "additionalProperties") ||
      Object.hasOwn(args, "properties"));
  return open ? entry : metaEntry(codec, CALL_TOOL, description, {
    parameters: callParameters(true),
    options,
  });
}

/** The meta search's answer: one JSON line per tool, best first. */
function results(
  hits: readonly ToolSearchResult[],
  options: ModelToolsOptions,
): string {
  const lines = [
    `Tools found, best first. Run one with ${CALL_TOOL}: {"name": <its name>, "arguments": <an object its inputSchema accepts>}.`,
  ];
  for (const hit of hits) {
    lines.push(JSON.stringify({
      name: hit.alias,
      description: shown(
        modelDescription(hit.tool, options, undefined) ?? "",
        MAX_DESCRIPTION_CHARS,
      ),
      inputSchema: shownSchema(hit.tool.inputSchema),
    }));
  }
  return lines.join("\n");
}

/**
 * A schema as shown in a search result, its descriptions and titles
 * neutralised as in the tool definitions, or a note when it is too large
 * (or too deep).
 */
function shownSchema(schema: unknown): unknown {
  let text: string;
  try {
    text = JSON.stringify(
      schemaText(schema ?? { type: "object" }, MAX_SCHEMA_DEPTH),
    );
  } catch {
    return "(this tool's input schema cannot be shown)";
  }
  return text.length <= MAX_SCHEMA_CHARS
    ? JSON.parse(text)
    : `(this tool's input schema is ${text.length} characters, too large to show; pass the arguments its description names)`;
}
