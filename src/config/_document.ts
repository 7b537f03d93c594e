/**
 * Internal: the steps config files and skill files share: read the file,
 * parse it, validate it against a schema, and turn problems into
 * `MCPConfigFileError`s that name the file, the position and the path.
 *
 * @module
 */

import { setOwn } from "../_util/values.ts";
import { MCPConfigFileError } from "./errors.ts";
import {
  type ParsedDocument,
  parseDocument,
  type TextFormat,
} from "./_text.ts";
import { ConfigProblem, formatPath } from "./_problem.ts";
import { isRecord } from "../_util/values.ts";
import { schemaProblems } from "./_schema_errors.ts";

export { schemaProblems };
import type { CapabilityOverrides } from "../tools/capabilities.ts";
import type { JsonSchema, ToolCapability } from "../types.ts";
import { errorMessage } from "../_util/errors.ts";

/**
 * Parses text, refusing empty documents.
 *
 * @param text The file's text.
 * @param format Its format; `"guess"`: JSON if it parses as JSON, else YAML
 * (one parse when it is JSON).
 * @param file The file's name for messages.
 * @param emptyHint What to write in an empty file, e.g. `servers: [...]`.
 * @returns The parsed document.
 * @throws {MCPConfigFileError} On a syntax error or an empty document.
 */
export function readDocument(
  text: string,
  format: TextFormat | "guess",
  file: string,
  emptyHint: string,
): ParsedDocument {
  let document: ParsedDocument;
  try {
    document = format === "guess" ? guessed(text) : parseDocument(text, format);
  } catch (error) {
    if (error instanceof ConfigProblem) throw fileError(file, error);
    throw error;
  }
  if (document.empty) {
    throw fileError(
      file,
      new ConfigProblem([], `the file is empty; write e.g. ${emptyHint}`),
    );
  }
  return document;
}

/**
 * Validates a document against a schema and throws its first problem (the
 * one nearest the top of the file).
 *
 * @param document The parsed document.
 * @param schema The schema.
 * @param file The file's name for messages.
 * @throws {MCPConfigFileError} When the document does not match.
 */
export function checkSchema(
  document: ParsedDocument,
  schema: JsonSchema,
  file: string,
): void {
  const problems = schemaProblems(schema, document.value);
  if (problems.length > 0) {
    throw fileError(file, firstProblem(problems, document), document);
  }
}

/**
 * The problem nearest the top of the file; of a misspelt field, which is
 * both unknown and missing, the misspelling.
 *
 * @param problems At least one problem.
 * @param document The document, to find their positions.
 */
export function firstProblem(
  problems: readonly ConfigProblem[],
  document: ParsedDocument,
): ConfigProblem {
  const placed = problems.map((problem, order) => ({
    problem,
    order,
    at: problem.line !== undefined
      ? { line: problem.line, column: problem.column ?? 1 }
      : document.locate(problem.path),
  }));
  placed.sort((a, b) =>
    (a.at?.line ?? Infinity) - (b.at?.line ?? Infinity) ||
    (a.at?.column ?? Infinity) - (b.at?.column ?? Infinity) ||
    a.order - b.order
  );
  const first = placed[0]!.problem;
  if (first.kind !== "missing") return first;
  const typo = placed.find(({ problem }) =>
    problem.kind === "unknown" &&
    problem.path.length === first.path.length + 1 &&
    first.path.every((segment, index) => problem.path[index] === segment)
  );
  return typo?.problem ?? first;
}

function guessed(text: string): ParsedDocument {
  try {
    return parseDocument(text, "json");
  } catch (error) {
    if (error instanceof ConfigProblem) return parseDocument(text, "yaml");
    throw error;
  }
}

/**
 * Turns a problem into the public error.
 *
 * @param file The file's name.
 * @param problem The problem.
 * @param document The document, to find the problem's position.
 * @returns The error, ready to throw.
 */
export function fileError(
  file: string,
  problem: ConfigProblem,
  document?: ParsedDocument,
): MCPConfigFileError {
  const at = problem.line !== undefined
    ? { line: problem.line, column: problem.column ?? 1 }
    : document?.locate(problem.path);
  const where = at === undefined ? file : `${file}:${at.line}:${at.column}`;
  const path = formatPath(problem.path);
  const message = path === ""
    ? `${where}: ${problem.detail}`
    : `${where}: ${path}${problem.continuesPath ? " " : ": "}${problem.detail}`;
  return new MCPConfigFileError(message, {
    file,
    path,
    ...(at === undefined ? {} : { line: at.line, column: at.column }),
    ...(problem.cause === undefined ? {} : { cause: problem.cause }),
  });
}

/**
 * Reads a text file with `node:fs/promises`, loaded on first use so that the
 * module graph stays free of `node:` imports until a file is read.
 *
 * @param path The file's path.
 * @returns Its text.
 * @throws {MCPConfigFileError} When the file cannot be read.
 */
export async function readTextFile(path: string): Promise<string> {
  try {
    const { readFile } = await import("node:fs/promises");
    return await readFile(path, "utf8");
  } catch (error) {
    throw new MCPConfigFileError(
      `${path}: cannot read the file: ${readFailure(error)}`,
      { file: path, path: "", cause: error },
    );
  }
}

function readFailure(error: unknown): string {
  const { code, name } = error as { code?: unknown; name?: unknown };
  switch (code ?? name) {
    case "ENOENT":
    case "NotFound":
      return "it does not exist; check the path";
    case "EISDIR":
    case "IsADirectory":
      return "it is a directory; name a file inside it";
    case "EACCES":
    case "EPERM":
    case "PermissionDenied":
      return "permission denied; check the file's permissions";
    case "NotCapable":
      return "Deno may not read it; run deno with --allow-read";
    default:
      return errorMessage(error);
  }
}

/**
 * Converts the file's `{ read_only?, writes? }` entries to
 * `{ readOnly?, writes? }`. The schema has checked their shape.
 *
 * @param raw Overrides as written in a config or skill file.
 * @returns The same overrides in the library's spelling.
 */
export function overridesOf(
  raw: Record<string, unknown>,
): CapabilityOverrides {
  const overrides: CapabilityOverrides = {};
  for (const [pattern, value] of Object.entries(raw)) {
    const override: Partial<ToolCapability> = {};
    if (isRecord(value)) {
      if (typeof value.read_only === "boolean") {
        override.readOnly = value.read_only;
      }
      if (typeof value.writes === "boolean") override.writes = value.writes;
    }
    setOwn(overrides, pattern, override);
  }
  return overrides;
}
