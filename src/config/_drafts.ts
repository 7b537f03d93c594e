/**
 * Internal: the servers of a config file as written, before their values
 * are interpolated and checked — one shape for this library's
 * `{ servers: [...] }` list and for the `mcpServers` / VS Code `servers`
 * objects — and the checks that span servers (unique names and namespaces).
 *
 * @module
 */

import type { MCPServerConfig } from "../server_config.ts";
import { ConfigProblem, formatPath, type Path } from "../_util/problem.ts";
import { isRecord, kindOf } from "../_util/values.ts";
import { firstReference } from "./_interpolate.ts";

/** A server as read from the file, before validation of its config. */
export interface Draft {
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
 * The servers of a document whose root the schema has accepted as a
 * `servers` list or a `servers` / `mcpServers` object.
 *
 * @param root The document's root object.
 * @param problems Receives the problems of servers that cannot be read
 * (they are left out).
 * @returns The servers, in file order.
 */
export function draftsOf(
  root: Record<string, unknown>,
  problems: ConfigProblem[],
): Draft[] {
  if (Array.isArray(root.servers)) {
    return root.servers.flatMap((raw: unknown, index): Draft[] => {
      const path = ["servers", index];
      if (!entryIsObject(raw, path, problems)) return [];
      const name = raw.name as string;
      const explicit = typeof raw.namespace === "string";
      unreplaced(raw, path, true, problems);
      return [{
        path,
        raw,
        name,
        namespace: explicit ? raw.namespace as string : name,
        namespacePath: ["servers", index, explicit ? "namespace" : "name"],
        transport: raw.transport as MCPServerConfig["transport"],
        ours: true,
        enabled: raw.enabled !== false,
      }];
    });
  }
  const key = Object.hasOwn(root, "mcpServers") ? "mcpServers" : "servers";
  const servers = root[key] as Record<string, unknown>;
  return Object.entries(servers).flatMap(([name, raw]): Draft[] => {
    const path = [key, name];
    if (!entryIsObject(raw, path, problems)) return [];
    let transport: MCPServerConfig["transport"];
    try {
      transport = transportOf(raw, path);
    } catch (error) {
      if (!(error instanceof ConfigProblem)) throw error;
      problems.push(error);
      return [];
    }
    unreplaced(raw, path, false, problems);
    return [{
      path,
      raw,
      name,
      namespace: name,
      namespacePath: path,
      transport,
      ours: false,
      enabled: raw.disabled !== true && raw.enabled !== false,
    }];
  });
}

/**
 * Whether a server entry is an object; when it is not (`null`, an empty
 * YAML list item, a number), it is a problem of its own, reported once:
 * the schema has usually reported it already.
 */
function entryIsObject(
  raw: unknown,
  path: Path,
  problems: ConfigProblem[],
): raw is Record<string, unknown> {
  if (isRecord(raw)) return true;
  const at = formatPath(path);
  if (!problems.some((problem) => formatPath(problem.path) === at)) {
    problems.push(
      new ConfigProblem(
        path,
        `expected a server (an object), got ${kindOf(raw)}; write e.g. ${
          path[0] === "servers" && typeof path[1] === "number"
            ? '{ name: "files", transport: "stdio", command: "mcp-files" }'
            : '{ "command": "mcp-files" }'
        } or remove the entry`,
      ),
    );
  }
  return false;
}

/**
 * Reports a `${…}` in a field that is used as written (a name, a namespace,
 * tool patterns): it would otherwise be taken literally and go unnoticed.
 */
function unreplaced(
  raw: Record<string, unknown>,
  path: Path,
  ours: boolean,
  problems: ConfigProblem[],
): void {
  const check = (value: unknown, at: Path, what: string) => {
    const reference = typeof value === "string"
      ? firstReference(value)
      : undefined;
    if (reference === undefined) return;
    problems.push(
      new ConfigProblem(
        at,
        `uses ${reference}, but variables are not replaced in ${what}; write the value itself`,
        { continuesPath: true },
      ),
    );
  };
  if (!ours) {
    check(path.at(-1), path, "a server's name");
    return;
  }
  check(raw.name, [...path, "name"], "a server's name");
  check(raw.namespace, [...path, "namespace"], "a namespace");
  if (isRecord(raw.filter)) {
    for (const key of ["include", "exclude"] as const) {
      const patterns = raw.filter[key];
      if (!Array.isArray(patterns)) continue;
      patterns.forEach((pattern, index) =>
        check(pattern, [...path, "filter", key, index], "tool patterns")
      );
    }
  }
  if (isRecord(raw.overrides)) {
    for (const pattern of Object.keys(raw.overrides)) {
      check(pattern, [...path, "overrides", pattern], "tool patterns");
    }
  }
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

/**
 * Whether `path` is `parent` or lies under it.
 *
 * @param path A path.
 * @param parent Another.
 */
export function within(path: Path, parent: Path): boolean {
  return parent.every((segment, index) => path[index] === segment);
}

/**
 * Every repeated server name and namespace, each naming the first server
 * that has it.
 *
 * @param drafts The servers, in file order.
 * @returns The problems.
 */
export function uniquenessProblems(drafts: readonly Draft[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = new Map<string, Draft>();
  const namespaces = new Map<string, Draft>();
  for (const draft of drafts) {
    if (typeof draft.name === "string") {
      const named = names.get(draft.name);
      if (named !== undefined) {
        problems.push(
          new ConfigProblem(
            [...draft.path, "name"],
            `"${draft.name}" is also the name of ${
              formatPath(named.path)
            }; give each server its own name`,
          ),
        );
        continue;
      }
      names.set(draft.name, draft);
    }
    if (typeof draft.namespace !== "string") continue;
    const other = namespaces.get(draft.namespace);
    if (other !== undefined) {
      problems.push(
        new ConfigProblem(
          draft.namespacePath,
          `namespace "${draft.namespace}" is also used by ${
            formatPath(other.path)
          }; give each server its own namespace (it defaults to the name)`,
        ),
      );
      continue;
    }
    namespaces.set(draft.namespace, draft);
  }
  return problems;
}
