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
import {
  bounded,
  MAX_DESCRIPTION_CHARS,
  MAX_TITLE_CHARS,
  modelText,
  schemaText,
} from "./_model_text.ts";
import type {
  SchemaReport,
  ToolDefinitionOptions,
  ToolSource,
} from "./options.ts";
import type { ModelProvider } from "./types.ts";
import { MAX_SCHEMA_DEPTH } from "./_json_schema.ts";
import { nestedDeeperThan } from "../util/values.ts";
import { errorMessage } from "../util/caught.ts";

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

/**
 * Declares every tool of `source` a model may see in `codec`'s terms. A
 * tool whose definition cannot be built (a schema nested past
 * {@linkcode MAX_SCHEMA_DEPTH} levels or longer than
 * {@linkcode MAX_SCHEMA_CHARS}, or anything else that fails) is
 * left out, with a report that says why, in `omitted`: one bad tool never
 * keeps the others from the model.
 */
export function buildEntries(
  source: ToolSource,
  codec: Pick<Codec<ModelProvider>, "name" | "schema">,
  options: ToolDefinitionOptions,
  omitted?: SchemaReport[],
): Entry[] {
  const entries: Entry[] = [];
  const named = new Map<string, RegisteredTool>();
  for (const tool of toolsOf(source).filter(forModel)) {
    const entry = entryOrOmission(tool, codec, options, omitted);
    if (!entry) continue;
    // One name, one tool: else a call to one would run the other.
    const first = named.get(entry.name);
    if (first !== undefined) {
      omitted?.push({
        tool: String(tool.name),
        name: entry.name,
        notes: [],
        omitted: `left out: its name for this API, ${
          JSON.stringify(entry.name)
        }, is that of tool ${JSON.stringify(String(first.name))} too`,
      });
      continue;
    }
    named.set(entry.name, tool);
    entries.push(entry);
  }
  return entries;
}

/**
 * Declares one tool, or, when its definition cannot be built (see
 * {@linkcode buildEntries}), adds the reason to `omitted` and returns
 * `undefined`.
 */
export function entryOrOmission(
  tool: RegisteredTool,
  codec: Pick<Codec<ModelProvider>, "name" | "schema">,
  options: ToolDefinitionOptions,
  omitted?: SchemaReport[],
): Entry | undefined {
  try {
    // The transforms recurse on the schema: its depth is checked first.
    if (nestedDeeperThan(tool.inputSchema, MAX_SCHEMA_DEPTH)) {
      throw new Error(
        `its input schema nests more than ${MAX_SCHEMA_DEPTH} levels deep`,
      );
    }
    // Names and the values a model echoes cannot be cut: a schema whose
    // text, as the model reads it, is too long cannot be declared. That
    // text only loses characters, but for a line break (U+2028, NEL) that
    // becomes `\n`, two characters of JSON for one: it is at most twice
    // the schema's own, which is measured first and costs a third as much.
    const input = tool.inputSchema ?? {};
    const size = 2 * JSON.stringify(input).length <= MAX_SCHEMA_CHARS
      ? 0
      : JSON.stringify(schemaText(input, MAX_SCHEMA_DEPTH)).length;
    if (size > MAX_SCHEMA_CHARS) {
      throw new Error(
        `its input schema is ${
          size.toLocaleString("en-US")
        } characters of JSON as a model reads it, more than ${
          MAX_SCHEMA_CHARS.toLocaleString("en-US")
        }`,
      );
    }
    return buildEntry(tool, codec, options);
  } catch (error) {
    omitted?.push({
      tool: String(tool.name),
      name: String(tool.name),
      notes: [],
      omitted: `left out: ${errorMessage(error)}`,
    });
    return undefined;
  }
}

/**
 * The most characters of JSON a tool's input schema may take as a model
 * reads it (descriptions cut, see `schemaText`): about 64,000 tokens, half
 * the context assumed when the host gives none, so that one tool never
 * fills a model's window. Real schemas take up to 44,000 (the toolsearch
 * catalog's largest); past the bound is a server that declares 100,000
 * properties, or a property name or `enum` value of a megabyte, which
 * every definition list would carry and which cannot be cut.
 */
const MAX_SCHEMA_CHARS = 256_000;

/** Declares one tool in `codec`'s terms; throws when it cannot. */
function buildEntry(
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
    description: modelDescription(tool, options, dialect.hint),
    // Its descriptions and titles: the input's depth was checked, and a
    // dialect's wrapping and inlining add at most as much again.
    schema: schemaText(dialect.schema, 2 * MAX_SCHEMA_DEPTH) as Entry["schema"],
    strict: dialect.strict ?? false,
    restore: dialect.restore ?? identity,
    report,
  };
}

/**
 * The description a model reads: title, description, capability, root
 * hint; the whole passes `modelText`, so nothing a person cannot see
 * stays in it (the hint quotes the schema's names and values).
 */
export function modelDescription(
  tool: RegisteredTool,
  options: ToolDefinitionOptions,
  hint: string | undefined,
): string | undefined {
  let text = bounded(
    modelText(tool.description ?? "").trim(),
    MAX_DESCRIPTION_CHARS,
  );
  const title = tool.title === undefined
    ? undefined
    : bounded(modelText(tool.title).trim(), MAX_TITLE_CHARS);
  if ((options.title ?? true) && title && !text.startsWith(title)) {
    text = text === "" ? title : `${title}: ${text}`;
  }
  if (options.capabilityHint) {
    const { readOnly, writes } = tool.capability;
    const label = writes ? "(writes)" : readOnly ? "(read-only)" : "";
    if (label !== "") text = text === "" ? label : `${text} ${label}`;
  }
  if (hint !== undefined) {
    text = modelText(text === "" ? hint : `${text} ${hint}`);
  }
  return text === "" ? undefined : text;
}
