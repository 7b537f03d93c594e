/**
 * What a `catch` gives (`unknown`): its message, it as an `Error`, and
 * whether it is this library's error of a given code. Named for what it
 * reads, so that `errors.ts` means the error classes alone. Internal.
 *
 * @module
 */

import { MCPAdapterError, type MCPErrorCode } from "../errors.ts";

/** The message of an error, or the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The value as an `Error`, wrapping anything that is not one. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * Whether `error` is this library's error with `code`: the one way its
 * layers tell errors apart by code, typed by {@linkcode MCPErrorCode} so
 * that a misspelt code does not compile.
 */
export function hasCode(
  error: unknown,
  code: MCPErrorCode,
): error is MCPAdapterError {
  return error instanceof MCPAdapterError && error.code === code;
}
