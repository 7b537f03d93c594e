/**
 * The JSON-RPC side of MCP: request ids, the pending map, per-request
 * deadlines, progress tokens, cancellation and server-initiated requests.
 * Knows nothing about pipes or HTTP. Internal.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPRequestLostError,
  MCPTimeoutError,
} from "../errors.ts";
import type {
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  MCPAuthorizationCallback,
  MCPTransport,
  RequestId,
  TransportActivity,
} from "../transports/transport.ts";
import type { MCPProgress } from "../types.ts";
import { asError } from "../util/caught.ts";
import { asText, isRecord, kindOf } from "../util/values.ts";
import { redact, redactData } from "../util/redact.ts";
import { timerMs } from "../util/time.ts";
import { PendingTable } from "./_pending.ts";
import type {
  ExpectedFailure,
  SessionTelemetry,
  TracedRequest,
} from "../telemetry/hook.ts";

/** A JSON-RPC result object. */
export type Result = Record<string, unknown>;

/** Per-request options. */
export interface RequestOptions {
  /** Deadline in ms; pushed back by every progress notification. */
  timeoutMs: number;
  /** Absolute cap in ms, not pushed back by progress. */
  totalTimeoutMs?: number | undefined;
  /** When the total deadline started counting (`performance.now()`), if before this request. */
  startedAt?: number | undefined;
  /** Cancels the request (a `notifications/cancelled` is sent). */
  signal?: AbortSignal | undefined;
  /** Attach a progress token; progress reports go here. */
  onProgress?: ((progress: MCPProgress) => void) | undefined;
  /** Send a progress token even without `onProgress`, so progress pushes the deadline back. */
  trackProgress?: boolean;
  /**
   * Keep passing progress for this request's token to `onProgress` after a
   * successful response, until `releaseProgress(token)`: a task's token
   * stays valid for the task's whole life.
   */
  keepProgress?: boolean;
  /**
   * On timeout or abort, settle without telling the server: for a probe
   * whose server may not speak the method at all.
   */
  quiet?: boolean;
  /** Extra HTTP headers for this request (streamable HTTP: `Mcp-Param-*`). */
  headers?: Record<string, string> | undefined;
  /**
   * A request that stays open for the session's life (`subscriptions/listen`):
   * no deadline (`timeoutMs` is ignored), and it keeps no timer alive.
   */
  background?: boolean;
  /** Told the request's JSON-RPC id before it is sent. */
  onId?: (id: RequestId) => void;
  /** The telemetry parent of the request (an `invoke()`'s call span). */
  trace?: unknown;
  /**
   * Names a failure that is an answer, not an error (a probe's refusal),
   * for telemetry; one the client asked for (an abort, its own close) is
   * always recorded as `cancelled`.
   */
  expectedFailure?: ExpectedFailure;
}

/** Callbacks from the session to its owner. */
export interface SessionHandlers {
  /** Every notification except progress and cancellation bookkeeping. */
  onNotification?: (notification: JSONRPCNotification) => void;
  /** Server-initiated requests other than `ping`. Return `undefined` for "method not found". */
  onRequest?: (request: JSONRPCRequest) => Promise<Result> | undefined;
  /**
   * The connection ended. When it was not closed by us, `error` is set:
   * an {@linkcode MCPNotConnectedError} saying so, with the transport's
   * reason (if it gave one) in its message and `cause`.
   */
  onClose?: (error?: Error) => void;
  /** Non-fatal problems (malformed messages, failed replies). */
  onError?: (error: Error) => void;
  /** What a server's error message is masked of before it is cut. */
  secrets?: () => readonly string[];
}

/**
 * A request in flight, as the session keeps it until it settles: what
 * the session fills in when it sends the request, and what settles it.
 * `request()` makes one per request. A caller that settles its own
 * promise extends it (or, sparing V8 a `super()` per request, implements
 * it with these fields of its own) and hands itself to
 * {@linkcode Session.prototype.dispatch}: one object per request instead
 * of two. When that object is also the request's options, the fields
 * the two share (`timeoutMs`, `totalTimeoutMs`, `onProgress`, `signal`;
 * `quiet` and `background`, which then stay false) are written back with
 * the values they have.
 */
export abstract class PendingRequest {
  /** Its JSON-RPC id, given when it is sent. */
  id = 0;
  method = "";
  /** A progress token (the request id) was sent: progress for this id counts. */
  tracked = false;
  /** Its progress listener outlives a successful response (`keepProgress`). */
  keep = false;
  /** No `notifications/cancelled` for it (`quiet`). */
  quiet = false;
  /** Open for the session's life, with no deadline (`background`). */
  background = false;
  timeoutMs = 0;
  totalTimeoutMs: number | undefined = undefined;
  /** Deadline in ms (performance.now clock), moved by progress. */
  deadline = 0;
  /** Absolute cap, or Infinity. */
  hardDeadline = Infinity;
  onProgress: ((progress: MCPProgress) => void) | undefined = undefined;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;

  /** The response's result. Called once, and `reject` not at all. */
  abstract resolve(result: Result): void;
  /**
   * Why there is no result: an error response, a deadline, the signal's
   * reason (which may be any value), the end of the session. Called once,
   * and `resolve` not at all.
   */
  abstract reject(error: unknown): void;
}

/** The pending request of `request()`: it settles a promise. */
class PromiseRequest extends PendingRequest {
  readonly #resolve: (result: Result) => void;
  readonly #reject: (error: unknown) => void;

  constructor(
    resolve: (result: Result) => void,
    reject: (error: unknown) => void,
  ) {
    super();
    this.#resolve = resolve;
    this.#reject = reject;
  }

  resolve(result: Result): void {
    this.#resolve(result);
  }

  reject(error: unknown): void {
    this.#reject(error);
  }
}

const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;
/**
 * Longest server error message kept, in characters (the length of a stderr
 * line in a connection error): longer ones are cut, after their secrets are
 * masked, and end in `…`.
 */
export const MAX_ERROR_MESSAGE_CHARS = 1000;

/** One JSON-RPC conversation over one transport. */
export class Session {
  readonly #transport: MCPTransport;
  readonly #handlers: SessionHandlers;
  readonly #label: string;
  readonly #pending = new PendingTable<PendingRequest>();
  /** How many of `#pending` are background requests, which hold no timer. */
  #background = 0;
  #nextId = 1;
  #closed = false;
  /** Closed by `close()`: what it ended was the client's doing. */
  #closedByUs = false;
  /** The one deadline timer, and when it fires (`performance.now()` clock). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDue = Infinity;
  /** The promise of the last send, and the requests that share it. */
  #lastSend: Promise<void> | undefined;
  #lastSendIds: RequestId[] = [];
  /** Progress listeners kept past their request's response, by token. */
  readonly #kept = new Map<RequestId, (progress: MCPProgress) => void>();
  /**
   * The modern era's per-request `_meta` (protocol version, client
   * capabilities and info, log level), put on every request; none in the
   * 2025 era.
   */
  #envelope: Readonly<Record<string, unknown>> | undefined;
  /** Traces every request, when telemetry is on (set by the connection). */
  telemetry: SessionTelemetry | undefined;

  /**
   * @param transport The channel; its callbacks are taken over.
   * @param label Names the server in error messages.
   * @param handlers Callbacks to the owner.
   */
  constructor(
    transport: MCPTransport,
    label: string,
    handlers: SessionHandlers = {},
  ) {
    this.#transport = transport;
    this.#label = label;
    this.#handlers = handlers;
    transport.onmessage = (message) => this.#receive(message);
    transport.onerror = (error) => {
      if (error instanceof MCPRequestLostError) {
        this.#fail(error.requestId, error);
      } else handlers.onError?.(error);
    };
    transport.onclose = (reason) => this.#end(true, reason);
  }

  /** Tells the transport the protocol version negotiated in `initialize`. */
  setProtocolVersion(version: string): void {
    this.#transport.setProtocolVersion?.(version);
    this.telemetry?.setProtocolVersion(version);
  }

  /**
   * Puts `envelope` into the `_meta` of every later request (the modern
   * era's per-request protocol version, capabilities and client info);
   * `undefined` stops it. Keys the caller's own `_meta` sets win.
   */
  setEnvelope(envelope: Readonly<Record<string, unknown>> | undefined): void {
    this.#envelope = envelope;
  }

  /** The envelope put on every request, if any. */
  get envelope(): Readonly<Record<string, unknown>> | undefined {
    return this.#envelope;
  }

  /** The server's last diagnostic lines, when the transport keeps them. */
  get stderrTail(): readonly string[] | undefined {
    return this.#transport.stderrTail;
  }

  /** What a local server did so far, when the transport says (stdio). */
  get activity(): TransportActivity | undefined {
    return this.#transport.activity;
  }

  /** Values the transport learned that must stay out of messages (OAuth tokens). */
  get secrets(): readonly string[] | undefined {
    return this.#transport.secrets;
  }

  /** The transport's session id, for transports that have one (streamable HTTP). */
  get sessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  /** Whether the session has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Completes an OAuth login through the transport (its `finishAuth`);
   * `undefined` when the transport has no OAuth login.
   */
  finishAuth(callback: MCPAuthorizationCallback): Promise<void> | undefined {
    return this.#transport.finishAuth?.(callback);
  }

  /** Starts the transport. */
  start(): Promise<void> {
    return this.#transport.start();
  }

  /**
   * Sends a request and resolves with its result.
   *
   * @param params Sent as they are; with progress tracking, a progress
   * token is added to their `_meta` in place.
   * @param now The `performance.now()` the caller read just before, so the
   * clock is not read again (on Deno each read is an op); only for a
   * request sent at once, never one sent again later.
   * @throws {MCPProtocolError} The server answered with an error.
   * @throws {MCPTimeoutError} The deadline passed; the server was told to cancel.
   * @throws {MCPNotConnectedError} The connection closed first.
   * @throws The signal's reason, when aborted.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    now?: number,
  ): Promise<Result> {
    return new Promise((resolve, reject) =>
      this.dispatch(
        method,
        params,
        options,
        new PromiseRequest(resolve, reject),
        now,
      )
    );
  }

  /**
   * Sends a request whose outcome goes to `pending`, as
   * {@linkcode Session.prototype.request} would settle its promise: for a
   * caller that settles its own promise when the response is read, with
   * no promise of the session's in between. A request that cannot be sent
   * (the session is closed, the signal aborted) is rejected at once.
   *
   * @param params As for `request()`: the progress token goes in place.
   * @param pending Filled in and kept until the request settles; not
   * pending already.
   * @param now As for `request()`.
   */
  dispatch(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    pending: PendingRequest,
    now?: number,
  ): void {
    if (this.#closed) {
      pending.reject(
        new MCPNotConnectedError(
          `Cannot send "${method}": the connection to MCP server "${this.#label}" is closed`,
        ),
      );
      return;
    }
    const signal = options.signal;
    if (signal?.aborted) {
      pending.reject(signal.reason);
      return;
    }
    const id = this.#nextId++;
    options.onId?.(id);
    const traced = this.telemetry?.start(method, id, params, options.trace);
    if (traced !== undefined) {
      params = traced.params;
      pending = this.#traced(traced, pending, options);
    }
    const tracked = options.onProgress !== undefined ||
      options.trackProgress === true;
    const envelope = this.#envelope;
    if (tracked || envelope !== undefined) {
      // The caller's params are ours to send: the token and the envelope
      // go in place. Without either of them, the envelope is shared as it is.
      params ??= {};
      const meta = params._meta as Record<string, unknown> | undefined;
      params._meta = tracked
        ? envelope === undefined && meta === undefined
          ? { progressToken: id }
          : { ...envelope, ...meta, progressToken: id }
        : meta === undefined
        ? envelope
        : { ...envelope, ...meta };
    }
    const message: JSONRPCRequest = params === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params };
    now ??= performance.now();
    const background = options.background === true;
    pending.method = method;
    pending.tracked = tracked;
    pending.keep = options.keepProgress === true;
    pending.quiet = options.quiet === true;
    pending.background = background;
    pending.timeoutMs = options.timeoutMs;
    pending.totalTimeoutMs = options.totalTimeoutMs;
    pending.deadline = background ? Infinity : now + options.timeoutMs;
    pending.hardDeadline = options.totalTimeoutMs === undefined
      ? Infinity
      : (options.startedAt ?? now) + options.totalTimeoutMs;
    pending.onProgress = options.onProgress;
    pending.signal = signal;
    pending.onAbort = undefined;
    pending.id = id;
    this.#pending.add(pending);
    if (background) this.#background++;
    else this.#schedule(Math.min(pending.deadline, pending.hardDeadline));
    if (signal) {
      pending.onAbort = () =>
        this.#cancel(
          id,
          signal.reason,
          "The request was cancelled by the client",
        );
      signal.addEventListener("abort", pending.onAbort, { once: true });
    }
    let sent: Promise<void>;
    try {
      sent = options.headers === undefined
        ? this.#transport.send(message)
        : this.#transport.send(message, { headers: options.headers });
    } catch (error) {
      // A transport of the user's may throw instead of rejecting: the
      // request fails the same way, and leaves nothing pending.
      sent = Promise.reject(error);
    }
    this.#watchSend(sent, id);
  }

  /**
   * The pending request of a traced one: its outcome is recorded on its
   * span, then handed to `receiver`.
   */
  #traced(
    traced: TracedRequest,
    receiver: PendingRequest,
    options: RequestOptions,
  ): PendingRequest {
    let inner!: PendingRequest;
    const answered = new Promise<Result>((resolve, reject) => {
      inner = new PromiseRequest(resolve, reject);
    });
    traced.watch(
      answered,
      (error) =>
        options.signal?.aborted || this.#closedByUs
          ? "cancelled"
          : options.expectedFailure?.(error),
    ).then(
      (result) => receiver.resolve(result),
      (error) => receiver.reject(error),
    );
    return inner;
  }

  /**
   * Fails request `id` if its send fails. Transports that write the
   * messages of one tick together return one promise for all of them, so
   * one handler is attached per promise, not per request.
   */
  #watchSend(sent: Promise<void>, id: RequestId): void {
    if (sent === this.#lastSend) {
      this.#lastSendIds.push(id);
      return;
    }
    this.#lastSend = sent;
    const ids = this.#lastSendIds = [id];
    const done = () => {
      if (this.#lastSend === sent) this.#lastSend = undefined;
    };
    sent.then(done, (error) => {
      done();
      for (const id of ids) {
        const pending = this.#take(id);
        if (pending) {
          pending.reject(
            this.#closed ? this.#closedError(pending.method) : asError(error),
          );
        }
      }
    });
  }

  /** Sends a notification. */
  async notify(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<void> {
    if (this.#closed) throw this.#closedError(method);
    await this.#transport.send(
      params === undefined
        ? { jsonrpc: "2.0", method }
        : { jsonrpc: "2.0", method, params },
    );
  }

  /**
   * Rejects every pending request and closes the transport. Idempotent, and
   * also awaits the transport after the other side ended the session: a
   * stdio server that closed its stdout may still be being stopped.
   */
  async close(): Promise<void> {
    this.#end(false);
    await this.#transport.close();
  }

  /**
   * Makes sure the deadline timer fires by `due`. One timer serves every
   * pending request: it is set for the earliest deadline and, when it
   * fires, expires what is due and sets itself for the next. A request that
   * settles early leaves it be; a deadline moved by progress is simply found
   * not due yet.
   */
  #schedule(due: number): void {
    if (due >= this.#timerDue) {
      // Unreferenced while the session was idle (see #release): hold again.
      (this.#timer as { ref?: () => unknown } | undefined)?.ref?.();
      return;
    }
    clearTimeout(this.#timer);
    this.#timerDue = due;
    // Past the timers' range it fires early, finds nothing due and waits again.
    this.#timer = setTimeout(
      () => this.#expire(),
      timerMs(due - performance.now()),
    );
  }

  /**
   * No request is pending: the timer may not keep the process alive. Where
   * timers can be unreferenced (Node, Deno) it stays armed, so that the
   * next request, usually made at once, needs no new timer; elsewhere it is
   * cleared.
   */
  #release(): void {
    const timer = this.#timer as { unref?: () => unknown } | undefined;
    if (typeof timer?.unref === "function") timer.unref();
    else this.#stopTimer();
  }

  #stopTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Infinity;
  }

  /** Times out every request whose deadline passed; sets the timer for the next one. */
  #expire(): void {
    this.#timer = undefined;
    this.#timerDue = Infinity;
    // Timers may fire a little early on Node: allow a millisecond.
    const now = performance.now() + 1;
    let next = Infinity;
    for (const pending of this.#pending.values()) {
      const due = Math.min(pending.deadline, pending.hardDeadline);
      if (due > now) next = Math.min(next, due);
      else this.#timeOut(pending.id, pending);
    }
    if (next !== Infinity) this.#schedule(next);
  }

  #timeOut(id: RequestId, pending: PendingRequest): void {
    const total = pending.hardDeadline <= pending.deadline;
    const where = `"${pending.method}" on MCP server "${this.#label}"`;
    this.#cancel(
      id,
      total
        ? new MCPTimeoutError(
          `${where} timed out: it ran past its total deadline of ${pending.totalTimeoutMs} ms; the server was sent notifications/cancelled`,
          pending.totalTimeoutMs!,
        )
        : new MCPTimeoutError(
          `${where} timed out after ${pending.timeoutMs} ms without a response or progress; the server was sent notifications/cancelled`,
          pending.timeoutMs,
        ),
      "Request timed out",
    );
  }

  #cancel(id: RequestId, error: unknown, reason: string): void {
    const pending = this.#take(id);
    if (!pending) return;
    pending.reject(asError(error));
    if (!this.#closed && !pending.quiet) {
      this.notify("notifications/cancelled", { requestId: id, reason }).catch((
        e,
      ) => this.#handlers.onError?.(asError(e)));
    }
  }

  /** Fails one pending request without telling the server (its response was lost in transit). */
  #fail(id: RequestId, error: Error): void {
    this.#take(id)?.reject(error);
  }

  /** Removes a pending request, to settle it; `undefined` when it is not pending. */
  #take(id: RequestId): PendingRequest | undefined {
    const pending = this.#pending.take(id);
    if (!pending) return undefined;
    if (pending.background) this.#background--;
    // Nothing left to time out: no timer may keep the process alive.
    else if (this.#pending.size === this.#background) this.#release();
    if (pending.onAbort) {
      pending.signal?.removeEventListener("abort", pending.onAbort);
    }
    return pending;
  }

  /** What no server text the session hands on may contain. */
  #secrets(): readonly string[] {
    return this.#handlers.secrets?.() ?? [];
  }

  /** A server's error message for ours: secrets masked, then cut. */
  #serverText(text: string): string {
    const clean = redact(text, this.#secrets());
    return clean.length > MAX_ERROR_MESSAGE_CHARS
      ? `${clean.slice(0, MAX_ERROR_MESSAGE_CHARS)}…`
      : clean;
  }

  #receive(message: JSONRPCMessage): void {
    if (this.#closed) return;
    if ("method" in message) {
      if ("id" in message && message.id !== undefined) {
        this.#answer(message as JSONRPCRequest);
      } else {
        this.#notification(message);
      }
      return;
    }
    const id = message.id;
    if (id === undefined) {
      if ("error" in message) {
        // Checked as a response's is: its message may be anything, or null.
        this.#handlers.onError?.(this.#outcome(message, "(no id)") as Error);
      }
      return;
    }
    const pending = this.#take(id);
    if (!pending) return; // late answer to a request that timed out or was cancelled
    const outcome = this.#outcome(message, pending.method);
    if (outcome instanceof Error) pending.reject(outcome);
    else {
      if (pending.keep && pending.onProgress) {
        this.#kept.set(id, pending.onProgress);
      }
      pending.resolve(outcome);
    }
  }

  /**
   * The result of a response, or the error it stands for. A malformed
   * response (`error: null`, neither `result` nor `error`, a result that is
   * not an object) is an error too, so its request settles at once.
   */
  #outcome(message: JSONRPCMessage, method: string): Result | Error {
    const response = message as { result?: unknown; error?: unknown };
    if ("error" in response) {
      const error = response.error;
      if (
        isRecord(error) && Number.isInteger(error.code) &&
        typeof error.message === "string"
      ) {
        return new MCPProtocolError(
          error.code as number,
          this.#serverText(error.message as string),
          redactData(error.data, this.#secrets()),
        );
      }
      return this.#malformed(
        method,
        `an "error" that is not a JSON-RPC error object (${
          kindOf(error)
        }); expected {"code": <integer>, "message": <string>}`,
      );
    }
    if (!("result" in response)) {
      return this.#malformed(method, 'neither "result" nor "error"');
    }
    const result = response.result;
    if (isRecord(result)) return result;
    return this.#malformed(
      method,
      `a "result" that is not an object (${kindOf(result)})`,
    );
  }

  #malformed(method: string, what: string): MCPAdapterError {
    return new MCPAdapterError(
      "invalid_response",
      `MCP server "${this.#label}" answered "${method}" with ${what}. This is a bug in the server; report it to its maintainers.`,
    );
  }

  #notification(notification: JSONRPCNotification): void {
    if (notification.method === "notifications/progress") {
      const params = notification.params ?? {};
      const token = params.progressToken;
      const pending = this.#pending.get(token);
      // Only tokens we sent count: progress for a request sent without one
      // (e.g. tools/list) must not keep it alive past its deadline.
      const listener = pending?.tracked
        ? pending.onProgress
        : this.#kept.get(token);
      if (pending?.tracked) {
        pending.deadline = performance.now() + pending.timeoutMs;
      }
      if (listener && typeof params.progress === "number") {
        const progress: MCPProgress = { progress: params.progress };
        if (typeof params.total === "number") progress.total = params.total;
        if (typeof params.message === "string") {
          progress.message = redact(params.message, this.#secrets());
        }
        try {
          listener(progress);
        } catch (error) {
          this.#handlers.onError?.(asError(error));
        }
      }
      return;
    }
    this.#handlers.onNotification?.(notification);
  }

  /** Stops passing on progress for `token`, kept after its response (`keepProgress`). */
  releaseProgress(token: RequestId): void {
    this.#kept.delete(token);
  }

  #answer(request: JSONRPCRequest): void {
    const reply = (
      body: { result: Result } | { error: { code: number; message: string } },
    ) =>
      this.#transport.send(
        { jsonrpc: "2.0", id: request.id, ...body } as JSONRPCMessage,
      ).catch((error) => {
        // Once the session is over, its unsent replies do not matter.
        if (!this.#closed) this.#handlers.onError?.(asError(error));
      });
    if (request.method === "ping") {
      reply({ result: {} });
      return;
    }
    const handled = this.#handlers.onRequest?.(request);
    if (!handled) {
      reply({
        error: {
          code: METHOD_NOT_FOUND,
          message: `Method not found: ${asText(request.method)}`,
        },
      });
      return;
    }
    handled.then(
      (result) => reply({ result }),
      (error) =>
        reply({
          error: { code: INTERNAL_ERROR, message: asError(error).message },
        }),
    );
  }

  /**
   * Ends the session; `lost` when the other side went away rather than us
   * closing, with the transport's `reason` when it gave one.
   */
  #end(lost: boolean, reason?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedByUs = !lost;
    this.#kept.clear();
    this.#stopTimer();
    const why = reason === undefined ? "" : ` (${reason.message})`;
    const options = reason === undefined ? undefined : { cause: reason };
    // Only what is still pending is rejected: a receiver that settles
    // another request synchronously must not see it rejected twice.
    for (const pending of this.#pending.values()) {
      this.#take(pending.id)?.reject(
        this.#closedError(pending.method, lost, why, options),
      );
    }
    this.#handlers.onClose?.(
      lost
        ? new MCPNotConnectedError(
          `The connection to MCP server "${this.#label}" was lost${why}`,
          options,
        )
        : undefined,
    );
  }

  #closedError(
    method: string,
    lost = false,
    why = "",
    options?: { cause: Error },
  ): MCPNotConnectedError {
    return new MCPNotConnectedError(
      lost
        ? `"${method}" did not complete: the connection to MCP server "${this.#label}" was lost${why}; call reconnect()`
        : `"${method}" did not complete: the connection to MCP server "${this.#label}" is closed`,
      options,
    );
  }
}
