/**
 * The one interface every model API implements: how a tool is declared to
 * it (the name rule, the schema dialect, the definitions' JSON), how its
 * tool calls are read, and how outcomes are written back as its
 * tool-result messages. Each provider is one file implementing
 * {@linkcode Codec}; `_providers.ts` holds the registry the shared code
 * picks from. Internal.
 *
 * @module
 */

import type { RegisteredTool } from "../tools/registry.ts";
import type { Image, Outcome } from "./_content.ts";
import type { ContextShapes } from "./context_types.ts";
import type { Schema } from "./_json_schema.ts";
import type {
  DispatchOptions,
  SchemaReport,
  ToolDefinitionOptions,
} from "./options.ts";
import type { ModelProvider } from "./types.ts";
import type { FlatDefinitionShapes, ProviderShapes } from "./shapes.ts";

/** A tool's arguments schema in a provider's dialect, and what was changed. */
export interface Dialect {
  /** The schema; `undefined` when the provider takes none (Gemini OpenAPI). */
  schema: Schema | undefined;
  /** For the model: root constraints that could not be expressed. */
  hint?: string | undefined;
  /** For people: what was changed, in the tool's report. */
  notes: string[];
  /** OpenAI: whether `schema` is the strict form (also in the report). */
  strict?: boolean;
  /** Undoes the dialect's changes on the model's arguments (strict nulls). */
  restore?: (args: Record<string, unknown>) => Record<string, unknown>;
}

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
  /** Set for a tool of this module's own (`read_tool_result`), run without the registry. */
  local?: true;
}

/** A provider's tool call, read: which tool, with what arguments. */
export interface DecodedCall {
  /** The call's id, echoed in the result; Gemini's is optional. */
  id: string | undefined;
  /** The name the model called. */
  name: string;
  /** The arguments as sent: an object, JSON text, or absent. */
  args: unknown;
  /** Set when the call cannot be run at all; the model gets this error. */
  error?: string;
}

/** Runs one call through the shared dispatch rules (lookup, approval, invoke). */
export type Runner = (
  call: { name: string; args: unknown; raw: unknown },
  options?: DispatchOptions,
) => Promise<Outcome>;

/** How one model API declares tools, reads calls and writes results. */
export interface Codec<P extends ModelProvider> {
  /** The name declared for a tool whose registry alias is `alias`. */
  name(alias: string): string;
  /** The tool's arguments schema in this API's dialect. */
  schema(input: Schema, options: ToolDefinitionOptions): Dialect;
  /**
   * The definitions' JSON. `run` is only called by APIs whose tools run
   * themselves (the AI SDK's `execute`).
   */
  definitions(
    entries: readonly Entry[],
    run: Runner,
  ): FlatDefinitionShapes[P];
  /** Reads a tool call. */
  decode(call: ProviderShapes[P]["call"]): DecodedCall;
  /** Writes a call's outcome as this API's tool-result message(s). */
  encode(
    id: string | undefined,
    name: string,
    outcome: Outcome,
  ): ProviderShapes[P]["result"];
  /** Joins one turn's results into the message that answers them all. */
  turn(results: ProviderShapes[P]["result"][]): ProviderShapes[P]["turn"];
  /**
   * The API's own tool search, when it has one (Anthropic, OpenAI
   * Responses): the progressive hand-off uses it instead of the meta-tool
   * pair. See `_handoff.ts`.
   */
  search?: NativeSearch<P>;
  /** How this API takes a resource or a prompt as messages (`context_messages.ts`). */
  context: ContextCodec<P>;
}

/** A part of a message for the model: text, or an image. */
export type ContextPart =
  | { type: "text"; text: string }
  | { type: "image"; image: Image };

/**
 * A message of a resource or a prompt, provider-neutral: its role and its
 * parts, in order, never empty, no text blank and no two texts adjacent.
 */
export interface ContextMessage {
  /** Who says it. */
  role: "user" | "assistant";
  /** What it says. */
  parts: ContextPart[];
}

/** How one model API takes messages of MCP content. */
export interface ContextCodec<P extends ModelProvider> {
  /**
   * Whether its assistant messages may hold images; when not, each becomes
   * a note before {@linkcode ContextCodec.message} is called.
   */
  assistantImages: boolean;
  /** A message in this API's form. */
  message(message: ContextMessage): ContextShapes[P];
}

/** Who searches the deferred tools: this library's catalog, or the provider. */
export type SearchBy = "catalog" | "provider";

/** What a native search form writes its definitions and answers from. */
export interface SearchDeclaration {
  /** Who searches. */
  by: SearchBy;
  /** The catalog's search tool, as the model is told about it. */
  tool: { name: string; description: string; parameters: Schema };
  /** Every tool declared deferred, in the model's order (see `declaresAll`). */
  deferred: readonly Entry[];
  /** A server's namespace as the model sees it: a name and a description. */
  namespace(namespace: string): { name: string; description: string };
}

/** An API's native deferral: definitions, its search calls and answers. */
export interface NativeSearch<P extends ModelProvider> {
  /** Whether this searcher needs every tool declared (deferred) up front. */
  declaresAll(by: SearchBy): boolean;
  /** The definitions: the search tool, then any deferred tools. */
  definitions(
    declaration: SearchDeclaration,
    declare: (entries: readonly Entry[]) => FlatDefinitionShapes[P],
  ): ProviderShapes[P]["definitions"];
  /** A call of the catalog's search tool, read; `undefined` for any other call. */
  searchCall(
    call: ProviderShapes[P]["call"],
    declaration: SearchDeclaration,
  ): { id: string | undefined; args: unknown } | undefined;
  /** The answer to a catalog search: the tools found (none: `note` says why). */
  found(
    id: string | undefined,
    entries: readonly Entry[],
    note: string,
    declaration: SearchDeclaration,
    declare: (entries: readonly Entry[]) => FlatDefinitionShapes[P],
  ): ProviderShapes[P]["result"];
}

/** The alias as it is: the name rule of every API but Gemini. */
export function sameName(alias: string): string {
  return alias;
}

/** `name`, and `description` when the entry has one (providers reject `undefined`). */
export function nameAndDescription(
  entry: Entry,
): { name: string; description?: string } {
  return entry.description === undefined
    ? { name: entry.name }
    : { name: entry.name, description: entry.description };
}

/** The texts of `parts`, joined by a blank line (for APIs whose message is a string). */
export function joinedText(parts: readonly ContextPart[]): string {
  return parts.flatMap((part) => part.type === "text" ? [part.text] : [])
    .join("\n\n");
}
