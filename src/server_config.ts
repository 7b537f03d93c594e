/**
 * `MCPServerConfig`: how to reach one MCP server, and its validation.
 *
 * @module
 */

import { MCPConfigError } from "./errors.ts";
import { describeValue, isRecord, kindOf } from "./util/values.ts";
import { ConfigProblem, formatPath, type Path } from "./util/problem.ts";
import { httpUrl, isHeaderName, isHeaderValue } from "./util/http_checks.ts";
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from "./version.ts";

/** The three transports of the specification. */
export type MCPTransportKind = "stdio" | "sse" | "streamable-http";

/**
 * Which protocol revision to speak with a server:
 * - `"auto"` (the default): ask with the modern revision (`server/discover`,
 *   2026-07-28) and fall back to the 2025 era's `initialize` handshake when
 *   the server does not speak it;
 * - `"modern"`: the modern era only, never `initialize`;
 * - `"legacy"`: the `initialize` handshake only, never a probe (for servers
 *   that mis-handle an unknown first request);
 * - a revision such as `"2026-07-28"` or `"2025-06-18"`: exactly that one.
 */
export type MCPProtocolChoice =
  | "auto"
  | "modern"
  | "legacy"
  | "2026-07-28"
  | "2025-11-25"
  | "2025-06-18"
  | "2025-03-26"
  | "2024-11-05";

/** The values of {@linkcode MCPProtocolChoice}. */
export const PROTOCOL_CHOICES: readonly string[] = [
  "auto",
  "modern",
  "legacy",
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

/** A server started as a child process, speaking over its stdin and stdout. */
export interface StdioServerConfig {
  /** Server identifier; also the default registry namespace. */
  name: string;
  /** `"stdio"`. */
  transport: "stdio";
  /** The command that starts the server, e.g. `"npx"`. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /**
   * Environment variables for the server, on top of what it inherits: what
   * every program needs (PATH, HOME, locale), the CA and proxy variables
   * and where caches live (docs/runtimes.md).
   */
  env?: Record<string, string>;
  /**
   * More variables of this process the server inherits: exact names
   * (`"DATABASE_URL"`) or prefixes (`"AWS_*"`). Their values are masked in
   * messages, like `env`'s.
   */
  inheritEnv?: string[];
  /** The working directory of the server process. */
  cwd?: string;
  /** The protocol revision to speak; default `"auto"`. */
  protocol?: MCPProtocolChoice;
  /** Not used by stdio servers. */
  url?: never;
  /** Not used by stdio servers. */
  headers?: never;
  /** Not used by stdio servers. */
  fallback?: never;
}

/** A server reached over HTTP: streamable HTTP, or the legacy SSE transport. */
export interface RemoteServerConfig {
  /** Server identifier; also the default registry namespace. */
  name: string;
  /** `"streamable-http"` or the legacy `"sse"`. */
  transport: "sse" | "streamable-http";
  /** The server URL, e.g. `"https://example.com/mcp"`. */
  url: string;
  /** HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * streamable-http only: when the server answers the `initialize` POST with
   * 400, 404 or 405, try the legacy SSE transport at the same URL (the
   * specification's backwards-compatibility procedure). Default `true`.
   */
  fallback?: boolean;
  /** The protocol revision to speak; default `"auto"`. */
  protocol?: MCPProtocolChoice;
  /** Not used by remote servers. */
  command?: never;
  /** Not used by remote servers. */
  args?: never;
  /** Not used by remote servers. */
  env?: never;
  /** Not used by remote servers. */
  inheritEnv?: never;
  /** Not used by remote servers. */
  cwd?: never;
}

/**
 * How to reach one MCP server (the spec's `MCPServerConfig`): a union on
 * `transport`, so `{ transport: "sse" }` without a `url`, or a stdio server
 * without a `command`, does not type-check.
 */
export type MCPServerConfig = StdioServerConfig | RemoteServerConfig;

const TRANSPORTS: readonly MCPTransportKind[] = [
  "stdio",
  "sse",
  "streamable-http",
];
/** The fields only a stdio server takes. */
export const STDIO_FIELDS = [
  "command",
  "args",
  "env",
  "inheritEnv",
  "cwd",
] as const;
/** The fields only a remote server takes. */
export const REMOTE_FIELDS = ["url", "headers", "fallback"] as const;
/** The fields every server takes besides its name and transport. */
export const COMMON_FIELDS = ["protocol"] as const;
const FIELDS: ReadonlySet<string> = new Set([
  "name",
  "transport",
  ...COMMON_FIELDS,
  ...STDIO_FIELDS,
  ...REMOTE_FIELDS,
]);
/** An `inheritEnv` entry: a variable name, or a prefix and `*`. */
export const INHERITED_NAME = /^[A-Za-z_][A-Za-z0-9_()]*\*?$/;
/** A control character: refused in paths and arguments (see {@linkcode controlCharacterProblem}). */
// deno-lint-ignore no-control-regex
export const CONTROL = /[\x00-\x1f\x7f]/;
const CONTROL_NAMES: Record<string, string> = {
  "\t": "a tab (\\t)",
  "\n": "a line break (\\n)",
  "\r": "a carriage return (\\r)",
  "\b": "a backspace (\\b)",
  "\f": "a form feed (\\f)",
};

/**
 * Why a path or argument holds a control character, or `undefined`: in a
 * JSON config `"C:\tools\new.exe"` reads `\t` and `\n` as a tab and a
 * line break, and Windows would look for a file of that name.
 *
 * @param value The field's value.
 * @returns The problem's detail.
 */
export function controlCharacterProblem(value: string): string | undefined {
  const found = CONTROL.exec(value)?.[0];
  if (found === undefined) return undefined;
  const name = CONTROL_NAMES[found] ??
    `the control character U+${
      found.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")
    }`;
  return `contains ${name}: a backslash in a quoted string starts an escape; write \`\\\\\` or \`/\` for each backslash of a path (e.g. "C:\\\\tools\\\\server.exe" or "C:/tools/server.exe")`;
}

/**
 * The one check of a server config: every problem, each with its path
 * inside the config and what to write instead. Messages never include env
 * or header values. `validateServerConfig()` (and through it the adapter)
 * and the config-file loader both use it.
 *
 * @param config The candidate configuration.
 * @returns The problems, each with its path inside the config; none when
 * the config is valid.
 */
export function serverConfigProblems(
  config: unknown,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const report = (at: Path, detail: string, kind?: "unknown") =>
    problems.push(new ConfigProblem(at, detail, kind ? { kind } : {}));
  if (!isRecord(config)) {
    report(
      [],
      `expected an object like { name: "files", transport: "stdio", command: "mcp-files" }, got ${
        kindOf(config)
      }`,
    );
    return problems;
  }
  for (const key of Object.keys(config)) {
    if (!FIELDS.has(key)) {
      report(
        [key],
        `is an unknown field; allowed fields are ${[...FIELDS].join(", ")}`,
        "unknown",
      );
    }
  }
  const { name, transport } = config;
  if (typeof name !== "string" || name.trim() === "") {
    report(
      ["name"],
      `expected a non-empty string such as "github", got ${valueOrKind(name)}`,
    );
  }
  if (!TRANSPORTS.includes(transport as MCPTransportKind)) {
    report(
      ["transport"],
      `expected "stdio", "sse" or "streamable-http", got ${
        valueOrKind(transport)
      }`,
    );
    return problems;
  }
  const protocol = config.protocol;
  if (
    protocol !== undefined && !PROTOCOL_CHOICES.includes(protocol as string)
  ) {
    report(
      ["protocol"],
      `expected one of ${
        PROTOCOL_CHOICES.map((choice) => JSON.stringify(choice)).join(", ")
      }, got ${
        valueOrKind(protocol)
      }; "auto" (the default) finds the server's era by itself`,
    );
  }
  const stdio = transport === "stdio";
  for (const field of stdio ? REMOTE_FIELDS : STDIO_FIELDS) {
    if (config[field] !== undefined) {
      report(
        [field],
        `is not used by the "${transport}" transport; remove it, or set transport to ${
          stdio ? '"streamable-http" or "sse"' : '"stdio"'
        }`,
      );
    }
  }
  if (stdio) {
    const command = config.command;
    if (command === undefined) {
      report(
        ["command"],
        'stdio transport needs "command", the program that starts the server; write e.g. command: "npx"',
      );
    } else if (typeof command !== "string" || command.trim() === "") {
      report(
        ["command"],
        `expected the program that starts the server, such as "npx", got ${
          valueOrKind(command)
        }`,
      );
    } else {
      const problem = controlCharacterProblem(command);
      if (problem !== undefined) report(["command"], problem);
    }
    checkStrings(config.args, ["args"], report);
    if (Array.isArray(config.args)) {
      config.args.forEach((arg, index) => {
        const problem = typeof arg === "string"
          ? controlCharacterProblem(arg)
          : undefined;
        if (problem !== undefined) report(["args", index], problem);
      });
    }
    checkStringMap(config.env, ["env"], report);
    checkStrings(
      config.inheritEnv,
      ["inheritEnv"],
      report,
      '["DATABASE_URL", "AWS_*"]',
    );
    if (Array.isArray(config.inheritEnv)) {
      config.inheritEnv.forEach((name, index) => {
        if (typeof name === "string" && !INHERITED_NAME.test(name)) {
          report(
            ["inheritEnv", index],
            `expected a variable name ("DATABASE_URL") or a prefix and * ("AWS_*"), got ${
              valueOrKind(name)
            }${
              name === "*"
                ? "; the server never inherits everything: name what it needs"
                : ""
            }`,
          );
        }
      });
    }
    if (config.cwd !== undefined && typeof config.cwd !== "string") {
      report(
        ["cwd"],
        `expected a directory path string, got ${kindOf(config.cwd)}`,
      );
    } else if (typeof config.cwd === "string") {
      const problem = controlCharacterProblem(config.cwd);
      if (problem !== undefined) report(["cwd"], problem);
    }
  } else {
    if (config.url === undefined) {
      report(
        ["url"],
        `${transport} transport needs "url"; write e.g. url: "https://example.com/mcp"`,
      );
    } else if (
      typeof config.url !== "string" || httpUrl(config.url) === undefined
    ) {
      report(
        ["url"],
        'expected an http(s) URL; write e.g. "https://example.com/mcp"',
      );
    }
    checkStringMap(config.headers, ["headers"], report, true);
    const fallback = config.fallback;
    if (fallback !== undefined && typeof fallback !== "boolean") {
      report(
        ["fallback"],
        `expected true or false, got ${valueOrKind(fallback)}`,
      );
    } else if (fallback !== undefined && transport === "sse") {
      report(
        ["fallback"],
        'is only used by "streamable-http"; remove it',
      );
    }
  }
  return problems;
}

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
 * @throws {MCPConfigError} When a field is missing or malformed (the first
 * problem; `field` is its path, e.g. `"args[1]"`).
 */
export function validateServerConfig(config: unknown): MCPServerConfig {
  const [problem] = serverConfigProblems(config);
  if (problem !== undefined) {
    const path = formatPath(problem.path);
    const name = isRecord(config) && typeof config.name === "string"
      ? `MCP server ${JSON.stringify(config.name)}`
      : "MCP server config";
    throw new MCPConfigError(
      path || "config",
      `${name}: ${path === "" ? "" : `${path}: `}${problem.detail}`,
    );
  }
  return config as unknown as MCPServerConfig;
}

function checkStrings(
  value: unknown,
  path: Path,
  report: (path: Path, detail: string) => void,
  example = '["-y", "@modelcontextprotocol/server-filesystem", "."]',
): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    report(
      path,
      `expected a list of strings, got ${kindOf(value)}; write e.g. ${example}`,
    );
    return;
  }
  value.forEach((item, index) => {
    if (typeof item !== "string") {
      report(
        [...path, index],
        `expected a string, got ${kindOf(item)}; put it in quotes`,
      );
    }
  });
}

/** Values are never shown: env and headers carry secrets. */
function checkStringMap(
  value: unknown,
  path: Path,
  report: (path: Path, detail: string) => void,
  headers = false,
): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    report(
      path,
      `expected an object of strings, got ${kindOf(value)}; write e.g. ${
        headers
          ? '{ Authorization: "Bearer ${TOKEN}" }'
          : '{ GITHUB_TOKEN: "${GITHUB_TOKEN}" }'
      }`,
    );
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (headers && !isHeaderName(key)) {
      report(
        [...path, key],
        "is not a valid HTTP header name; use letters, digits and dashes",
      );
    } else if (typeof item !== "string") {
      report(
        [...path, key],
        `expected a string, got ${kindOf(item)}; put it in quotes`,
      );
    } else if (headers && !isHeaderValue(item)) {
      report(
        [...path, key],
        "must not contain line breaks or NUL characters",
      );
    }
  }
}

/** A short, safe rendering of a non-secret value for error messages. */
function valueOrKind(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ||
      typeof value === "boolean" || value == null
    ? describeValue(value)
    : kindOf(value);
}
