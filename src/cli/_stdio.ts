/**
 * The process's stdout and stderr as the command line writes to them. A
 * reader that went away (`mcp-adapter tools | head`, `2>&1 | cat` ended by
 * the same Ctrl-C) makes writes fail with EPIPE, which Node and Deno report
 * as an `error` event: unhandled, it ends the process with a stack trace
 * before the servers are stopped. Here it only ends that output, quietly;
 * the command goes on, stops its servers and exits as it would have.
 * Internal.
 *
 * @module
 */

import type { CliOutput } from "./_output.ts";

/** What {@linkcode guardedOutput} needs of `process.stdout` / `process.stderr`. */
export interface WritableLike {
  write(text: string): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** A {@linkcode CliOutput} that drops what is written after its reader went away. */
export interface GuardedOutput extends CliOutput {
  /** Whether writing has stopped: the reader went away, or a write failed. */
  readonly closed: boolean;
  /** The first write error other than a reader gone (e.g. a full disk). */
  readonly failure: Error | undefined;
}

/** Errors that only say the reader has gone. */
const READER_GONE = new Set(["EPIPE", "ECONNRESET", "ERR_STREAM_DESTROYED"]);

/**
 * `stream`, writing until its reader goes away; write errors (thrown, or
 * emitted as `error` events) stop the output instead of the process.
 */
export function guardedOutput(stream: WritableLike): GuardedOutput {
  let closed = false;
  let failure: Error | undefined;
  const stop = (error: unknown) => {
    closed = true;
    if (failure === undefined && !readerGone(error)) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
  };
  stream.on("error", stop);
  return {
    get closed() {
      return closed;
    },
    get failure() {
      return failure;
    },
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write(text: string): boolean {
      if (closed) return false;
      try {
        stream.write(text);
        return true;
      } catch (error) {
        stop(error);
        return false;
      }
    },
  };
}

function readerGone(error: unknown): boolean {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return (typeof code === "string" && READER_GONE.has(code)) ||
    name === "BrokenPipe";
}
