/**
 * Internal: the steps config files and skill files share: read the file,
 * parse it, validate it against a schema, and turn problems into
 * `MCPConfigFileError`s that name the file, the position and the path.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";
import { MCPConfigFileError, type MCPConfigFileProblem } from "./file_error.ts";
import {
  type ParsedDocument,
  parseDocument,
  type TextFormat,
} from "./_text.ts";
import { ConfigProblem, formatPath } from "../util/problem.ts";
import { isRecord } from "../util/values.ts";
import { schemaProblems } from "./_schema_errors.ts";

export { schemaProblems };
import type { CapabilityOverrides } from "../tools/capabilities.ts";
import type { JsonSchema, ToolCapability } from "../types.ts";
import { readFailure, readText } from "../util/read_file.ts";

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
 * Validates a document against a schema and throws every problem found.
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
  if (problems.length > 0) throw fileError(file, problems, document);
}

/** A problem with the position it is reported at. */
interface Placed {
  problem: ConfigProblem;
  at: { line: number; column: number } | undefined;
}

/**
 * The problems in file order (those without a position last), without the
 * "missing" half of a misspelt field: `comand` is reported as an unknown
 * field that looks like `command`, not also as a missing `command`; and of
 * several rules saying what one object lacks, only the first. When
 * the first problem is a missing field and a field beside it is unknown,
 * that unknown field comes first: it is the likelier cause.
 */
function placedInOrder(
  problems: readonly ConfigProblem[],
  document: ParsedDocument | undefined,
): Placed[] {
  const placed = problems.map((problem, order) => ({
    problem,
    order,
    at: problem.line !== undefined
      ? { line: problem.line, column: problem.column ?? 1 }
      : document?.locate(problem.path),
  }));
  placed.sort((a, b) =>
    (a.at?.line ?? Infinity) - (b.at?.line ?? Infinity) ||
    (a.at?.column ?? Infinity) - (b.at?.column ?? Infinity) ||
    a.order - b.order
  );
  const beside = (missing: ConfigProblem, unknown: ConfigProblem) =>
    unknown.kind === "unknown" &&
    unknown.path.length === missing.path.length + 1 &&
    missing.path.every((segment, index) => unknown.path[index] === segment);
  const kept = placed.filter(({ problem }, index) =>
    problem.kind !== "missing" ||
    !placed.some((other, otherIndex) =>
      (beside(problem, other.problem) && other.problem.field !== undefined &&
        (problem.field === undefined ||
          problem.field === other.problem.field)) ||
      // Two rules that each say what the same object lacks: one is enough.
      (otherIndex < index && other.problem.kind === "missing" &&
        problem.field === undefined && other.problem.field === undefined &&
        formatPath(other.problem.path) === formatPath(problem.path))
    )
  );
  const first = kept[0];
  if (first?.problem.kind === "missing") {
    const typo = kept.findIndex((other) =>
      beside(first.problem, other.problem)
    );
    if (typo > 0) kept.unshift(...kept.splice(typo, 1));
  }
  return kept;
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
 * Turns problems into the public error: one line per problem, in file
 * order.
 *
 * @param file The file's name.
 * @param problems One problem or several (at least one).
 * @param document The document, to find the problems' positions.
 * @returns The error, ready to throw.
 */
export function fileError(
  file: string,
  problems: ConfigProblem | readonly ConfigProblem[],
  document?: ParsedDocument,
): MCPConfigFileError {
  const placed = placedInOrder(
    problems instanceof ConfigProblem ? [problems] : problems,
    document,
  );
  const reported: MCPConfigFileProblem[] = placed.map(({ problem, at }) => {
    const where = at === undefined ? file : `${file}:${at.line}:${at.column}`;
    const path = formatPath(problem.path);
    const message = path === ""
      ? `${where}: ${problem.detail}`
      : `${where}: ${path}${
        problem.continuesPath ? " " : ": "
      }${problem.detail}`;
    return {
      path,
      ...(at === undefined ? {} : { line: at.line, column: at.column }),
      message,
    };
  });
  const first = reported[0]!;
  const cause = placed[0]!.problem.cause;
  return new MCPConfigFileError(
    reported.map((problem) => problem.message).join("\n"),
    {
      file,
      path: first.path,
      ...(first.line === undefined ? {} : { line: first.line }),
      ...(first.column === undefined ? {} : { column: first.column }),
      ...(cause === undefined ? {} : { cause }),
      problems: reported,
    },
  );
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
    return await readText(path);
  } catch (error) {
    throw new MCPConfigFileError(
      `${path}: cannot read the file: ${readFailure(error)}`,
      { file: path, path: "", cause: error },
    );
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
