/**
 * Small helpers for errors of unknown shape (`catch (error)` gives
 * `unknown`). Internal.
 *
 * @module
 */

/** The message of an error, or the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The value as an `Error`, wrapping anything that is not one. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
