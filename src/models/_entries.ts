/**
 * Turns registry tools into the entries a codec declares: the tools a
 * model may see, each with the name, description and arguments schema in
 * the codec's dialect, plus a report per tool. Internal.
 *
 * @module
 */

import {
  type CatalogSource,
  ToolCatalog,
  toolCatalog,
} from "../search/catalog.ts";
import { toolAlias } from "../tools/alias.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import { forModel } from "../tools/visibility.ts";
import type { Codec, Entry } from "./_codec.ts";
import type {
  SchemaReport,
  ToolDefinitionOptions,
  ToolSource,
} from "./options.ts";
import type { ModelProvider } from "./types.ts";

const identity = (args: Record<string, unknown>) => args;

/** The tools of a source, in the model's order (see `ToolSource`). */
export function toolsOf(source: ToolSource): RegisteredTool[] {
  return Array.isArray(source) ? [...source] : catalogOf(source).list();
}

/** The catalog of a source: one per registry and hub; a list gets its own. */
export function catalogOf(source: ToolSource): ToolCatalog {
  return source instanceof ToolCatalog
    ? source
    : toolCatalog(source as CatalogSource);
}

/** The registry calls are resolved through; `undefined` for a list. */
export function registryOf(source: ToolSource): ToolRegistry | undefined {
  return Array.isArray(source) ? undefined : catalogOf(source).registry;
}

export { forModel };

/** Declares every tool of `source` a model may see in `codec`'s terms. */
export function buildEntries(
  source: ToolSource,
  codec: Pick<Codec<ModelProvider>, "name" | "schema">,
  options: ToolDefinitionOptions,
): Entry[] {
  return toolsOf(source).filter(forModel).map((tool) =>
    buildEntry(tool, codec, options)
  );
}

/** Declares one tool in `codec`'s terms. */
export function buildEntry(
  tool: RegisteredTool,
  codec: Pick<Codec<ModelProvider>, "name" | "schema">,
  options: ToolDefinitionOptions,
): Entry {
  const name = codec.name(toolAlias(tool.name));
  const dialect = codec.schema(tool.inputSchema ?? { type: "object" }, options);
  const report: SchemaReport = { tool: tool.name, name, notes: dialect.notes };
  if (dialect.strict !== undefined) report.strict = dialect.strict;
  return {
    tool,
    name,
    description: describe(tool, options, dialect.hint),
    schema: dialect.schema,
    strict: dialect.strict ?? false,
    restore: dialect.restore ?? identity,
    report,
  };
}

/** The description a model reads: title, description, capability, root hint. */
export function describe(
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
