/**
 * Config files: describe MCP servers in YAML or JSON and load them all at
 * once as validated {@linkcode MCPServerConfig}s with their namespace, tool
 * filter, capability overrides, deadlines and on/off switch.
 *
 * Three formats are accepted: this library's `{ servers: [...] }` list; the
 * `{ mcpServers: { name: {...} } }` files of Claude Desktop, Cursor and
 * Claude Code; and VS Code's `{ servers: { name: {...} } }` (JSON files may
 * have comments and trailing commas, as VS Code writes them). Strings in
 * `command`, `args`, `env`, `url` and `headers` may use `${VAR}` and
 * `${VAR:-default}`; `$${` is a literal `${`.
 *
 * @module
 */

import {
  markChecked,
  type MCPServerConfig,
  serverConfigProblems,
} from "./server.ts";
import type { CapabilityOverrides } from "../tools/capabilities.ts";
import type { MCPToolFilter } from "../types.ts";
import { LOADER_SCHEMA } from "./schema.ts";
import { MCPConfigFileError } from "./errors.ts";
import {
  fileError,
  firstProblem,
  overridesOf,
  readDocument,
  readTextFile,
  schemaProblems,
} from "./_document.ts";
import { type EnvLookup, envLookup, interpolateValue } from "./_interpolate.ts";
import { ConfigProblem, formatPath, type Path } from "./_problem.ts";
import { isRecord, kindOf } from "../_util/values.ts";

export { CONFIG_SCHEMA } from "./schema.ts";
export {
  MCPConfigFileError,
  type MCPConfigFileErrorOptions,
} from "./errors.ts";
// Re-exported so this module documents on its own (`deno doc --lint`).
export type { MCPServerConfig, MCPTransportKind } from "./server.ts";
export type { CapabilityOverrides } from "../tools/capabilities.ts";
export type { JsonSchema, MCPToolFilter, ToolCapability } from "../types.ts";

/** One server of a config file, ready to build an adapter from. */
export interface ServerEntry {
  /** How to reach the server, checked like `validateServerConfig()` does, variables replaced. */
  config: MCPServerConfig;
  /** Registry namespace of its tools (`<namespace>/<tool>`). Default: `config.name`. */
  namespace: string;
  /** Which of its tools to register. */
  filter?: MCPToolFilter;
  /** Capability overrides keyed by the server's tool name or a `*` glob. */
  overrides?: CapabilityOverrides;
  /** Deadline for starting the server and the handshake, in milliseconds. */
  connectTimeoutMs?: number;
  /** Default deadline of a tool call, in milliseconds. */
  requestTimeoutMs?: number;
  /** `false` when the file switches the server off. Default `true`. */
  enabled: boolean;
}

/** The servers of a config file. */
export interface LoadedConfig {
  /** Every server, disabled ones included, in file order. */
  servers: ServerEntry[];
  /** The file's path as given, or `"<inline>"`. */
  source: string;
}

/** Options of {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Variables for `${VAR}`. Default: the process environment, read one
   * variable at a time when a reference needs it (`Deno.env` under Deno,
   * `process.env` under Node).
   */
  env?: Record<string, string | undefined>;
}

/** Options of {@linkcode parseConfig}. */
export interface ParseConfigOptions extends LoadConfigOptions {
  /** The file name used in messages and `LoadedConfig.source`. Default `"<inline>"`. */
  source?: string;
}

/** The formats of a config text. */
export type ConfigFormat = "yaml" | "json";

/** Config text given directly to {@linkcode loadConfig}. */
export interface ConfigText {
  /** The text. */
  text: string;
  /** Its format. */
  format: ConfigFormat;
  /** The file name used in messages. Default `"<inline>"`. */
  source?: string;
}

const INLINE = "<inline>";
const EXAMPLE =
  'servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]';
const STDIO_FIELDS = ["command", "args", "env", "cwd"] as const;
const REMOTE_FIELDS = ["url", "headers", "fallback"] as const;
const INTERPOLATED: ReadonlySet<string> = new Set([
  "command",
  "args",
  "env",
  "url",
  "headers",
]);

/** A server as read from the file, before validation of its config. */
interface Draft {
  path: Path;
  raw: Record<string, unknown>;
  name: string;
  namespace: string;
  /** Where the namespace is written: the namespace field, the name, or the key. */
  namespacePath: Path;
  transport: MCPServerConfig["transport"];
  /** Our own format: strict about fields of the other transport, and has extras. */
  ours: boolean;
  enabled: boolean;
}

/**
 * Parses config text into validated server entries.
 *
 * @param text The YAML or JSON text.
 * @param format `"yaml"` or `"json"`.
 * @param options Variables for `${VAR}`, and the file name for messages.
 * @returns The servers, in file order, and the source.
 * @throws {MCPConfigFileError} On a syntax error (with line and column), an
 * invalid field (with its path and what to write), an unset variable without
 * default, or a duplicate server name or namespace.
 *
 * @example Our format, with a variable
 * ```ts
 * import { parseConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const { servers } = parseConfig(
 *   `servers:
 *   - name: github
 *     transport: streamable-http
 *     url: https://api.githubcopilot.com/mcp/
 *     headers: { Authorization: "Bearer \${GITHUB_TOKEN}" }
 *     filter: { exclude: ["delete_*"] }
 *     overrides: { merge_pull_request: { writes: true } }
 * `,
 *   "yaml",
 *   { env: { GITHUB_TOKEN: "example-token" } },
 * );
 * console.log(servers[0]?.namespace); // "github"
 * console.log(servers[0]?.overrides); // { merge_pull_request: { writes: true } }
 * ```
 *
 * @example A Claude Desktop file, unchanged
 * ```ts
 * import { parseConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const { servers } = parseConfig(
 *   '{ "mcpServers": { "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] } } }',
 *   "json",
 * );
 * console.log(servers[0]?.config.transport); // "stdio"
 * ```
 */
export function parseConfig(
  text: string,
  format: ConfigFormat,
  options: ParseConfigOptions = {},
): LoadedConfig {
  return configOf(text, format, options);
}

function configOf(
  text: string,
  format: ConfigFormat | "guess",
  options: ParseConfigOptions,
): LoadedConfig {
  const file = options.source ?? INLINE;
  if (format !== "yaml" && format !== "json" && format !== "guess") {
    throw new MCPConfigFileError(
      `${file}: unknown format ${
        JSON.stringify(String(format))
      }; pass "yaml" or "json"`,
      { file, path: "" },
    );
  }
  const document = readDocument(text, format, file, EXAMPLE);
  try {
    const root = checkRoot(document.value);
    const problems = schemaProblems(LOADER_SCHEMA, document.value);
    // Without a servers list or object there is nothing to read further.
    if (problems.some((problem) => problem.path.length < 2)) {
      throw firstProblem(problems, document);
    }
    const drafts = draftsOf(root);
    const lookup = envLookup(options.env);
    const servers: ServerEntry[] = [];
    for (const draft of drafts) {
      // A server the schema found fault with is not read further; the
      // server-config check runs on the others, after ${VAR} replacement.
      if (problems.some((problem) => within(problem.path, draft.path))) {
        continue;
      }
      try {
        servers.push(entryOf(draft, lookup));
      } catch (error) {
        if (!(error instanceof ConfigProblem)) throw error;
        problems.push(error);
      }
    }
    if (problems.length > 0) throw firstProblem(problems, document);
    checkUnique(drafts);
    return { servers, source: file };
  } catch (error) {
    if (error instanceof ConfigProblem) {
      throw fileError(file, error, document);
    }
    throw error;
  }
}

/**
 * Loads a config file, or config text.
 *
 * A path's format comes from its extension: `.yaml`/`.yml` is YAML, `.json`
 * is JSON (comments and trailing commas allowed), anything else is tried as
 * JSON, then as YAML. The file is read with `node:fs/promises`, imported on
 * first use. Relative paths inside the file (`cwd`, `args`) are not rewritten:
 * they resolve against the working directory of the process.
 *
 * @param source A file path, or `{ text, format, source? }`.
 * @param options Variables for `${VAR}`.
 * @returns The servers, in file order, and the source.
 * @throws {MCPConfigFileError} When the file cannot be read, or as
 * {@linkcode parseConfig}.
 *
 * @example Load a file, skip the disabled servers
 * ```ts ignore
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const config = await loadConfig("mcp.yaml");
 * for (const server of config.servers.filter((entry) => entry.enabled)) {
 *   console.log(server.namespace, server.config.transport);
 * }
 * ```
 *
 * @example Text with explicit variables
 * ```ts
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const config = await loadConfig(
 *   { text: '{ "servers": { "api": { "type": "http", "url": "${API_URL}" } } }', format: "json" },
 *   { env: { API_URL: "https://example.com/mcp" } },
 * );
 * console.log(config.servers[0]?.config.url); // "https://example.com/mcp"
 * ```
 */
export async function loadConfig(
  source: string | ConfigText,
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  if (typeof source !== "string") {
    return parseConfig(source.text, source.format, {
      ...options,
      ...(source.source === undefined ? {} : { source: source.source }),
    });
  }
  const text = await readTextFile(source);
  return configOf(text, formatOf(source), { ...options, source });
}

/** The format a file name says, or `"guess"`: JSON if the text parses as JSON, else YAML. */
function formatOf(path: string): ConfigFormat | "guess" {
  const lower = path.toLowerCase();
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) return "yaml";
  if (lower.endsWith(".json")) return "json";
  return "guess";
}

/** Refuses what the schema's messages would explain badly. */
function checkRoot(root: unknown): Record<string, unknown> {
  if (!isRecord(root)) {
    throw new ConfigProblem(
      [],
      `expected an object with a "servers" list, got ${
        kindOf(root)
      }; write e.g. ${EXAMPLE}`,
    );
  }
  if (Object.hasOwn(root, "servers") && Object.hasOwn(root, "mcpServers")) {
    throw new ConfigProblem(
      ["mcpServers"],
      'the file has both "servers" and "mcpServers"; keep one of them',
    );
  }
  return root;
}

function draftsOf(root: Record<string, unknown>): Draft[] {
  if (Array.isArray(root.servers)) {
    return root.servers.map((raw: Record<string, unknown>, index) => {
      const name = raw.name as string;
      const explicit = typeof raw.namespace === "string";
      return {
        path: ["servers", index],
        raw,
        name,
        namespace: explicit ? raw.namespace as string : name,
        namespacePath: ["servers", index, explicit ? "namespace" : "name"],
        transport: raw.transport as MCPServerConfig["transport"],
        ours: true,
        enabled: raw.enabled !== false,
      };
    });
  }
  const key = Object.hasOwn(root, "mcpServers") ? "mcpServers" : "servers";
  const servers = root[key] as Record<string, Record<string, unknown>>;
  return Object.entries(servers).map(([name, raw]) => {
    const path = [key, name];
    return {
      path,
      raw,
      name,
      namespace: name,
      namespacePath: path,
      transport: transportOf(raw, path),
      ours: false,
      enabled: raw.disabled !== true && raw.enabled !== false,
    };
  });
}

/** The transport of a Claude Desktop / Cursor / Claude Code / VS Code entry. */
function transportOf(
  raw: Record<string, unknown>,
  path: Path,
): MCPServerConfig["transport"] {
  switch (raw.type) {
    case "stdio":
      return "stdio";
    case "sse":
      return "sse";
    case "http":
    case "streamable-http":
      return "streamable-http";
  }
  if (raw.command !== undefined && raw.url !== undefined) {
    throw new ConfigProblem(
      path,
      'has both "command" and "url"; keep one, or set "type" to "stdio", "sse" or "http"',
    );
  }
  return raw.command !== undefined ? "stdio" : "streamable-http";
}

/** Whether `path` is `parent` or lies under it. */
function within(path: Path, parent: Path): boolean {
  return parent.every((segment, index) => path[index] === segment);
}

function checkUnique(drafts: readonly Draft[]): void {
  const names = new Map<string, Draft>();
  const namespaces = new Map<string, Draft>();
  for (const draft of drafts) {
    const named = names.get(draft.name);
    if (named !== undefined) {
      throw new ConfigProblem(
        [...draft.path, "name"],
        `"${draft.name}" is also the name of ${
          formatPath(named.path)
        }; give each server its own name`,
      );
    }
    names.set(draft.name, draft);
    const other = namespaces.get(draft.namespace);
    if (other !== undefined) {
      throw new ConfigProblem(
        draft.namespacePath,
        `namespace "${draft.namespace}" is also used by ${
          formatPath(other.path)
        }; give each server its own namespace (it defaults to the name)`,
      );
    }
    namespaces.set(draft.namespace, draft);
  }
}

function entryOf(draft: Draft, lookup: EnvLookup): ServerEntry {
  const { raw, path, transport } = draft;
  // Our format: every field written is checked (one of the other transport
  // is a mistake); the other formats: the transport's fields, the rest is
  // ignored, as their own clients do.
  const fields = draft.ours
    ? [...STDIO_FIELDS, ...REMOTE_FIELDS]
    : transport === "stdio"
    ? STDIO_FIELDS
    : REMOTE_FIELDS;
  const candidate: Record<string, unknown> = { name: draft.name, transport };
  for (const field of fields) {
    const value = raw[field];
    if (value === undefined) continue;
    candidate[field] = INTERPOLATED.has(field)
      ? interpolateValue(value, lookup, [...path, field])
      : value;
  }
  const [problem] = serverConfigProblems(candidate);
  if (problem !== undefined) {
    throw new ConfigProblem(
      [...path, ...fileField(problem.path, draft)],
      problem.detail,
    );
  }
  const config = candidate as unknown as MCPServerConfig;
  markChecked(config);
  const entry: ServerEntry = {
    config,
    namespace: draft.namespace,
    enabled: draft.enabled,
  };
  if (!draft.ours) return entry;
  if (isRecord(raw.filter)) entry.filter = filterOf(raw.filter);
  if (isRecord(raw.overrides)) entry.overrides = overridesOf(raw.overrides);
  if (typeof raw.connectTimeoutMs === "number") {
    entry.connectTimeoutMs = raw.connectTimeoutMs;
  }
  if (typeof raw.requestTimeoutMs === "number") {
    entry.requestTimeoutMs = raw.requestTimeoutMs;
  }
  return entry;
}

/** Where a field of the candidate config is written in the file. */
function fileField(path: Path, draft: Draft): Path {
  const [head] = path;
  if (draft.ours) return path;
  // Other formats: the name is the key, the transport is "type" (or implied).
  if (head === "name") return [];
  if (head === "transport") {
    return Object.hasOwn(draft.raw, "type") ? ["type"] : [];
  }
  return path;
}

function filterOf(raw: Record<string, unknown>): MCPToolFilter {
  const filter: MCPToolFilter = {};
  if (Array.isArray(raw.include)) filter.include = [...raw.include];
  if (Array.isArray(raw.exclude)) filter.exclude = [...raw.exclude];
  return filter;
}
