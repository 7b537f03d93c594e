/**
 * Internal: stage 5 of loading a config, entries. Each readable server's
 * fields interpolated, its `envFile` merged under its `env`, its config
 * checked (`serverConfigProblems`, the one check of a server config) and
 * its auth read, into a {@linkcode ServerEntry}; then every problem the
 * stages found is thrown at once, or the entries are returned.
 *
 * @module
 */

import type { LoadedConfig, ServerEntry } from "./types.ts";
import {
  type MCPServerConfig,
  serverConfigProblems,
} from "../server_config.ts";
import type { MCPToolFilter } from "../types.ts";
import { fileError, overridesOf } from "./_document.ts";
import { interpolateValue } from "./_interpolate.ts";
import { type Draft, INTERPOLATED, type Servers } from "./_drafts.ts";
import type { ConfigVariables } from "./_variables.ts";
import type { EnvFiles } from "./_env_files.ts";
import type { ParsedConfig } from "./_parse.ts";
import {
  ConfigProblem,
  formatPath,
  type Path,
  within,
} from "../util/problem.ts";
import { declareSecrets } from "../util/redact.ts";
import { type ReadAuth, readAuth } from "./_auth.ts";
import { isRecord, setOwn } from "../util/values.ts";

/**
 * Builds the entries of the readable servers.
 *
 * @param parsed The parsed config, with every problem the stages found.
 * @param servers Its servers.
 * @param vars What their fields are interpolated with.
 * @param envFiles The variables of each server's `envFile`.
 * @returns The entries, in file order, and the source.
 * @throws {MCPConfigFileError} With every problem found, when there is one.
 */
export function entriesOf(
  parsed: ParsedConfig,
  servers: Servers,
  vars: ConfigVariables,
  envFiles: EnvFiles,
): LoadedConfig {
  const { problems } = parsed;
  const entries: ServerEntry[] = [];
  for (const draft of servers.readable) {
    const entry = entryOf(draft, vars, envFiles.get(draft), {
      problems,
      faulty: servers.faulty,
    });
    if (entry !== undefined) entries.push(entry);
  }
  problems.push(...servers.duplicates);
  if (problems.length > 0) {
    throw fileError(parsed.file, problems, parsed.document);
  }
  return { servers: entries, source: parsed.file };
}

/** The problems so far, and the paths the schema found fault with. */
interface Found {
  problems: ConfigProblem[];
  faulty: ReadonlySet<string>;
}

function entryOf(
  draft: Draft,
  vars: ConfigVariables,
  envFile: Record<string, string> | undefined,
  found: Found,
): ServerEntry | undefined {
  const { raw, path, transport } = draft;
  const local: ConfigProblem[] = [];
  const failed: Path[] = [];
  const candidate: Record<string, unknown> = { name: draft.name, transport };
  for (const field of draft.fields) {
    const value = raw[field];
    if (value === undefined) continue;
    if (INTERPOLATED.includes(field)) {
      const before = local.length;
      candidate[field] = interpolateValue(value, vars, [...path, field], local);
      if (local.length > before) failed.push([field]);
    } else {
      candidate[field] = value;
    }
  }
  if (raw.envFile !== undefined && draft.ours && transport !== "stdio") {
    local.push(
      new ConfigProblem(
        [...path, "envFile"],
        `is not used by the "${transport}" transport; remove it, or set transport to "stdio"`,
      ),
    );
  }
  if (envFile !== undefined) {
    const env = candidate.env;
    // An explicit env wins over the file's; a malformed env is reported below.
    if (env === undefined || isRecord(env)) {
      candidate.env = mergeEnv(envFile, env);
    }
  }
  for (const problem of serverConfigProblems(candidate)) {
    // A field whose interpolation failed is reported once, for that; a
    // field the schema found fault with, or that is missing because it is
    // misspelt (an unknown field that looks like it), is reported there.
    if (failed.some((field) => within(problem.path, field))) continue;
    const at = [...path, ...fileField(problem.path, draft)];
    if (
      found.faulty.has(formatPath(at)) ||
      misspelt(problem.path, draft, found.problems)
    ) {
      continue;
    }
    local.push(new ConfigProblem(at, problem.detail));
  }
  let auth: ReadAuth | undefined;
  if (raw.auth !== undefined && transport === "stdio") {
    local.push(
      new ConfigProblem(
        [...path, "auth"],
        'is for remote servers (OAuth over HTTP); remove it, or set transport to "streamable-http" or "sse"',
      ),
    );
  } else if (raw.auth !== undefined && draft.ours) {
    auth = readAuth(raw.auth, vars, path, local);
  }
  if (local.length > 0) {
    found.problems.push(...local);
    return undefined;
  }
  const config = candidate as unknown as MCPServerConfig;
  declareSecrets(config, [
    ...draft.inputs.filter((id) => vars.declared.get(id)?.password)
      .map((id) => vars.input(id))
      .filter((value): value is string => typeof value === "string"),
    ...auth?.secrets ?? [],
  ]);
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
  if (raw.validateArguments === false) entry.validateArguments = false;
  if (auth !== undefined) entry.auth = auth.auth;
  return entry;
}

/** Whether a missing field of a server is written misspelt beside it. */
function misspelt(
  field: Path,
  draft: Draft,
  problems: readonly ConfigProblem[],
): boolean {
  const [name] = field;
  return field.length === 1 && typeof name === "string" &&
    draft.raw[name] === undefined &&
    problems.some((problem) =>
      problem.kind === "unknown" && problem.field === name &&
      problem.path.length === draft.path.length + 1 &&
      within(problem.path, draft.path)
    );
}

/** The envFile's variables under the explicit ones (own keys only, `__proto__` included). */
function mergeEnv(
  fromFile: Record<string, string>,
  explicit: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const source of [fromFile, explicit ?? {}]) {
    for (const [key, value] of Object.entries(source)) {
      setOwn(merged, key, value);
    }
  }
  return merged;
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
