/**
 * The stdio transport: starts an MCP server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin and stdout. The process backend
 * (`node:child_process`, under Deno with Deno's primitives) is loaded lazily
 * in `start()`, so importing this module needs no process API.
 *
 * @module
 */

import { MCPConfigError, MCPConnectionError } from "../errors.ts";
import type {
  JSONRPCMessage,
  MCPTransport,
  TransportActivity,
} from "./transport.ts";
// The npm build resolves this import per runtime (package "imports",
// #stdio-process): edge and browser bundles get _process/unavailable.ts.
import { loadBackend } from "./_process/loader.ts";
import { checkMaxMessageBytes, messageTooLarge } from "./limits.ts";
import { excerpt, mergeSecrets, redact, secretsOf } from "../util/redact.ts";
import { delay, settlesWithin } from "../util/time.ts";
import type {
  ChildExit,
  ChildProcessHandle,
  ProcessBackend,
} from "./_process/backend.ts";
import { asError, errorMessage } from "../util/caught.ts";

/** Options of {@linkcode StdioTransport}. */
export interface StdioTransportOptions {
  /** The executable to start, e.g. `"npx"` or an absolute path. Looked up on `PATH`. */
  command: string;
  /**
   * Names the server in messages (e.g. the config's server name). Default:
   * `command` — which says little when it is `node` or `npx`.
   */
  name?: string;
  /** Arguments passed to `command`. */
  args?: string[];
  /**
   * Extra environment variables for the server. The server never inherits
   * the whole parent environment, only an allow-list: what every program
   * needs (`PATH`, `HOME`, locale), the CA and proxy variables and where
   * caches live (docs/runtimes.md lists them); these entries are added on
   * top and win.
   */
  env?: Record<string, string>;
  /**
   * More variables of this process to pass on, beyond the allow-list: exact
   * names (`"DATABASE_URL"`) or prefixes (`"AWS_*"`). Their values are
   * masked in messages, like `env`'s.
   */
  inheritEnv?: readonly string[];
  /** The server's working directory; the parent's by default. */
  cwd?: string;
  /**
   * How long each stage of `close()` waits, in milliseconds: for the server
   * to exit after stdin closes, then after SIGTERM, then after SIGKILL.
   * Default 2000.
   */
  closeTimeoutMs?: number;
  /**
   * Receives each line the server writes to stderr, with the values of
   * `env` masked (the rule: docs/errors.md).
   */
  onStderr?: (line: string) => void;
  /**
   * The largest message the server may send, in bytes; also bounds what
   * may wait to be written to a server that stops reading its stdin. Past
   * either, the connection fails with an error naming the limit. Default
   * 64 MiB.
   */
  maxMessageBytes?: number;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 2000;
/**
 * Messages of one tick after which the first of them are written at once,
 * so that the server starts on them while we prepare the rest; the rest go
 * out together when the tick ends. Enough of them that their write (about
 * 10 µs of client CPU on Deno) is spread over several calls' worth of
 * work, few enough that the server is not kept waiting: 8 cost the client
 * 1.31–1.38× the raw client's CPU per call at 64 in flight, 16 cost
 * 1.02–1.23× and answered more calls per second (docs/performance.md).
 */
const EARLY_WRITE_MESSAGES = 16;
/** Messages that may wait for a server that does not read its stdin, besides the byte bound. */
const MAX_QUEUED_MESSAGES = 100_000;
/** How long stdout's end may precede the exit before it counts as a server that stopped talking. */
const EOF_EXIT_GRACE_MS = 250;
const STDERR_TAIL_LINES = 20;
/** A stderr line longer than this is kept shortened in `stderrTail`. */
const STDERR_TAIL_LINE_CHARS = 1000;
/** An unterminated stderr line is handed on once it grows this long. */
const STDERR_MAX_LINE_BYTES = 64 * 1024;
const GROUP_POLL_MS = 20;

/**
 * The newline framing of the pipes, loaded with the backend: only a running
 * server needs it, so edge bundles of the root entry do without it.
 */
let framing: Framing | undefined;
type Framing = typeof import("./_lines.ts");
/** The Windows decisions, which the backend hands over on Windows only. */
type Windows = NonNullable<ProcessBackend["windows"]>;

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
  /**
   * Called once when the connection ends: the server exited (its output
   * read to the end), `close()` was called, or the transport failed (the
   * server closed its stdout, sent a message past `maxMessageBytes`,
   * stopped reading its stdin), then with the reason. After a failure the
   * server is being stopped; `close()` resolves once it is gone.
   */
  onclose?: ((reason?: Error) => void) | undefined;

  #options: StdioTransportOptions;
  #closeTimeoutMs: number;
  #maxMessageBytes: number;
  /** The values of `env` (and inherited ones to mask), kept out of every message this transport makes. */
  #secrets: readonly string[];
  #child: ChildProcessHandle | undefined;
  #exit: ChildExit | undefined;
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Settles once the exited child is reaped, its output read and `onclose` called. */
  #finished: Promise<void> | undefined;
  /** True while `send()` may write: from a successful start until close, exit or failure. */
  #accepting = false;
  #closeFired = false;
  /** Loaded on Windows: lines go out ASCII-only, hints name PATH/PATHEXT. */
  #windows: Windows | undefined;
  #tail: string[] = [];
  #tailNext = 0;
  /** Bytes read from stdout so far. */
  #stdoutBytes = 0;
  /** Lines that wait for stdin to drain, written together when it does. */
  #queue: string[] = [];
  #queuedChars = 0;
  /** The promise every `send()` of the queued batch returns. */
  #batch: Batch | undefined;
  /** A write at the end of this tick is scheduled. */
  #scheduled = false;
  /** This tick's early write was made. */
  #wroteEarly = false;
  /** Writes wait for stdin to drain. */
  #draining = false;

  /**
   * Creates a transport; nothing starts until {@linkcode StdioTransport.prototype.start}.
   *
   * @param options The command to run and how.
   * @throws {MCPConfigError} If `command` is empty, or `closeTimeoutMs` or
   * `maxMessageBytes` is invalid.
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
    this.#maxMessageBytes = checkMaxMessageBytes(
      options.maxMessageBytes,
      "StdioTransport",
    );
    this.#options = { ...options, args: [...(options.args ?? [])] };
    this.#closeTimeoutMs = closeTimeoutMs;
    this.#secrets = secretsOf(Object.entries(options.env ?? {}));
  }

  /** The server's process id while it runs (and after it exits); `undefined` before start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server exited: its exit code or the signal that ended it. `undefined` while it runs. */
  get exitStatus(): { code: number | null; signal: string | null } | undefined {
    return this.#exit === undefined ? undefined : { ...this.#exit };
  }

  /** Whether the server still runs, and what it wrote to stdout; `undefined` before start. */
  get activity(): TransportActivity | undefined {
    return this.#child && {
      running: this.#exit === undefined,
      stdoutBytes: this.#stdoutBytes,
    };
  }

  /**
   * What its stderr is masked of: the values of `env` and the secrets the
   * server inherits (a proxy's password), longest first. The connection
   * masks them in the server's log messages too.
   *
   * @example
   * ```ts
   * import { StdioTransport } from "@cleveragents/mcp-adapter";
   *
   * const transport = new StdioTransport({
   *   command: "node",
   *   args: ["server.js"],
   *   env: { API_TOKEN: "sk-live-0123456789" },
   * });
   * console.log(transport.secrets.includes("sk-live-0123456789")); // true
   * ```
   */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** The last 20 lines the server wrote to stderr, oldest first, secrets masked. */
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
          `The stdio transport for ${this.#name} was already started or closed; create a new transport to connect again.`,
        ),
      );
    }
    this.#starting = this.#start();
    return this.#starting;
  }

  get #name(): string {
    return JSON.stringify(this.#options.name ?? this.#options.command);
  }

  async #start(): Promise<void> {
    const options = this.#options;
    let backend: ProcessBackend;
    let lines: Framing;
    let environment: typeof import("../util/child_env.ts");
    try {
      [backend, lines, environment] = await Promise.all([
        loadBackend(),
        framing ?? import("./_lines.ts"),
        import("../util/child_env.ts"),
      ]);
      framing = lines;
    } catch (error) {
      throw new MCPConnectionError(
        "The stdio transport needs a runtime that can start processes (Deno or Node.js); use an HTTP transport here.",
        { cause: error },
      );
    }
    this.#windows = backend.windows;
    const { env, warnings, secrets } = environment.childEnvironment(
      backend,
      options.env,
      options.inheritEnv,
    );
    this.#secrets = mergeSecrets(this.#secrets, secrets);
    for (const warning of warnings) {
      this.#reportError(new Error(`MCP server ${this.#name}: ${warning}`));
    }
    let child: ChildProcessHandle;
    try {
      child = await backend.spawn({
        command: options.command,
        args: options.args ?? [],
        env,
        cwd: options.cwd,
      });
    } catch (error) {
      const { startError } = await import("./_process/start_error.ts");
      throw startError(options, error, this.#windows);
    }
    child.onWriteError = (error) => this.#writeFailed(error);
    this.#child = child;
    this.#finished = this.#watch(child, lines);
    if (this.#closing !== undefined) {
      throw new MCPConnectionError(
        `The stdio transport for ${this.#name} was closed while the server was starting.`,
      );
    }
    this.#accepting = true;
  }

  /**
   * Sends one message as a line of JSON on the server's stdin, in order,
   * never interleaved. While stdin is full (the server reads slower than we
   * write), messages wait and go out together once it drains. A failed
   * write ends the connection (`onclose` gets the reason).
   *
   * @param message The JSON-RPC message.
   * @returns Resolves once the line is written or handed to the runtime's
   * buffer; a message that had to wait resolves once it went out.
   * @throws {MCPConnectionError} If the server is not running, or stopped
   * reading (more than `maxMessageBytes` wait).
   */
  send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (!this.#accepting || child === undefined) {
      return Promise.reject(notRunning());
    }
    let line: string;
    try {
      line = JSON.stringify(message) + "\n";
    } catch (error) {
      return Promise.reject(error);
    }
    // Windows servers often read stdin in the console code page (Python on
    // cp1252): \uXXXX is the same JSON in ASCII. Elsewhere: one test of a field.
    if (this.#windows !== undefined) line = this.#windows.escapeNonAscii(line);
    this.#queue.push(line);
    this.#queuedChars += line.length;
    const batch = this.#batch ??= new Batch();
    if (!this.#scheduled) {
      // The messages of one tick go out in two writes at most: on Deno a
      // write costs the client about 10 µs of CPU, several calls' worth.
      this.#scheduled = true;
      queueMicrotask(this.#endOfTick);
    } else if (
      !this.#wroteEarly && this.#queue.length === EARLY_WRITE_MESSAGES
    ) {
      // The first few without waiting for the tick to end, so the server
      // can start on them: with many calls in flight this keeps both sides
      // busy (calls/s), the single write of the rest keeps the CPU down.
      this.#wroteEarly = true;
      this.#write();
    }
    if (
      this.#queuedChars > this.#maxMessageBytes ||
      this.#queue.length > MAX_QUEUED_MESSAGES
    ) {
      this.#fail(
        new MCPConnectionError(
          `MCP server ${this.#name} is not reading its stdin: more than ${
            this.#queue.length > MAX_QUEUED_MESSAGES
              ? `${MAX_QUEUED_MESSAGES.toLocaleString("en-US")} messages`
              : `maxMessageBytes (${
                this.#maxMessageBytes.toLocaleString("en-US")
              } bytes)`
          } wait to be written; the connection was closed. Check that the server reads its requests.`,
        ),
      );
    }
    return batch.promise;
  }

  readonly #endOfTick = (): void => {
    this.#scheduled = false;
    this.#wroteEarly = false;
    this.#write();
  };

  /** Writes what waits, in one write, unless stdin is full: then once it drains. */
  #write(): void {
    const batch = this.#batch;
    const child = this.#child;
    if (
      batch === undefined || child === undefined || !this.#accepting ||
      this.#draining
    ) return;
    const drained = child.drained();
    if (drained !== undefined) {
      this.#draining = true;
      drained.then(() => {
        this.#draining = false;
        this.#write();
      });
      return;
    }
    child.write(
      this.#queue.length === 1 ? this.#queue[0]! : this.#queue.join(""),
    );
    this.#queue = [];
    this.#queuedChars = 0;
    this.#batch = undefined;
    batch.resolve();
  }

  /** A write failed: the server's stdin is gone, so is the connection. */
  #writeFailed(error: unknown): void {
    if (this.#closing !== undefined) return;
    this.#fail(
      new MCPConnectionError(
        `Writing to the stdio server ${this.#name} failed: ${
          this.#redact(errorMessage(error))
        }`,
        { cause: error },
      ),
    );
  }

  /**
   * Stops the server: closes its stdin, waits up to `closeTimeoutMs` for it
   * to exit, then sends SIGTERM and later SIGKILL to its process group and
   * to every descendant that left the group (Linux). Safe to call more than
   * once; concurrent calls share one promise.
   *
   * @returns Resolves once the server and its descendants are gone and
   * `onclose` has been called (if the transport had started).
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#stopAccepting(notRunning());
    await this.#starting?.catch(() => {});
    const child = this.#child;
    if (child === undefined) return;
    const timeoutMs = this.#closeTimeoutMs;
    if (this.#exit === undefined) {
      // Traced now: once the server exits, what it started in a new session
      // is re-parented and can no longer be found.
      child.group.recordDescendants();
      // A well-behaved server exits when its stdin closes. Not awaited: a
      // write stuck on a full pipe would hold closeStdin() until the kill.
      void child.closeStdin();
      let exited = await settlesWithin(child.exited, timeoutMs);
      if (!exited) {
        child.group.kill("SIGTERM");
        exited = await settlesWithin(child.exited, timeoutMs);
      }
      if (!exited) {
        child.group.kill("SIGKILL");
        exited = await settlesWithin(child.exited, timeoutMs);
      }
      if (!exited) {
        // Unkillable (e.g. stuck in the kernel): stop waiting for it.
        child.stopReading();
        this.#finish();
        return;
      }
    }
    // Every step of #watch after the exit has its own deadline.
    await this.#finished;
  }

  /** Follows the child from spawn to `onclose`. */
  async #watch(child: ChildProcessHandle, lines: Framing): Promise<void> {
    const output = Promise.all([
      this.#readStdout(child, lines),
      this.#readStderr(child, lines),
    ]);
    this.#exit = await child.exited;
    this.#stopAccepting(notRunning());
    void child.closeStdin();
    await this.#reapGroup(child);
    // Normally at EOF by now; a process outside the group may hold the pipe.
    await settlesWithin(output, this.#closeTimeoutMs);
    child.stopReading();
    this.#finish(this.#closing === undefined ? this.#exitReason() : undefined);
  }

  /** Why the connection ended when the server exited on its own. */
  #exitReason(): MCPConnectionError {
    const exit = this.#exit;
    const how = exit?.signal
      ? `was ended by ${exit.signal}`
      : `exited with code ${exit?.code}`;
    const hint = this.#windows?.windowsStartHint(this.#options.command, {
      exitCode: exit?.code ?? null,
    });
    return new MCPConnectionError(
      `the server process ${how}${hint === undefined ? "" : `. ${hint}`}`,
    );
  }

  /** Stops what is left of the child's process group once the child itself has exited. */
  async #reapGroup(child: ChildProcessHandle): Promise<void> {
    if (!child.group.alive()) return;
    child.group.kill("SIGTERM");
    if (await this.#groupGoneWithin(child, this.#closeTimeoutMs)) return;
    child.group.kill("SIGKILL");
    await this.#groupGoneWithin(child, this.#closeTimeoutMs);
  }

  async #groupGoneWithin(
    child: ChildProcessHandle,
    ms: number,
  ): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (child.group.alive()) {
      if (Date.now() >= deadline) return false;
      await delay(GROUP_POLL_MS);
    }
    return true;
  }

  /**
   * The transport cannot go on (see `onclose`): sends are refused, calls
   * waiting on a write fail, `onclose` gets the reason at once, and the
   * server is stopped in the background (`close()` awaits it).
   */
  #fail(reason: MCPConnectionError): void {
    if (this.#closeFired) return;
    this.#stopAccepting(reason);
    this.#finish(reason);
    this.close().catch((error) => this.#reportError(error));
  }

  /** Refuses further sends and fails the writes that have not started. */
  #stopAccepting(reason: Error): void {
    this.#accepting = false;
    this.#queue = [];
    this.#queuedChars = 0;
    const batch = this.#batch;
    this.#batch = undefined;
    batch?.reject(reason);
  }

  /** Calls `onclose`, exactly once. */
  #finish(reason?: Error): void {
    this.#accepting = false;
    if (this.#closeFired) return;
    this.#closeFired = true;
    try {
      this.onclose?.(reason);
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

  async #readStdout(child: ChildProcessHandle, split: Framing): Promise<void> {
    const { LineSplitter, LineTooLongError } = split;
    const lines = new LineSplitter((line) => this.#handleLine(line), {
      maxLineBytes: this.#maxMessageBytes,
      overflow: "throw",
    });
    try {
      await child.readStdout((chunk) => {
        this.#stdoutBytes += chunk.length;
        lines.push(chunk);
      });
      lines.end();
    } catch (error) {
      if (this.#closeFired) return;
      if (error instanceof LineTooLongError) {
        child.stopReading();
        this.#fail(
          messageTooLarge(
            `MCP server ${this.#name}`,
            this.#maxMessageBytes,
            "the connection was closed and the server stopped",
          ),
        );
        return;
      }
      this.#reportError(
        new Error(
          `Reading the stdout of MCP server ${this.#name} failed: ${
            this.#redact(errorMessage(error))
          }`,
          { cause: error },
        ),
      );
    }
    // The end of stdout is the end of the conversation. A server that
    // exits shortly is the normal case; one that lives on is stopped.
    if (this.#closeFired || this.#closing !== undefined) return;
    if (await settlesWithin(child.exited, EOF_EXIT_GRACE_MS)) return;
    this.#fail(
      new MCPConnectionError(
        `MCP server ${this.#name} closed its stdout but kept running; the connection was closed and the server stopped`,
      ),
    );
  }

  /** Parses one stdout line and delivers it; after a failure, drains without delivering. */
  #handleLine(line: string): void {
    if (this.#closeFired) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      if (line.trim() === "") return;
      this.#reportError(
        new Error(
          `MCP server ${this.#name} wrote a line to stdout that is not JSON: ${
            excerpt(line, this.#secrets)
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
          `MCP server ${this.#name} wrote a line to stdout that is not a JSON-RPC message object: ${
            excerpt(line, this.#secrets)
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

  async #readStderr(child: ChildProcessHandle, split: Framing): Promise<void> {
    const lines = new split.LineSplitter((line) => this.#stderrLine(line), {
      maxLineBytes: STDERR_MAX_LINE_BYTES,
      overflow: "split",
      secrets: this.#secrets,
    });
    try {
      await child.readStderr((chunk) => lines.push(chunk));
      lines.end();
    } catch {
      // stderr is diagnostics only; losing its end is not worth an error.
    }
  }

  /** Keeps one stderr line, secrets already masked, in the tail and hands it to `onStderr`. */
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

  #redact(text: string): string {
    return redact(text, this.#secrets);
  }
}

/** The sends that waited for stdin to drain: one promise for all of them. */
class Batch {
  readonly promise: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;

  constructor() {
    this.promise = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

function notRunning(): MCPConnectionError {
  return new MCPConnectionError(
    "The stdio server is not running; call connect() again.",
  );
}
