/**
 * The stdio transport: starts an MCP server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin and stdout. The process backend
 * (`Deno.Command` or `node:child_process`) is loaded lazily in `start()`, so
 * importing this module needs no process API.
 *
 * @module
 */

import { MCPConfigError, MCPConnectionError } from "../errors.ts";
import type { JSONRPCMessage, MCPTransport } from "../transport.ts";
import { readLines } from "./_lines.ts";
import {
  childEnvironment,
  type ChildExit,
  type ChildProcessHandle,
  loadBackend,
  type ProcessBackend,
} from "./_process.ts";
import { asError } from "../_error_text.ts";

/** Options of {@linkcode StdioTransport}. */
export interface StdioTransportOptions {
  /** The executable to start, e.g. `"npx"` or an absolute path. Looked up on `PATH`. */
  command: string;
  /** Arguments passed to `command`. */
  args?: string[];
  /**
   * Extra environment variables for the server. The server never inherits
   * the whole parent environment, only a few variables such as `PATH`,
   * `HOME` and `LANG`; these entries are added on top and win.
   */
  env?: Record<string, string>;
  /** The server's working directory; the parent's by default. */
  cwd?: string;
  /**
   * How long each stage of `close()` waits, in milliseconds: for the server
   * to exit after stdin closes, then after SIGTERM, then after SIGKILL.
   * Default 2000.
   */
  closeTimeoutMs?: number;
  /** Receives each line the server writes to stderr. */
  onStderr?: (line: string) => void;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 2000;
const STDERR_TAIL_LINES = 20;
/** A stderr line longer than this is kept shortened in `stderrTail`. */
const STDERR_TAIL_LINE_CHARS = 1000;
/** An unterminated stderr line is handed on once it grows this long. */
const STDERR_MAX_PENDING_CHARS = 64 * 1024;
const EXCERPT_CHARS = 200;
const GROUP_POLL_MS = 20;

const encoder = new TextEncoder();

/** A quoted, shortened copy of `text` for error messages. */
function excerpt(text: string): string {
  return JSON.stringify(
    text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text,
  );
}

/** Resolves `true` if `promise` settles within `ms`, else `false`; never leaves a timer behind. */
function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  return Promise.race([promise.then(() => true, () => true), timeout]).finally(
    () => clearTimeout(timer),
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Turns a backend spawn failure into a message that says what to fix. */
function startError(
  options: StdioTransportOptions,
  error: unknown,
): MCPConnectionError {
  const name = JSON.stringify(options.command);
  const { code, syscall } = (error ?? {}) as {
    code?: unknown;
    syscall?: unknown;
  };
  let message: string;
  if (code === "ENOENT" && syscall === "chdir") {
    message = `Cannot start MCP server command ${name}: working directory ${
      JSON.stringify(options.cwd)
    } does not exist. Create it or fix "cwd".`;
  } else if (code === "ENOENT") {
    message =
      `Cannot start MCP server command ${name}: executable not found. Install it or set "command" to an absolute path.`;
  } else if (code === "EACCES") {
    message =
      `Cannot start MCP server command ${name}: permission denied. Make sure the file is executable.`;
  } else {
    message = `Cannot start MCP server command ${name}: ${
      asError(error).message
    }`;
  }
  return new MCPConnectionError(message, { cause: error });
}

/**
 * An {@linkcode MCPTransport} that runs an MCP server as a child process and
 * exchanges newline-delimited JSON-RPC messages over its stdin and stdout.
 *
 * The server gets a minimal environment (`PATH`, `HOME`, locale and a few
 * more, plus `options.env`), never the parent's secrets. It runs as the
 * leader of its own process group, so `close()` also stops what it started
 * (e.g. the real server behind `npx`). Its stderr is always drained; the last
 * lines are kept in {@linkcode StdioTransport.prototype.stderrTail}.
 *
 * A transport is single-use: after `close()` or the server's exit, create a
 * new one.
 *
 * @example Start a server, send a request, close
 * ```ts
 * import { StdioTransport } from "@cleveragents/mcp-adapter";
 *
 * const transport = new StdioTransport({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-everything", "stdio"],
 *   onStderr: (line) => console.error(`[server] ${line}`),
 * });
 * transport.onmessage = (message) => console.log(message);
 * transport.onerror = (error) => console.error(error.message);
 *
 * transport.onclose = () => console.log("exited", transport.exitStatus);
 *
 * export async function ping(): Promise<void> {
 *   await transport.start();
 *   await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
 *   await transport.close(); // stdin EOF, then SIGTERM, then SIGKILL
 * }
 * ```
 */
export class StdioTransport implements MCPTransport {
  /** Receives each message the server writes to stdout. */
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Receives non-fatal errors, e.g. a stdout line that is not a JSON object. */
  onerror?: ((error: Error) => void) | undefined;
  /** Called once when the server has exited and its stdout has been read to the end. */
  onclose?: (() => void) | undefined;

  #options: StdioTransportOptions;
  #closeTimeoutMs: number;
  #child: ChildProcessHandle | undefined;
  #exit: ChildExit | undefined;
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Settles once the exited child is reaped, its output read and `onclose` called. */
  #finished: Promise<void> | undefined;
  /** True while `send()` may write: from a successful start until close or exit. */
  #accepting = false;
  #closeFired = false;
  #writeChain: Promise<void> = Promise.resolve();
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #tail: string[] = [];
  #tailNext = 0;

  /**
   * Creates a transport; nothing starts until {@linkcode StdioTransport.prototype.start}.
   *
   * @param options The command to run and how.
   * @throws {MCPConfigError} If `command` is empty or `closeTimeoutMs` is negative.
   */
  constructor(options: StdioTransportOptions) {
    if (typeof options.command !== "string" || options.command.trim() === "") {
      throw new MCPConfigError(
        "command",
        'StdioTransport needs a non-empty "command", e.g. "npx" or an absolute path to the server.',
      );
    }
    const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    if (!Number.isFinite(closeTimeoutMs) || closeTimeoutMs < 0) {
      throw new MCPConfigError(
        "closeTimeoutMs",
        `"closeTimeoutMs" must be a non-negative number of milliseconds, got ${
          String(options.closeTimeoutMs)
        }.`,
      );
    }
    this.#options = { ...options, args: [...(options.args ?? [])] };
    this.#closeTimeoutMs = closeTimeoutMs;
  }

  /** The server's process id while it runs (and after it exits); `undefined` before start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server exited: its exit code or the signal that ended it. `undefined` while it runs. */
  get exitStatus(): { code: number | null; signal: string | null } | undefined {
    return this.#exit === undefined ? undefined : { ...this.#exit };
  }

  /** The last 20 lines the server wrote to stderr, oldest first. */
  get stderrTail(): string[] {
    const tail = this.#tail;
    return tail.length < STDERR_TAIL_LINES
      ? [...tail]
      : [...tail.slice(this.#tailNext), ...tail.slice(0, this.#tailNext)];
  }

  /**
   * Starts the server and begins reading its stdout and stderr.
   *
   * @returns Resolves once the process runs.
   * @throws {MCPConnectionError} If the executable or the working directory
   * does not exist, the process cannot be started, or the transport was
   * already started.
   */
  start(): Promise<void> {
    if (this.#starting !== undefined || this.#closing !== undefined) {
      return Promise.reject(
        new MCPConnectionError(
          `The stdio transport for ${
            JSON.stringify(this.#options.command)
          } was already started or closed; create a new transport to connect again.`,
        ),
      );
    }
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const options = this.#options;
    let backend: ProcessBackend;
    try {
      backend = await loadBackend();
    } catch (error) {
      throw new MCPConnectionError(
        "The stdio transport needs a runtime that can start processes (Deno or Node.js); use an HTTP transport here.",
        { cause: error },
      );
    }
    let child: ChildProcessHandle;
    try {
      child = await backend.spawn({
        command: options.command,
        args: options.args ?? [],
        env: childEnvironment(backend, options.env),
        cwd: options.cwd,
      });
    } catch (error) {
      throw startError(options, error);
    }
    this.#child = child;
    this.#finished = this.#watch(child);
    if (this.#closing !== undefined) {
      throw new MCPConnectionError(
        `The stdio transport for ${
          JSON.stringify(options.command)
        } was closed while the server was starting.`,
      );
    }
    this.#accepting = true;
  }

  /**
   * Sends one message as a line of JSON on the server's stdin. Concurrent
   * sends are written one after another, never interleaved.
   *
   * @param message The JSON-RPC message.
   * @returns Resolves once the line is handed to the operating system.
   * @throws {MCPConnectionError} If the server is not running or the write fails.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (!this.#accepting) return Promise.reject(notRunning());
    let bytes: Uint8Array;
    try {
      bytes = encoder.encode(JSON.stringify(message) + "\n");
    } catch (error) {
      return Promise.reject(error);
    }
    const written = this.#writeChain.then(async () => {
      const child = this.#child;
      if (!this.#accepting || child === undefined) throw notRunning();
      try {
        await child.write(bytes);
      } catch (error) {
        throw new MCPConnectionError(
          `Writing to the stdio server ${
            JSON.stringify(this.#options.command)
          } failed: ${asError(error).message}`,
          { cause: error },
        );
      }
    });
    this.#writeChain = written.catch(() => {});
    return written;
  }

  /**
   * Stops the server: closes its stdin, waits up to `closeTimeoutMs` for it
   * to exit, then sends SIGTERM and later SIGKILL to its process group. Also
   * stops processes of that group which outlive the server. Safe to call
   * more than once; concurrent calls share one promise.
   *
   * @returns Resolves once the server and its process group are gone and
   * `onclose` has been called (if the transport had started).
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#accepting = false;
    await this.#starting?.catch(() => {});
    const child = this.#child;
    if (child === undefined) return;
    const timeoutMs = this.#closeTimeoutMs;
    if (this.#exit === undefined) {
      // A well-behaved server exits when its stdin closes. Not awaited: a
      // write stuck on a full pipe would hold closeStdin() until the kill.
      void child.closeStdin();
      let exited = await settlesWithin(child.exited, timeoutMs);
      if (!exited) {
        child.kill("SIGTERM");
        exited = await settlesWithin(child.exited, timeoutMs);
      }
      if (!exited) {
        child.kill("SIGKILL");
        exited = await settlesWithin(child.exited, timeoutMs);
      }
      if (!exited) {
        // Unkillable (e.g. stuck in the kernel): stop waiting for it.
        this.#finish();
        return;
      }
    }
    // Every step of #watch after the exit has its own deadline.
    await this.#finished;
  }

  /** Follows the child from spawn to `onclose`. */
  async #watch(child: ChildProcessHandle): Promise<void> {
    const output = Promise.all([
      this.#readStdout(child.stdout),
      this.#readStderr(child.stderr),
    ]);
    this.#exit = await child.exited;
    this.#accepting = false;
    void child.closeStdin();
    await this.#reapGroup(child);
    // Normally at EOF by now; a process outside the group may hold the pipe.
    await settlesWithin(output, this.#closeTimeoutMs);
    this.#finish();
  }

  /** Stops what is left of the child's process group once the child itself has exited. */
  async #reapGroup(child: ChildProcessHandle): Promise<void> {
    if (!child.groupAlive()) return;
    child.kill("SIGTERM");
    if (await this.#groupGoneWithin(child, this.#closeTimeoutMs)) return;
    child.kill("SIGKILL");
    await this.#groupGoneWithin(child, this.#closeTimeoutMs);
  }

  async #groupGoneWithin(
    child: ChildProcessHandle,
    ms: number,
  ): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (child.groupAlive()) {
      if (Date.now() >= deadline) return false;
      await delay(GROUP_POLL_MS);
    }
    return true;
  }

  /** Ends reading and calls `onclose`, exactly once. */
  #finish(): void {
    this.#accepting = false;
    for (const reader of this.#readers) reader.cancel().catch(() => {});
    this.#readers = [];
    if (this.#closeFired) return;
    this.#closeFired = true;
    try {
      this.onclose?.();
    } catch (error) {
      this.#reportError(error);
    }
  }

  #reportError(error: unknown): void {
    try {
      this.onerror?.(asError(error));
    } catch {
      // A throwing onerror must not stop the read loops.
    }
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      await readLines(reader, (line) => this.#handleLine(line));
    } catch (error) {
      if (this.#closeFired) return;
      this.#reportError(
        new Error(
          `Reading the stdout of MCP server ${
            JSON.stringify(this.#options.command)
          } failed: ${asError(error).message}`,
          { cause: error },
        ),
      );
    }
  }

  /** Parses one stdout line and delivers it. */
  #handleLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      if (line.trim() === "") return;
      this.#reportError(
        new Error(
          `MCP server ${
            JSON.stringify(this.#options.command)
          } wrote a line to stdout that is not JSON: ${
            excerpt(line)
          }. Servers must write only JSON-RPC messages to stdout and log to stderr.`,
        ),
      );
      return;
    }
    if (
      message === null || typeof message !== "object" || Array.isArray(message)
    ) {
      this.#reportError(
        new Error(
          `MCP server ${
            JSON.stringify(this.#options.command)
          } wrote a line to stdout that is not a JSON-RPC message object: ${
            excerpt(line)
          }.`,
        ),
      );
      return;
    }
    try {
      this.onmessage?.(message as JSONRPCMessage);
    } catch (error) {
      this.#reportError(error);
    }
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      await readLines(
        reader,
        (line) => this.#stderrLine(line),
        STDERR_MAX_PENDING_CHARS,
      );
    } catch {
      // stderr is diagnostics only; losing its end is not worth an error.
    }
  }

  /** Keeps one stderr line in the tail and hands it to `onStderr`. */
  #stderrLine(line: string): void {
    const kept = line.length > STDERR_TAIL_LINE_CHARS
      ? `${line.slice(0, STDERR_TAIL_LINE_CHARS)}…`
      : line;
    if (this.#tail.length < STDERR_TAIL_LINES) {
      this.#tail.push(kept);
    } else {
      this.#tail[this.#tailNext] = kept;
      this.#tailNext = (this.#tailNext + 1) % STDERR_TAIL_LINES;
    }
    const onStderr = this.#options.onStderr;
    if (onStderr === undefined) return;
    try {
      onStderr(line);
    } catch (error) {
      this.#reportError(error);
    }
  }
}

function notRunning(): MCPConnectionError {
  return new MCPConnectionError(
    "The stdio server is not running; call connect() again.",
  );
}
