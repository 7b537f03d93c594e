/**
 * The progressive hand-off's policy and texts: when to hand the model a
 * search instead of every tool (a share of the context, the MCP client
 * guidance's 1–5%), and what the model is told about the catalog — the
 * search tool's description (server names: stable across turns and
 * reconnects) and an overview for the system prompt (server and tool
 * names, under a budget). Every server text in them passes `shown()`: the
 * model-text neutraliser, on one line, cut to a length.
 * Internal.
 *
 * @module
 */

import type { ToolCatalog } from "../search/catalog.ts";
import { describeValue } from "../util/values.ts";
import type { SearchBy } from "./_codec.ts";
import type { Schema } from "./_json_schema.ts";
import { modelText } from "./_model_text.ts";
import type { ModelToolsOptions, ToolHandoff } from "./options.ts";

/**
 * The context size assumed when the host gives none: the smallest window of
 * the current frontier models (GPT-4o and 4.1-class: 128k; Claude: 200k;
 * Gemini: 1M), so the switch comes early rather than late.
 */
export const DEFAULT_CONTEXT_TOKENS = 128_000;
/**
 * The share of the context the flat definitions may take: the top of the
 * MCP client guidance's "1%-5%" ("When to Use Progressive Discovery",
 * modelcontextprotocol.io/docs/develop/clients/client-best-practices).
 */
export const DEFAULT_THRESHOLD = 0.05;
/** Tools one search hands the model, by default and at most. */
export const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
/** The budget of the overview's tool names, in characters. */
export const DEFAULT_OVERVIEW_CHARS = 2000;
/** The catalog search tool of the meta pair and of Anthropic's client search. */
export const SEARCH_TOOL = "search_tools";
/** The meta pair's call tool. */
export const CALL_TOOL = "call_tool";

/** The settings, checked, with their defaults. */
export interface SearchSettings {
  when: "auto" | "always" | "never";
  thresholdTokens: number;
  form: "native" | "meta";
  by: SearchBy;
  results: number;
  overviewChars: number;
}

/**
 * Reads the `toolSearch` option.
 *
 * @throws {TypeError} For a value out of range, naming it.
 */
export function searchSettings(
  option: ModelToolsOptions["toolSearch"],
): SearchSettings {
  const settings = typeof option === "string" ? { when: option } : option ?? {};
  const when = settings.when ?? "auto";
  oneOf("toolSearch.when", when, ["auto", "always", "never"]);
  const form = settings.form ?? "native";
  oneOf("toolSearch.form", form, ["native", "meta"]);
  const by = settings.searchBy ?? "catalog";
  oneOf("toolSearch.searchBy", by, ["catalog", "provider"]);
  const contextTokens = settings.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  positiveInteger("toolSearch.contextTokens", contextTokens);
  const threshold = settings.threshold ?? DEFAULT_THRESHOLD;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) {
    throw new TypeError(
      `toolSearch.threshold must be a share of the context from 0 to 1 (0.05 is 5%), got ${
        describeValue(threshold)
      }`,
    );
  }
  const thresholdTokens = settings.thresholdTokens ??
    Math.floor(contextTokens * threshold);
  if (!Number.isInteger(thresholdTokens) || thresholdTokens < 0) {
    throw new TypeError(
      `toolSearch.thresholdTokens must be a whole number of tokens, got ${
        describeValue(thresholdTokens)
      }`,
    );
  }
  const results = settings.results ?? DEFAULT_RESULTS;
  positiveInteger("toolSearch.results", results, MAX_RESULTS);
  const overviewChars = settings.overviewChars ?? DEFAULT_OVERVIEW_CHARS;
  if (!Number.isInteger(overviewChars) || overviewChars < 0) {
    throw new TypeError(
      `toolSearch.overviewChars must be a whole number of characters, got ${
        describeValue(overviewChars)
      }`,
    );
  }
  return { when, thresholdTokens, form, by, results, overviewChars };
}

/** Flat or search: the definitions' estimated tokens against the threshold. */
export function decide(
  catalog: ToolCatalog,
  settings: SearchSettings,
): ToolHandoff {
  const definitionTokens = settings.when === "never"
    ? 0
    : catalog.definitionTokens();
  const search = settings.when === "always" ||
    (settings.when === "auto" && definitionTokens > settings.thresholdTokens);
  return {
    mode: search ? "search" : "flat",
    form: "flat",
    definitionTokens,
    thresholdTokens: settings.thresholdTokens,
  };
}

/** The catalog search tool's arguments. */
export const SEARCH_PARAMETERS: Schema = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description:
        'What you want to do, in plain words (e.g. "open a pull request")',
    },
  },
  required: ["query"],
};

/** The call tool's arguments; `asText`: `arguments` as JSON text. */
export function callParameters(asText: boolean): Schema {
  return {
    type: "object",
    properties: {
      name: {
        type: "string",
        description: `The tool's name, as ${SEARCH_TOOL} returned it`,
      },
      arguments: asText
        ? {
          type: "string",
          description:
            "The tool's arguments as a JSON object, as its input schema asks",
        }
        : {
          type: "object",
          description: "The tool's arguments, as its input schema asks",
          additionalProperties: true,
        },
    },
    required: ["name", "arguments"],
  };
}

/**
 * Server text as this library's own text shows it to a model: through the
 * model-text neutraliser (NFKC; no control, format, tag or invisible
 * characters), on one line, at most `maxChars` characters (cut with `…`).
 */
export function shown(text: string, maxChars: number): string {
  const clean = modelText(text, true).replace(/\s+/g, " ").trim();
  if (clean.length <= maxChars) return clean;
  // By code point: a cut pair would leave half a character.
  const points = [...clean];
  return points.length <= maxChars
    ? clean
    : `${points.slice(0, maxChars - 1).join("").trimEnd()}…`;
}

/** Server names for the model: at most 40, 600 characters. */
function serverList(servers: readonly string[]): string {
  const names: string[] = [];
  let length = 0;
  for (const server of servers) {
    const name = shown(server, 64);
    if (name === "") continue;
    if (names.length === 40 || length + name.length > 600) {
      return `${names.join(", ")} and ${servers.length - names.length} more`;
    }
    names.push(name);
    length += name.length + 2;
  }
  return names.join(", ");
}

/**
 * The search tool's description: what it searches (the servers, in order)
 * and what comes back. It changes only when a server is added to the
 * catalog, not when a server's tools change or it reconnects.
 */
export function searchDescription(
  servers: readonly string[],
  meta: boolean,
): string {
  const list = serverList(servers);
  return `Finds tools of the MCP servers you are connected to${
    list === "" ? "" : ` (${list})`
  } by what they do. Describe the task in plain words; the best matching tools are returned${
    meta
      ? ` with their input schemas. Run one with ${CALL_TOOL}.`
      : " and become callable."
  } Search again with other words if none fits.`;
}

/** A namespace as OpenAI's model sees it: its name and what it holds. */
export function namespaceInfo(
  catalog: ToolCatalog,
): (namespace: string) => { name: string; description: string } {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const byNamespace = new Map<string, string[]>();
  for (const tool of catalog.list()) {
    const slash = tool.name.indexOf("/");
    const ns = tool.name.slice(0, slash);
    const list = byNamespace.get(ns) ?? [];
    list.push(tool.name.slice(slash + 1));
    byNamespace.set(ns, list);
  }
  return (namespace) => {
    let name = names.get(namespace);
    if (name === undefined) {
      const base = namespace.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 60) ||
        "server";
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      taken.add(name);
      names.set(namespace, name);
    }
    const tools = byNamespace.get(namespace) ?? [];
    return {
      name,
      description: `Tools of MCP server ${
        JSON.stringify(shown(namespace, 64))
      }: ${nameList(tools, 300)} (${tools.length} tool${
        tools.length === 1 ? "" : "s"
      })`,
    };
  };
}

/** Names, neutralised, until `budget` characters, then `+N more`. */
function nameList(names: readonly string[], budget: number): string {
  const listed: string[] = [];
  let length = 0;
  for (const raw of names) {
    const name = shown(raw, 64);
    if (length + name.length + 2 > budget && listed.length > 0) break;
    listed.push(name);
    length += name.length + 2;
  }
  const rest = names.length - listed.length;
  return rest > 0 ? `${listed.join(", ")}, +${rest} more` : listed.join(", ");
}

/**
 * The system-prompt fragment telling the model the catalog exists: the
 * servers, and under `budget` characters their tool names, each server
 * getting an even share of what is left.
 */
export function overview(
  catalog: ToolCatalog,
  how: string,
  budget: number,
): string {
  const servers = catalog.servers();
  const tools = catalog.list();
  const lines = [
    `Your tools come from MCP servers and are not all listed up front: ${how} Servers: ${
      serverList(servers)
    }.`,
  ];
  if (budget > 0 && tools.length > 0) {
    const byNamespace = new Map<string, string[]>();
    for (const tool of tools) {
      const slash = tool.name.indexOf("/");
      const ns = tool.name.slice(0, slash);
      const list = byNamespace.get(ns) ?? [];
      list.push(tool.name.slice(slash + 1));
      byNamespace.set(ns, list);
    }
    let left = budget;
    let serversLeft = byNamespace.size;
    const parts: string[] = [];
    for (const [ns, names] of byNamespace) {
      const share = Math.floor(left / serversLeft--);
      const part = `${shown(ns, 64)}: ${nameList(names, share)}`;
      parts.push(part);
      left = Math.max(0, left - part.length);
    }
    lines.push(`Some of their tools, by server: ${parts.join("; ")}.`);
  }
  return lines.join("\n");
}

function oneOf(name: string, value: unknown, allowed: readonly string[]) {
  if (!allowed.includes(value as string)) {
    throw new TypeError(
      `${name} must be one of ${
        allowed.map((item) => JSON.stringify(item)).join(", ")
      }, got ${describeValue(value)}`,
    );
  }
}

function positiveInteger(name: string, value: unknown, max = Infinity) {
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < 1 ||
    value > max
  ) {
    throw new TypeError(
      `${name} must be a whole number from 1${
        max === Infinity ? "" : ` to ${max}`
      }, got ${describeValue(value)}`,
    );
  }
}
