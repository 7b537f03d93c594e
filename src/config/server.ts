/**
 * `MCPServerConfig`: how to reach one MCP server, and its validation.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";

/** The three transports of the specification. */
export type MCPTransportKind = "stdio" | "sse" | "streamable-http";

/** How to reach one MCP server (the spec's `MCPServerConfig`). */
export interface MCPServerConfig {
  /** Server identifier; also the default registry namespace. */
  name: string;
  /** `stdio`, `sse` or `streamable-http`. */
  transport: MCPTransportKind;
  /** stdio only: the command that starts the server. */
  command?: string;
  /** stdio only: its arguments. */
  args?: string[];
  /** stdio only: environment variables for the server, on top of a minimal base (PATH, HOME, …). */
  env?: Record<string, string>;
  /** stdio only: the working directory of the server process. */
  cwd?: string;
  /** sse / streamable-http only: the server URL. */
  url?: string;
  /** sse / streamable-http only: HTTP headers sent with every request. */
  headers?: Record<string, string>;
}

const TRANSPORTS: readonly MCPTransportKind[] = [
  "stdio",
  "sse",
  "streamable-http",
];
const FIELDS = new Set([
  "name",
  "transport",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
]);

/**
 * Checks an `MCPServerConfig` and returns it typed. Messages name the field
 * and what to write instead; they never include env or header values.
 *
 * @example
 * ```ts
 * import { validateServerConfig } from "@cleveragents/mcp-adapter";
 *
 * const config = validateServerConfig({ name: "files", transport: "stdio", command: "mcp-files" });
 * console.log(config.command); // "mcp-files"
 * ```
 *
 * @param config The candidate configuration.
 * @returns The same object, typed.
 * @throws {MCPConfigError} When a field is missing or malformed.
 */
export function validateServerConfig(config: unknown): MCPServerConfig {
  if (!isRecord(config)) {
    throw new MCPConfigError(
      "config",
      `MCP server config must be an object like { name: "files", transport: "stdio", command: "mcp-files" }, got ${
        describe(config)
      }`,
    );
  }
  for (const key of Object.keys(config)) {
    if (!FIELDS.has(key)) {
      throw new MCPConfigError(
        key,
        `MCP server config has an unknown field "${key}"; allowed fields are ${
          [...FIELDS].join(", ")
        }`,
      );
    }
  }
  const { name, transport } = config;
  if (typeof name !== "string" || name.trim() === "") {
    throw new MCPConfigError(
      "name",
      `MCP server config needs a non-empty string "name" (e.g. "github"), got ${
        describe(name)
      }`,
    );
  }
  const where = `MCP server "${name}"`;
  if (
    typeof transport !== "string" ||
    !TRANSPORTS.includes(transport as MCPTransportKind)
  ) {
    throw new MCPConfigError(
      "transport",
      `${where}: "transport" must be one of "stdio", "sse" or "streamable-http", got ${
        describe(transport)
      }`,
    );
  }
  if (transport === "stdio") {
    if (typeof config.command !== "string" || config.command.trim() === "") {
      throw new MCPConfigError(
        "command",
        `${where}: stdio transport requires "command", the program that starts the server (e.g. "npx"), got ${
          describe(config.command)
        }`,
      );
    }
    checkStringArray(where, "args", config.args);
    checkStringRecord(where, "env", config.env);
    if (config.cwd !== undefined && typeof config.cwd !== "string") {
      throw new MCPConfigError(
        "cwd",
        `${where}: "cwd" must be a directory path string, got ${
          describe(config.cwd)
        }`,
      );
    }
  } else {
    checkUrl(where, transport, config.url);
    checkStringRecord(where, "headers", config.headers);
  }
  return config as unknown as MCPServerConfig;
}

function checkUrl(where: string, transport: string, url: unknown): void {
  const hint =
    `${where}: ${transport} transport requires "url", an http(s) URL such as "https://example.com/mcp"`;
  if (typeof url !== "string" || url === "") {
    throw new MCPConfigError("url", `${hint}, got ${describe(url)}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MCPConfigError(
      "url",
      `${hint}; the value given is not a valid absolute URL`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new MCPConfigError("url", `${hint}; got a "${parsed.protocol}" URL`);
  }
}

function checkStringArray(where: string, field: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    throw new MCPConfigError(
      field,
      `${where}: "${field}" must be an array of strings, got ${
        describe(value)
      }`,
    );
  }
  const index = value.findIndex((item) => typeof item !== "string");
  if (index !== -1) {
    throw new MCPConfigError(
      `${field}[${index}]`,
      `${where}: "${field}[${index}]" must be a string, got ${
        describe(value[index])
      }; quote numbers and flags`,
    );
  }
}

/** Values are never shown: env and headers carry secrets. */
function checkStringRecord(where: string, field: string, value: unknown): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    throw new MCPConfigError(
      field,
      `${where}: "${field}" must be an object of string values, like { "KEY": "value" }, got ${
        kindOf(value)
      }`,
    );
  }
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") {
      throw new MCPConfigError(
        `${field}.${key}`,
        `${where}: "${field}.${key}" must be a string, got ${
          kindOf(item)
        }; quote the value`,
      );
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : `a ${typeof value}`;
}

/** A short, safe rendering of a non-secret value for error messages. */
function describe(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(
      value.length > 60 ? `${value.slice(0, 57)}...` : value,
    );
  }
  if (
    value === undefined || value === null || typeof value === "number" ||
    typeof value === "boolean"
  ) {
    return String(value);
  }
  return kindOf(value);
}
