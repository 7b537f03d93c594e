/**
 * Internal: stage 2 of loading a config, drafts. The servers of the parsed
 * document as written, before their values are interpolated and checked —
 * one shape for this library's `{ servers: [...] }` list and for the
 * `mcpServers` / VS Code `servers` objects — with the fields each one's
 * format interpolates and the inputs it uses, which of them can be read
 * further, and the checks that span servers (unique names and namespaces).
 *
 * @module
 */

import {
  COMMON_FIELDS,
  type MCPServerConfig,
  REMOTE_FIELDS,
  STDIO_FIELDS,
} from "../server_config.ts";
import { ConfigProblem, formatPath, type Path } from "../util/problem.ts";
import { isRecord, kindOf } from "../util/values.ts";
import { editDistance } from "../util/closest.ts";
import { firstReference, inputReferences } from "./_interpolate.ts";
import type { ParsedConfig } from "./_parse.ts";

/** The fields whose strings may hold `${…}` references. */
export const INTERPOLATED: readonly string[] = [
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
];

/** The servers of a config, as the later stages read them. */
export interface Servers {
  /** Every entry that could be read as a server, in file order. */
  all: Draft[];
  /** The servers whose values are interpolated and checked. */
  readable: Draft[];
  /** Paths the schema found fault with, formatted: not reported twice. */
  faulty: ReadonlySet<string>;
  /** Repeated names and namespaces: reported after each server's own problems. */
  duplicates: ConfigProblem[];
}

/**
 * Lists the servers of a parsed config; the problems of entries that cannot
 * be read as servers go to `parsed.problems`.
 *
 * @param parsed The parsed config.
 * @returns The servers.
 */
export function draftsOf(parsed: ParsedConfig): Servers {
  const { problems } = parsed;
  const all = listed(parsed.root, problems);
  const faulty = new Set(problems.map((problem) => formatPath(problem.path)));
  // A server the schema found fault with as a whole, or in its name or
  // transport, is not read further; the others' values are interpolated and
  // checked, so one run reports every problem.
  const readable = all.filter((draft) =>
    ![[], ["name"], ["transport"], ["type"]].some((field) =>
      faulty.has(formatPath([...draft.path, ...field]))
    )
  );
  return { all, readable, faulty, duplicates: uniquenessProblems(all) };
}

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
  /** The fields of the server config its format reads, in that order. */
  fields: readonly string[];
  /** The ids of the inputs its fields use, in order, repeats included. */
  inputs: readonly string[];
}

/** A draft before the fields its format reads are known. */
type Written = Omit<Draft, "fields" | "inputs">;

/** A written server with the fields its format reads and the inputs they use. */
function completed(written: Written): Draft {
  // Our format: every field written is checked (one of the other transport
  // is a mistake); the other formats: the transport's fields, the rest is
  // ignored, as their own clients do.
  const fields = written.ours
    ? [...COMMON_FIELDS, ...STDIO_FIELDS, ...REMOTE_FIELDS]
    : written.transport === "stdio"
    ? [...COMMON_FIELDS, ...STDIO_FIELDS]
    : [...COMMON_FIELDS, ...REMOTE_FIELDS];
  const { raw } = written;
  const inputs = [
    ...[...fields, "envFile"].flatMap((field) =>
      INTERPOLATED.includes(field) || field === "envFile"
        ? inputReferences(raw[field])
        : []
    ),
    ...(written.ours ? inputReferences(raw.auth) : []),
  ];
  return { ...written, fields, inputs };
}

/**
 * The entries of a document whose root the schema has accepted as a
 * `servers` list or a `servers` / `mcpServers` object.
 *
 * @param root The document's root object.
 * @param problems Receives the problems of servers that cannot be read
 * (they are left out).
 * @returns The servers, in file order.
 */
function listed(
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
      return [completed({
        path,
        raw,
        name,
        namespace: explicit ? raw.namespace as string : name,
        namespacePath: ["servers", index, explicit ? "namespace" : "name"],
        transport: raw.transport as MCPServerConfig["transport"],
        ours: true,
        enabled: raw.enabled !== false,
      })];
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
    misspelt(raw, path, problems);
    return [completed({
      path,
      raw,
      name,
      namespace: name,
      namespacePath: path,
      transport,
      ours: false,
      enabled: raw.disabled !== true && raw.enabled !== false,
    })];
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

/** The keys of an `mcpServers` / VS Code entry this library reads. */
const NAMED_SERVER_KEYS = [
  "type",
  ...COMMON_FIELDS,
  ...STDIO_FIELDS,
  "envFile",
  ...REMOTE_FIELDS,
  "disabled",
  "enabled",
];

/**
 * Reports the keys of an `mcpServers` / VS Code entry that are a near miss
 * of one this library reads (`agrs`, `evn`, `comand`): left alone, the
 * server would start without them. Other unknown keys stay tolerated, as
 * the editors' own files carry their own (`alwaysAllow`, `dev`). A near
 * miss: the same letters in another order, the same name in another case,
 * or one edit away (two, for names of five letters or more).
 */
function misspelt(
  raw: Record<string, unknown>,
  path: Path,
  problems: ConfigProblem[],
): void {
  const sorted = (name: string) => [...name.toLowerCase()].sort().join("");
  for (const key of Object.keys(raw)) {
    if (NAMED_SERVER_KEYS.includes(key)) continue;
    const near = NAMED_SERVER_KEYS.find((known) =>
      sorted(known) === sorted(key) ||
      editDistance(key.toLowerCase(), known.toLowerCase(), 3) <=
        (key.length >= 5 ? 2 : 1)
    );
    if (near === undefined) continue;
    problems.push(
      new ConfigProblem(
        [...path, key],
        `unknown field (did you mean "${near}"?); it would be ignored, and the server started without it`,
        { kind: "unknown", field: near },
      ),
    );
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
 * Every repeated server name and namespace, each naming the first server
 * that has it.
 *
 * @param drafts The servers, in file order.
 * @returns The problems.
 */
function uniquenessProblems(drafts: readonly Draft[]): ConfigProblem[] {
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
