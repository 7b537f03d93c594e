/**
 * A registry of tools named `{namespace}/{tool}`, each carrying its
 * provenance. The adapter registers a server's tools under one namespace and
 * replaces them all when the server's tool list changes.
 *
 * @module
 */

import { describeValue } from "../util/values.ts";
import { toolAlias } from "./alias.ts";
import { MCPConfigError } from "../errors.ts";
import type {
  InvokeOptions,
  JsonSchema,
  MCPToolResult,
  MCPToolUi,
  ToolAnnotations,
  ToolCapability,
  ToolExecution,
} from "../types.ts";

/**
 * A tool in a {@linkcode ToolRegistry}, as registered by an MCP adapter.
 *
 * @example
 * ```ts
 * import type { RegisteredTool } from "@cleveragents/mcp-adapter";
 *
 * const tool: RegisteredTool = {
 *   name: "everything/echo",
 *   description: "Echoes its input",
 *   inputSchema: { type: "object", properties: { message: { type: "string" } } },
 *   capability: { readOnly: false, writes: false },
 *   checkpointable: false,
 *   source: "mcp",
 *   sourceMetadata: { server: "everything" },
 *   invoke: (args) =>
 *     Promise.resolve({ success: true, data: { ...args }, error: null, durationMs: 0 }),
 * };
 * ```
 */
export interface RegisteredTool {
  /** `{namespace}/{tool}`: the namespace, a `/`, then the server's tool name. */
  name: string;
  /** Human-readable description; `""` when the server sent none. */
  description: string;
  /**
   * Display title: the server's `title`, else its `annotations.title`;
   * absent when it sent neither.
   */
  title?: string;
  /** JSON Schema for the tool's arguments. */
  inputSchema: JsonSchema;
  /**
   * How the tool runs, as the server declared it; `taskSupport: "required"`
   * tools are called as tasks (see `InvokeOptions.task`).
   */
  execution?: ToolExecution;
  /**
   * The server's behaviour hints, as sent: hints, not guarantees (a server
   * may say anything about its own tools).
   */
  annotations?: ToolAnnotations;
  /**
   * MCP Apps metadata: the tool's `ui://` resource and its `visibility`. A
   * tool whose visibility lacks `"model"` is never handed to a model.
   */
  ui?: MCPToolUi;
  /** What the tool may do to the world (see `resolveCapability`). */
  capability: ToolCapability;
  /**
   * The tool's fingerprint as listed (`MCPToolDescriptor.fingerprint`):
   * changes whenever its name, title, description, schemas or annotations do.
   */
  fingerprint?: string;
  /** Always `false`: a call to an external server cannot be rolled back. */
  checkpointable: false;
  /** Always `"mcp"`: the tool comes from an MCP server. */
  source: "mcp";
  /** Provenance: the name of the server that provides the tool. */
  sourceMetadata: { server: string };
  /**
   * Calls the tool with the adapter's `invoke()` options (deadlines, signal,
   * progress). Resolves with a result envelope; failures are reported in it
   * rather than thrown, except a missing connection.
   */
  invoke(
    args?: Record<string, unknown>,
    options?: InvokeOptions,
  ): Promise<MCPToolResult>;
}

/**
 * Tools keyed by their `{namespace}/{tool}` name, listed in registration
 * order. Each tool also gets an alias for model APIs that only accept
 * `^[a-zA-Z0-9_-]{1,64}$` (see {@linkcode toolAlias}); {@linkcode ToolRegistry.resolve}
 * takes either.
 *
 * @example Register, look up, replace a namespace
 * ```ts
 * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
 *
 * function tool(name: string): RegisteredTool {
 *   return {
 *     name,
 *     description: "",
 *     inputSchema: { type: "object" },
 *     capability: { readOnly: true, writes: false },
 *     checkpointable: false,
 *     source: "mcp",
 *     sourceMetadata: { server: "git" },
 *     invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
 *   };
 * }
 *
 * const registry = new ToolRegistry();
 * registry.register(tool("git/status"));
 * registry.register(tool("github/get_issue"));
 * registry.replaceNamespace("git", [tool("git/log")]);
 * console.log(registry.list().map((entry) => entry.name)); // ["github/get_issue", "git/log"]
 * ```
 */
export class ToolRegistry {
  #tools = new Map<string, RegisteredTool>();
  /** alias → name, for every registered tool. */
  #aliases = new Map<string, string>();

  /**
   * The number of registered tools.
   *
   * @returns How many tools are registered.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * console.log(new ToolRegistry().size); // 0
   * ```
   */
  get size(): number {
    return this.#tools.size;
  }

  /**
   * Registers a tool. A tool with the same name is replaced and keeps its
   * place in {@linkcode ToolRegistry.list}.
   *
   * @param tool The tool; its `name` must be `{namespace}/{tool}`.
   * @throws {MCPConfigError} If `tool` is not an object with a `name` made of
   * a non-empty namespace, `/` and a non-empty tool name (`field` is
   * `"name"`), has no `invoke` function (`field` is `"invoke"`), or its alias
   * is taken by another registered tool (`field` is `"name"`; only for names
   * crafted to collide on the alias hash).
   *
   * @example
   * ```ts
   * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * const echo: RegisteredTool = {
   *   name: "everything/echo",
   *   description: "Echoes its input",
   *   inputSchema: { type: "object" },
   *   capability: { readOnly: false, writes: false },
   *   checkpointable: false,
   *   source: "mcp",
   *   sourceMetadata: { server: "everything" },
   *   invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
   * };
   * const registry = new ToolRegistry();
   * registry.register(echo);
   * console.log(registry.has("everything/echo")); // true
   * ```
   */
  register(tool: RegisteredTool): void {
    checkTool(tool);
    const alias = toolAlias(tool.name);
    this.#checkAlias(tool.name, alias, () => false);
    this.#tools.set(tool.name, tool);
    this.#aliases.set(alias, tool.name);
  }

  /**
   * Removes a tool.
   *
   * @param name The tool's `{namespace}/{tool}` name.
   * @returns `true` if a tool was removed, `false` if none had that name.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * const registry = new ToolRegistry();
   * console.log(registry.unregister("everything/echo")); // false
   * ```
   */
  unregister(name: string): boolean {
    if (!this.#tools.delete(name)) return false;
    this.#aliases.delete(toolAlias(name));
    return true;
  }

  /**
   * Looks a tool up by name.
   *
   * @param name The tool's `{namespace}/{tool}` name.
   * @returns The tool, or `undefined` if none has that name.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * const registry = new ToolRegistry();
   * const echo = registry.get("everything/echo");
   * if (echo) await echo.invoke({ message: "hi" });
   * ```
   */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /**
   * Checks whether a tool is registered.
   *
   * @param name The tool's `{namespace}/{tool}` name.
   * @returns `true` if a tool has that name.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * console.log(new ToolRegistry().has("everything/echo")); // false
   * ```
   */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * Looks a tool up by its name or its alias: what a model API sends back as
   * the function name resolves to the tool.
   *
   * @param nameOrAlias A `{namespace}/{tool}` name, or an alias as returned
   * by {@linkcode ToolRegistry.aliasOf}.
   * @returns The tool, or `undefined` if neither a name nor an alias matches.
   *
   * @example
   * ```ts
   * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * const registry = new ToolRegistry();
   * registry.register({
   *   name: "github/get_issue",
   *   description: "",
   *   inputSchema: { type: "object" },
   *   capability: { readOnly: true, writes: false },
   *   checkpointable: false,
   *   source: "mcp",
   *   sourceMetadata: { server: "github" },
   *   invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
   * } satisfies RegisteredTool);
   * console.log(registry.resolve("github__get_issue")?.name); // "github/get_issue"
   * console.log(registry.resolve("github/get_issue")?.name); // "github/get_issue"
   * ```
   */
  resolve(nameOrAlias: string): RegisteredTool | undefined {
    const tool = this.#tools.get(nameOrAlias);
    if (tool) return tool;
    const name = this.#aliases.get(nameOrAlias);
    return name === undefined ? undefined : this.#tools.get(name);
  }

  /**
   * The alias of a registered tool: its name in the alphabet of model APIs,
   * `^[a-zA-Z0-9_-]{1,64}$` (see {@linkcode toolAlias}).
   *
   * @param name The tool's `{namespace}/{tool}` name.
   * @returns The alias, or `undefined` if no tool has that name.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * const registry = new ToolRegistry();
   * console.log(registry.aliasOf("github/get_issue")); // undefined: not registered
   * ```
   */
  aliasOf(name: string): string | undefined {
    return this.#tools.has(name) ? toolAlias(name) : undefined;
  }

  /**
   * Lists every registered tool.
   *
   * @returns A new array of the tools, in registration order.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * for (const tool of new ToolRegistry().list()) console.log(tool.name);
   * ```
   */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  /**
   * Lists the tools of one namespace: those whose name starts with
   * `${namespace}/`. Namespace `git` does not include `github/…`.
   *
   * @param namespace The namespace, without the trailing `/`.
   * @returns A new array of the namespace's tools, in registration order.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * const registry = new ToolRegistry();
   * console.log(registry.listNamespace("git").length); // 0
   * ```
   */
  listNamespace(namespace: string): RegisteredTool[] {
    const prefix = `${namespace}/`;
    const tools: RegisteredTool[] = [];
    for (const [name, tool] of this.#tools) {
      if (name.startsWith(prefix)) tools.push(tool);
    }
    return tools;
  }

  /**
   * Replaces every tool of a namespace with `tools`: removes each entry whose
   * name starts with `${namespace}/` (namespace `git` leaves `github/…`
   * alone), then registers `tools` in order. Checks every tool first, so an
   * invalid list changes nothing.
   *
   * @param namespace The namespace, without the trailing `/`.
   * @param tools The namespace's new tools; each name must start with
   * `${namespace}/`.
   * @throws {MCPConfigError} If `namespace` is empty or contains `/`, or a
   * tool's name is not in the namespace (`field` is `"namespace"`), or a tool
   * is invalid or its alias is taken (see {@linkcode ToolRegistry.register}).
   *
   * @example After the server's tool list changed
   * ```ts
   * import { type RegisteredTool, ToolRegistry } from "@cleveragents/mcp-adapter";
   *
   * function tool(name: string): RegisteredTool {
   *   return {
   *     name,
   *     description: "",
   *     inputSchema: { type: "object" },
   *     capability: { readOnly: false, writes: false },
   *     checkpointable: false,
   *     source: "mcp",
   *     sourceMetadata: { server: "everything" },
   *     invoke: () => Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
   *   };
   * }
   *
   * const registry = new ToolRegistry();
   * registry.register(tool("everything/echo"));
   * registry.register(tool("everything/old_tool"));
   * registry.replaceNamespace("everything", [tool("everything/echo"), tool("everything/get_sum")]);
   * console.log(registry.listNamespace("everything").map((entry) => entry.name));
   * // ["everything/echo", "everything/get_sum"]
   * ```
   */
  replaceNamespace(namespace: string, tools: readonly RegisteredTool[]): void {
    const problem = namespaceProblem(namespace);
    if (problem !== undefined) {
      throw new MCPConfigError(
        "namespace",
        `Namespace ${problem}; use the server's name, e.g. "github"`,
      );
    }
    const prefix = `${namespace}/`;
    const incoming = new Map<string, string>(); // alias → name
    for (const tool of tools) {
      checkTool(tool);
      if (!tool.name.startsWith(prefix)) {
        throw new MCPConfigError(
          "namespace",
          `Tool ${describeValue(tool.name)} is not in namespace ${
            describeValue(namespace)
          }; name it ${describeValue(prefix + toolPart(tool.name))}`,
        );
      }
      const alias = toolAlias(tool.name);
      const other = incoming.get(alias);
      if (other !== undefined && other !== tool.name) {
        throw aliasTaken(tool.name, alias, other);
      }
      incoming.set(alias, tool.name);
      // Entries of this namespace are about to go, so they do not conflict.
      this.#checkAlias(tool.name, alias, (name) => name.startsWith(prefix));
    }
    for (const name of this.#tools.keys()) {
      if (name.startsWith(prefix)) {
        this.#tools.delete(name);
        this.#aliases.delete(toolAlias(name));
      }
    }
    for (const tool of tools) this.#tools.set(tool.name, tool);
    for (const [alias, name] of incoming) this.#aliases.set(alias, name);
  }

  /** Throws when `alias` belongs to another registered tool that `leaving` does not remove. */
  #checkAlias(
    name: string,
    alias: string,
    leaving: (name: string) => boolean,
  ): void {
    const other = this.#aliases.get(alias);
    if (other !== undefined && other !== name && !leaving(other)) {
      throw aliasTaken(name, alias, other);
    }
  }
}

function aliasTaken(
  name: string,
  alias: string,
  other: string,
): MCPConfigError {
  return new MCPConfigError(
    "name",
    `Tool ${describeValue(name)} would have the alias ${
      describeValue(alias)
    }, which tool ${
      describeValue(other)
    } already has; rename one of them or register it under another namespace`,
  );
}

function checkTool(tool: RegisteredTool): void {
  if (typeof tool !== "object" || tool === null) {
    throw new MCPConfigError(
      "name",
      `A registered tool must be an object with a "{namespace}/{tool}" name, got ${
        describeValue(tool)
      }`,
    );
  }
  const name: unknown = tool.name;
  const slash = typeof name === "string" ? name.indexOf("/") : -1;
  if (typeof name !== "string" || slash <= 0 || slash === name.length - 1) {
    throw new MCPConfigError(
      "name",
      `Tool name must be "{namespace}/{tool}" with both parts non-empty, got ${
        describeValue(name)
      }; prefix the server's tool name with a namespace, e.g. "github/get_issue"`,
    );
  }
  if (typeof tool.invoke !== "function") {
    throw new MCPConfigError(
      "invoke",
      `Tool ${describeValue(name)} has no invoke function, got ${
        describeValue(tool.invoke)
      }`,
    );
  }
}

// The server's tool name: the part after the first "/", or the whole name.
function toolPart(name: string): string {
  return name.slice(name.indexOf("/") + 1);
}

/**
 * The namespace rule, in one place: a non-empty string without "/".
 * Returns what is wrong (`"must be …, got …"`), or `undefined`.
 */
export function namespaceProblem(namespace: unknown): string | undefined {
  return typeof namespace === "string" && namespace !== "" &&
      !namespace.includes("/")
    ? undefined
    : `must be a non-empty string without "/", got ${describeValue(namespace)}`;
}
