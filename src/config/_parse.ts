/**
 * Internal: stage 1 of loading a config, parse. Reads the file (or takes
 * the text), parses it as YAML or JSON, checks its root and validates it
 * against the loader's schema. The problems found go into
 * {@linkcode ParsedConfig.problems}, which the later stages add to; a
 * document with nothing to read further is thrown at once.
 *
 * @module
 */

import type { ConfigFormat, ConfigText } from "./types.ts";
import { LOADER_SCHEMA } from "./schema.ts";
import { MCPConfigFileError } from "./file_error.ts";
import {
  fileError,
  readDocument,
  readTextFile,
  schemaProblems,
} from "./_document.ts";
import type { ParsedDocument } from "./_text.ts";
import { ConfigProblem, type Path } from "../util/problem.ts";
import { isRecord, kindOf } from "../util/values.ts";

/** The file name of config text given without one. */
const INLINE = "<inline>";
/** What a server list looks like, for messages about an empty or odd file. */
const EXAMPLE =
  'servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]';

/** A config document, parsed and checked against the schema. */
export interface ParsedConfig {
  /** The file name for messages, and `LoadedConfig.source`. */
  file: string;
  document: ParsedDocument;
  /** The document's root object. */
  root: Record<string, unknown>;
  /** The folder of a config file read from disk (absolute); text has none. */
  folder: string | undefined;
  /** Every problem so far; the later stages add theirs. */
  problems: ConfigProblem[];
}

/**
 * Reads and parses a config file, or parses config text.
 *
 * @param source A file path (its format from the extension), or text.
 * @returns The parsed config.
 * @throws {MCPConfigFileError} When the file cannot be read, as
 * {@linkcode parseText}.
 */
export async function parseSource(
  source: string | ConfigText,
): Promise<ParsedConfig> {
  if (typeof source !== "string") {
    return parseText(source.text, source.format, source.source);
  }
  const text = await readTextFile(source);
  const path = await import("node:path");
  return parseText(text, formatOf(source), source, {
    folder: path.dirname(path.resolve(source)),
  });
}

/**
 * Parses config text and validates it against the loader's schema.
 *
 * @param file The file name for messages; default `"<inline>"`.
 * @throws {MCPConfigFileError} On an unknown format or a syntax error, or
 * with every problem when the document has no servers to read further.
 */
export function parseText(
  text: string,
  format: ConfigFormat | "guess",
  file: string = INLINE,
  { folder }: { folder?: string } = {},
): ParsedConfig {
  if (format !== "yaml" && format !== "json" && format !== "guess") {
    throw new MCPConfigFileError(
      `${file}: unknown format ${
        JSON.stringify(String(format))
      }; pass "yaml" or "json"`,
      { file, path: "" },
    );
  }
  const document = readDocument(text, format, file, EXAMPLE);
  const root = document.value;
  // Refused here what the schema's messages would explain badly.
  if (!isRecord(root)) {
    throw fileError(
      file,
      new ConfigProblem(
        [],
        `expected an object with a "servers" list, got ${
          kindOf(root)
        }; write e.g. ${EXAMPLE}`,
      ),
      document,
    );
  }
  if (Object.hasOwn(root, "servers") && Object.hasOwn(root, "mcpServers")) {
    throw fileError(
      file,
      new ConfigProblem(
        ["mcpServers"],
        'the file has both "servers" and "mcpServers"; keep one of them',
      ),
      document,
    );
  }
  const problems = schemaProblems(LOADER_SCHEMA, root);
  // Without a servers list or object there is nothing to read further.
  if (problems.some((problem) => atTop(problem.path))) {
    throw fileError(file, problems, document);
  }
  return { file, document, root, folder, problems };
}

function atTop(path: Path): boolean {
  return path.length < 2 && path[0] !== "inputs";
}

/** The format a file name says, or `"guess"`: JSON if the text parses as JSON, else YAML. */
function formatOf(path: string): ConfigFormat | "guess" {
  const lower = path.toLowerCase();
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) return "yaml";
  if (lower.endsWith(".json")) return "json";
  return "guess";
}
