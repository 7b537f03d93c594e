/**
 * Assertions for the config tests: that parsing or loading a config fails
 * with an {@linkcode MCPConfigFileError} carrying the expected message,
 * path, line, column and file; and small builders of YAML text.
 *
 * @module
 */

import assert from "node:assert/strict";
import { MCPConfigError } from "@cleveragents/mcp-adapter";
import {
  loadConfig,
  MCPConfigFileError,
  parseConfig,
} from "@cleveragents/mcp-adapter/config";

/** What the error should say; only the fields given are checked. */
export interface Expected {
  message?: string | RegExp;
  path?: string;
  line?: number;
  column?: number;
  file?: string;
}

/** Asserts `error` is an `MCPConfigFileError` as `expected` says, and returns it. */
export function check(error: unknown, expected: Expected): MCPConfigFileError {
  assert.ok(
    error instanceof MCPConfigFileError,
    `expected MCPConfigFileError, got ${error}`,
  );
  assert.ok(error instanceof MCPConfigError);
  assert.equal(error.name, "MCPConfigFileError");
  assert.equal(error.code, "invalid_config");
  assert.equal(error.field, error.path);
  if (typeof expected.message === "string") {
    assert.equal(error.message, expected.message);
  } else if (expected.message) assert.match(error.message, expected.message);
  for (const key of ["path", "line", "column", "file"] as const) {
    if (key in expected) assert.equal(error[key], expected[key], key);
  }
  return error;
}

/** Parses `text` (YAML unless `format` says otherwise) and returns the error it must throw. */
export function parseError(
  text: string,
  expected: Expected,
  options: { format?: "yaml" | "json"; env?: Record<string, string> } = {},
): MCPConfigFileError {
  const format = options.format ?? "yaml";
  const source = format === "yaml" ? "mcp.yaml" : "mcp.json";
  try {
    parseConfig(text, format, { source, env: options.env ?? {} });
  } catch (error) {
    return check(error, expected);
  }
  assert.fail("parseConfig() did not throw");
}

/** Loads the file at `path` and returns the error it must throw. */
export async function loadError(
  path: string,
  expected: Expected,
): Promise<MCPConfigFileError> {
  try {
    await loadConfig(path, { env: {} });
  } catch (error) {
    return check(error, expected);
  }
  assert.fail("loadConfig() did not throw");
}

/** Joins lines into a YAML document. */
export function yaml(lines: string[]): string {
  return lines.join("\n") + "\n";
}

/** The head of a one-server stdio config, to which a test adds lines. */
export const STDIO = ["servers:", "  - name: a", "    transport: stdio"];
