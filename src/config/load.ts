/**
 * Config files: describe MCP servers in YAML or JSON and load them all at
 * once as validated {@linkcode MCPServerConfig}s with their namespace, tool
 * filter, capability overrides, deadlines and on/off switch.
 *
 * Three formats are accepted: this library's `{ servers: [...] }` list; the
 * `{ mcpServers: { name: {...} } }` files of Claude Desktop, Cursor and
 * Claude Code; and VS Code's `{ servers: { name: {...} } }` (JSON files may
 * have comments and trailing commas, as VS Code writes them). Strings in
 * `command`, `args`, `env`, `cwd`, `url`, `headers` and `envFile` may use
 * `${VAR}` and `${VAR:-default}` (`$${` is a literal `${`), and VS Code's
 * `${env:VAR}`, `${workspaceFolder}`, `${userHome}` and `${input:id}`. A
 * server's `envFile` (a dotenv file) is read into its `env`. Every problem
 * of a file is reported at once.
 *
 * @module
 */

import { parseSource, parseText } from "./_parse.ts";
import { draftsOf } from "./_drafts.ts";
import { askVariables, variablesOf } from "./_variables.ts";
import { readEnvFiles, refuseEnvFiles } from "./_env_files.ts";
import { entriesOf } from "./_entries.ts";
import type {
  ConfigFormat,
  ConfigText,
  LoadConfigOptions,
  LoadedConfig,
  ParseConfigOptions,
} from "./types.ts";

export { CONFIG_SCHEMA } from "./schema.ts";
export {
  MCPConfigFileError,
  type MCPConfigFileErrorOptions,
  type MCPConfigFileProblem,
} from "./file_error.ts";
export type {
  ConfigFormat,
  ConfigInput,
  ConfigInputs,
  ConfigText,
  ConfigVariableOptions,
  EnterpriseManagedAuth,
  LoadConfigOptions,
  LoadedConfig,
  OAuthLoginAuth,
  ParseConfigOptions,
  ServerAuth,
  ServerEntry,
  WorkloadIdentityAuth,
} from "./types.ts";
// Re-exported so this module documents on its own (`deno doc --lint`).
export type { MCPServerConfig, MCPTransportKind } from "../server_config.ts";
export type { CapabilityOverrides } from "../tools/capabilities.ts";
export type { JsonSchema, MCPToolFilter, ToolCapability } from "../types.ts";

/**
 * Parses config text into validated server entries.
 *
 * Text is parsed without reading files: a server with an `envFile` is a
 * problem here; {@linkcode loadConfig} (which also takes text) reads it.
 *
 * @param text The YAML or JSON text.
 * @param format `"yaml"` or `"json"`.
 * @param options Variables, input values, the workspace folder, and the
 * file name for messages.
 * @returns The servers, in file order, and the source.
 * @throws {MCPConfigFileError} On a syntax error (with line and column), or
 * with every problem found: invalid fields (each with its path and what to
 * write), unset variables without default, inputs without a value,
 * duplicate server names or namespaces.
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
 *
 * @example A VS Code file with an input
 * ```ts
 * import { parseConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const { servers } = parseConfig(
 *   `{
 *     "inputs": [{ "id": "api-key", "type": "promptString", "description": "API key", "password": true }],
 *     "servers": { "search": { "command": "search-mcp", "env": { "API_KEY": "\${input:api-key}" } } }
 *   }`,
 *   "json",
 *   { inputs: { "api-key": "example-key" } },
 * );
 * console.log(servers[0]?.config.env); // { API_KEY: "example-key" }
 * ```
 */
export function parseConfig(
  text: string,
  format: ConfigFormat,
  options: ParseConfigOptions = {},
): LoadedConfig {
  const parsed = parseText(text, format, options.source);
  const servers = draftsOf(parsed);
  const vars = variablesOf(parsed, options);
  const envFiles = refuseEnvFiles(parsed, servers);
  return entriesOf(parsed, servers, vars, envFiles);
}

/**
 * Loads a config file, or config text.
 *
 * A path's format comes from its extension: `.yaml`/`.yml` is YAML, `.json`
 * is JSON (comments and trailing commas allowed), anything else is tried as
 * JSON, then as YAML. Files (the config, and each server's `envFile`) are
 * read with `node:fs/promises`, imported on first use. A relative `envFile`
 * is relative to the config file's folder; other relative paths inside the
 * file (`cwd`, `args`) are not rewritten: they resolve against the working
 * directory of the process. An `envFile` must be a regular file of at most
 * 1 MiB: a device, FIFO or socket is refused without being read.
 *
 * @param source A file path, or `{ text, format, source? }`.
 * @param options Variables, input values or a function that asks for them,
 * and the workspace folder.
 * @returns The servers, in file order, and the source.
 * @throws {MCPConfigFileError} When the file cannot be read, or as
 * {@linkcode parseConfig} (a missing or malformed `envFile` among the
 * problems, with its path).
 * @throws What an `inputs` function throws.
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
 *
 * @example Ask for a VS Code file's inputs
 * ```ts ignore
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 *
 * const config = await loadConfig(".vscode/mcp.json", {
 *   inputs: async ({ id, description, password }) =>
 *     await myPrompt(description ?? id, { hidden: password }),
 * });
 * ```
 */
export async function loadConfig(
  source: string | ConfigText,
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const parsed = await parseSource(source);
  const servers = draftsOf(parsed);
  const vars = await askVariables(parsed, servers, options);
  const envFiles = await readEnvFiles(parsed, servers, vars);
  return entriesOf(parsed, servers, vars, envFiles);
}
