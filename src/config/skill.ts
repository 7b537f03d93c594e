/**
 * Skills: a named selection of registry tools, by `namespace/tool` name or
 * `*` glob, with capability overrides of its own. A skill file is YAML:
 *
 * ```yaml
 * name: notes-reader
 * description: Read and search the notebook
 * tools: ["notes/list_notes", "notes/search_*", "notes/get_note"]
 * overrides:
 *   "notes/*": { read_only: true }
 * ```
 *
 * @module
 */

import { globToRegExp, isGlob } from "../util/glob.ts";
import { applyCapabilityOverrides } from "../tools/capabilities.ts";
import type { CapabilityOverrides } from "../tools/capabilities.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import { SKILL_SCHEMA } from "./schema.ts";
import {
  checkSchema,
  overridesOf,
  readDocument,
  readTextFile,
} from "./_document.ts";

// Re-exported so this module documents on its own (`deno doc --lint`).
export type { CapabilityOverrides } from "../tools/capabilities.ts";
export type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";

/** A named selection of registry tools with its own capability overrides. */
export interface Skill {
  /** The skill's name. */
  name: string;
  /** What the skill is for; `""` when the file has none. */
  description: string;
  /** `"namespace/tool"` names or `*` globs such as `"notes/*"`. */
  tools: string[];
  /** Capability overrides keyed by `"namespace/tool"` or a glob; applied by `select()`. */
  overrides: CapabilityOverrides;
  /**
   * The registry's tools that match `tools`, in registry order. Each is a
   * shallow copy whose `capability` has the skill's overrides applied; the
   * registry's tools are not changed.
   *
   * @param registry The registry to select from.
   * @returns The selected tools.
   */
  select(registry: ToolRegistry): RegisteredTool[];
}

/** Options of {@linkcode parseSkill}. */
export interface ParseSkillOptions {
  /** The file name used in messages. Default `"<inline>"`. */
  source?: string;
  /** The text's format. Default `"yaml"` (which also reads most JSON). */
  format?: "yaml" | "json";
}

const EXAMPLE = 'name: "notes-reader" and tools: ["notes/*"]';

/**
 * Parses a skill file.
 *
 * @param text The skill's YAML (or JSON, with `options.format`).
 * @param options The file name for messages, and the format.
 * @returns The skill.
 * @throws {MCPConfigFileError} On a syntax error (with line and column) or an
 * invalid field (with its path and what to write).
 *
 * @example Select the read tools of a registry, marked read-only
 * ```ts
 * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
 * import { parseSkill } from "@cleveragents/mcp-adapter/config";
 *
 * function tool(name: string): RegisteredTool {
 *   return {
 *     name,
 *     description: "",
 *     inputSchema: { type: "object" },
 *     capability: { readOnly: false, writes: false },
 *     checkpointable: false,
 *     source: "mcp",
 *     sourceMetadata: { server: "notes" },
 *     invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
 *   };
 * }
 * const registry = new ToolRegistry();
 * for (const name of ["notes/list_notes", "notes/get_note", "notes/delete_note"]) {
 *   registry.register(tool(name));
 * }
 *
 * const skill = parseSkill(`
 * name: notes-reader
 * tools: ["notes/list_notes", "notes/get_*"]
 * overrides: { "notes/*": { read_only: true } }
 * `);
 * const selected = skill.select(registry);
 * console.log(selected.map((entry) => entry.name)); // ["notes/list_notes", "notes/get_note"]
 * console.log(selected[0]?.capability); // { readOnly: true, writes: false }
 * ```
 */
export function parseSkill(
  text: string,
  options: ParseSkillOptions = {},
): Skill {
  const file = options.source ?? "<inline>";
  const document = readDocument(text, options.format ?? "yaml", file, EXAMPLE);
  checkSchema(document, SKILL_SCHEMA, file);
  const value = document.value as {
    name: string;
    description?: string;
    tools: string[];
    overrides?: Record<string, unknown>;
  };
  return createSkill(
    value.name,
    value.description ?? "",
    [...value.tools],
    overridesOf(value.overrides ?? {}),
  );
}

/**
 * Loads a skill file: YAML, or JSON when the name ends in `.json`. The file
 * is read with `node:fs/promises`, imported on first use.
 *
 * @param path The file's path.
 * @returns The skill.
 * @throws {MCPConfigFileError} When the file cannot be read, or as
 * {@linkcode parseSkill}.
 *
 * @example
 * ```ts ignore
 * import { loadSkill } from "@cleveragents/mcp-adapter/config";
 *
 * const skill = await loadSkill("examples/skill.yaml");
 * console.log(skill.name, skill.tools);
 * ```
 */
export async function loadSkill(path: string): Promise<Skill> {
  const text = await readTextFile(path);
  return parseSkill(text, {
    source: path,
    format: path.toLowerCase().endsWith(".json") ? "json" : "yaml",
  });
}

function createSkill(
  name: string,
  description: string,
  tools: string[],
  overrides: CapabilityOverrides,
): Skill {
  const exact = new Set(tools.filter((pattern) => !isGlob(pattern)));
  const globs = tools.filter(isGlob).map(globToRegExp);
  const matches = (toolName: string) =>
    exact.has(toolName) || globs.some((glob) => glob.test(toolName));
  return {
    name,
    description,
    tools,
    overrides,
    select(registry: ToolRegistry): RegisteredTool[] {
      return registry.list().filter((tool) => matches(tool.name)).map(
        (tool) => {
          const copy: RegisteredTool = Object.assign(
            Object.create(Object.getPrototypeOf(tool)),
            tool,
          );
          copy.capability = applyCapabilityOverrides(
            tool.name,
            tool.capability,
            overrides,
          );
          return copy;
        },
      );
    },
  };
}
