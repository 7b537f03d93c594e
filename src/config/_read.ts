/**
 * Internal: the steps of loading a config: parse and validate the document
 * and list its servers ({@linkcode readConfig}); then, with the values from
 * outside the file at hand (variables, inputs, env files), interpolate and
 * check each server and build the entries ({@linkcode finish}), collecting
 * every problem on the way.
 *
 * @module
 */

import type {
  ConfigFormat,
  ConfigVariableOptions,
  LoadedConfig,
  ServerEntry,
} from "./types.ts";
import {
  COMMON_FIELDS,
  controlCharacterProblem,
  type MCPServerConfig,
  REMOTE_FIELDS,
  serverConfigProblems,
  STDIO_FIELDS,
} from "../server_config.ts";
import type { MCPToolFilter } from "../types.ts";
import { LOADER_SCHEMA } from "./schema.ts";
import { MCPConfigFileError } from "./errors.ts";
import {
  fileError,
  overridesOf,
  readDocument,
  readFailure,
  schemaProblems,
} from "./_document.ts";
import { readEnvFileText } from "./_env_file.ts";
import type { ParsedDocument } from "./_text.ts";
import {
  envLookup,
  inputReferences,
  interpolate,
  interpolateValue,
  type Variables,
} from "./_interpolate.ts";
import { type ConfigInput, declaredInputs, inputValue } from "./_inputs.ts";
import { type Draft, draftsOf, uniquenessProblems, within } from "./_drafts.ts";
import { parseDotenv } from "./_dotenv.ts";
import { ConfigProblem, formatPath, type Path } from "../_util/problem.ts";
import { declareSecrets } from "../_util/redact.ts";
import { type ReadAuth, readAuth } from "./_auth.ts";
import { isRecord, kindOf, setOwn } from "../_util/values.ts";

const EXAMPLE =
  'servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]';
const INTERPOLATED: readonly string[] = [
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
];

/** A config document read as far as it can be without values from outside. */
export interface ReadConfig {
  file: string;
  document: ParsedDocument;
  drafts: Draft[];
  /** The servers whose values are interpolated and checked. */
  readable: Draft[];
  /** Paths the schema found fault with, formatted: not reported twice. */
  faulty: Set<string>;
  declared: Map<string, ConfigInput>;
  /** Every problem so far; more are added. */
  problems: ConfigProblem[];
}

/**
 * Parses and validates the document and lists its servers.
 *
 * @throws {MCPConfigFileError} On a syntax error, or with every problem
 * when the document has no servers to read further.
 */
export function readConfig(
  text: string,
  format: ConfigFormat | "guess",
  file: string,
): ReadConfig {
  if (format !== "yaml" && format !== "json" && format !== "guess") {
    throw new MCPConfigFileError(
      `${file}: unknown format ${
        JSON.stringify(String(format))
      }; pass "yaml" or "json"`,
      { file, path: "" },
    );
  }
  const document = readDocument(text, format, file, EXAMPLE);
  let root: Record<string, unknown>;
  try {
    root = checkRoot(document.value);
  } catch (error) {
    if (error instanceof ConfigProblem) throw fileError(file, error, document);
    throw error;
  }
  const problems = schemaProblems(LOADER_SCHEMA, document.value);
  // Without a servers list or object there is nothing to read further.
  if (problems.some((problem) => atTop(problem.path))) {
    throw fileError(file, problems, document);
  }
  const drafts = draftsOf(root, problems);
  const faulty = new Set(problems.map((problem) => formatPath(problem.path)));
  // A server the schema found fault with as a whole, or in its name or
  // transport, is not read further; the others' values are interpolated and
  // checked, so one run reports every problem.
  const readable = drafts.filter((draft) =>
    ![[], ["name"], ["transport"], ["type"]].some((field) =>
      faulty.has(formatPath([...draft.path, ...field]))
    )
  );
  const declared = declaredInputs(root.inputs, problems);
  return { file, document, drafts, readable, faulty, declared, problems };
}

function atTop(path: Path): boolean {
  return path.length < 2 && path[0] !== "inputs";
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

/** The interpolated fields a server has, in the format it is written in. */
function fieldsOf(draft: Draft): readonly string[] {
  // Our format: every field written is checked (one of the other transport
  // is a mistake); the other formats: the transport's fields, the rest is
  // ignored, as their own clients do.
  return draft.ours
    ? [...COMMON_FIELDS, ...STDIO_FIELDS, ...REMOTE_FIELDS]
    : draft.transport === "stdio"
    ? [...COMMON_FIELDS, ...STDIO_FIELDS]
    : [...COMMON_FIELDS, ...REMOTE_FIELDS];
}

/**
 * Reports each `envFile` as a problem: text parsed without reading files
 * cannot have one.
 */
export function refuseEnvFiles(read: ReadConfig): void {
  for (const draft of read.readable) {
    if (envFileOf(draft) !== undefined) {
      read.problems.push(
        new ConfigProblem(
          [...draft.path, "envFile"],
          "is a file to read, and parseConfig() reads no files; use loadConfig(), which also takes { text, format }",
        ),
      );
    }
  }
}

/** The `envFile` a stdio server names, when it names one. */
function envFileOf(draft: Draft): string | undefined {
  const envFile = draft.raw.envFile;
  return typeof envFile === "string" && draft.transport === "stdio"
    ? envFile
    : undefined;
}

/** The ids of the inputs the servers use, in file order, repeats included. */
export function usedInputs(drafts: readonly Draft[]): string[] {
  return drafts.flatMap((draft) => inputsOf(draft));
}

function inputsOf(draft: Draft): string[] {
  const fields = [...fieldsOf(draft), "envFile"];
  return [
    ...fields.flatMap((field) =>
      INTERPOLATED.includes(field) ||
        field === "envFile"
        ? inputReferences(draft.raw[field])
        : []
    ),
    ...(draft.ours ? inputReferences(draft.raw.auth) : []),
  ];
}

export function variablesOf(
  read: ReadConfig,
  options: ConfigVariableOptions,
  given: Readonly<Record<string, string>> | undefined,
  answers: ReadonlyMap<string, unknown> | undefined,
  where: { workspaceFolder: string | undefined },
): Variables {
  return {
    env: envLookup(options.env),
    workspaceFolder: where.workspaceFolder ?? {
      missing:
        "but the config was given as text, which has no folder; pass the workspaceFolder option",
    },
    ...(options.userHome === undefined ? {} : { userHome: options.userHome }),
    input: (id) => inputValue(id, read.declared, given, answers),
  };
}

/**
 * Reads the `envFile` of each stdio server that names one.
 *
 * @param base What a relative `envFile` is relative to: the config file's
 * folder, or for text the workspace folder option.
 * @returns The variables of each server's file; problems go to `read`.
 */
export async function readEnvFiles(
  read: ReadConfig,
  vars: Variables,
  base: string | undefined,
): Promise<Map<Draft, Record<string, string>>> {
  const found = new Map<Draft, Record<string, string>>();
  const wanted = read.readable.flatMap((draft) => {
    const envFile = envFileOf(draft);
    return envFile === undefined ? [] : [{ draft, envFile }];
  });
  if (wanted.length === 0) return found;
  const path = await import("node:path");
  await Promise.all(wanted.map(async ({ draft, envFile }) => {
    const at = [...draft.path, "envFile"];
    let name: string;
    try {
      name = interpolate(envFile, vars, at);
    } catch (error) {
      if (!(error instanceof ConfigProblem)) throw error;
      read.problems.push(error);
      return;
    }
    const control = controlCharacterProblem(name);
    if (control !== undefined) {
      read.problems.push(new ConfigProblem(at, control));
      return;
    }
    if (!path.isAbsolute(name)) {
      if (base === undefined) {
        read.problems.push(
          new ConfigProblem(
            at,
            "is a relative path, but the config was given as text, which has no folder; write an absolute path or pass the workspaceFolder option",
          ),
        );
        return;
      }
      name = path.resolve(base, name);
    }
    let text: string;
    try {
      text = await readEnvFileText(name);
    } catch (error) {
      read.problems.push(
        new ConfigProblem(at, `cannot read ${name}: ${readFailure(error)}`, {
          cause: error,
        }),
      );
      return;
    }
    const parsed = parseDotenv(text);
    for (const problem of parsed.problems) {
      read.problems.push(
        new ConfigProblem(at, `${name}:${problem.line}: ${problem.detail}`),
      );
    }
    found.set(draft, parsed.values);
  }));
  return found;
}

/**
 * Builds the entries of the readable servers.
 *
 * @throws {MCPConfigFileError} With every problem found, when there is one.
 */
export function finish(
  read: ReadConfig,
  vars: Variables,
  envFiles: ReadonlyMap<Draft, Record<string, string>>,
): LoadedConfig {
  const { problems } = read;
  const servers: ServerEntry[] = [];
  for (const draft of read.readable) {
    const entry = entryOf(draft, vars, envFiles.get(draft), read);
    if (entry !== undefined) servers.push(entry);
  }
  problems.push(...uniquenessProblems(read.drafts));
  if (problems.length > 0) throw fileError(read.file, problems, read.document);
  return { servers, source: read.file };
}

function entryOf(
  draft: Draft,
  vars: Variables,
  envFile: Record<string, string> | undefined,
  read: ReadConfig,
): ServerEntry | undefined {
  const { raw, path, transport } = draft;
  const local: ConfigProblem[] = [];
  const failed: Path[] = [];
  const candidate: Record<string, unknown> = { name: draft.name, transport };
  for (const field of fieldsOf(draft)) {
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
      read.faulty.has(formatPath(at)) || misspelt(problem.path, draft, read)
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
    read.problems.push(...local);
    return undefined;
  }
  const config = candidate as unknown as MCPServerConfig;
  declareSecrets(config, [
    ...inputsOf(draft).filter((id) => read.declared.get(id)?.password)
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
  if (auth !== undefined) entry.auth = auth.auth;
  return entry;
}

/** Whether a missing field of a server is written misspelt beside it. */
function misspelt(field: Path, draft: Draft, read: ReadConfig): boolean {
  const [name] = field;
  return field.length === 1 && typeof name === "string" &&
    draft.raw[name] === undefined &&
    read.problems.some((problem) =>
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
