/**
 * Requests whose responses are still expected, and the delivery of the
 * server's messages: a request's SSE stream is read, resumed with
 * `Last-Event-ID` when it breaks before the response, and reported lost
 * when that fails. Web standards only. Internal: never exported.
 *
 * @module
 */

import { MCPRequestLostError, MCPUnusableAnswerError } from "../../errors.ts";
import type { JSONRPCMessage, RequestId } from "../transport.ts";
import type { HttpClient } from "../_client.ts";
import { mediaType } from "../_headers.ts";
import {
  discardBody,
  type EventReader,
  type EventSourceMessage,
  isMessageObject,
  isTooLarge,
  notAMessage,
  parseEventData,
  parseEvents,
  readBodyStart,
} from "../_body.ts";
import { displayUrl, excerpt } from "../../util/redact.ts";
import {
  type Backoff,
  EVENT_STREAM,
  isMessageEvent,
  madeProgress,
  reconnectDelay,
  type StreamableSession,
} from "./session.ts";
import { Timers } from "../../util/time.ts";

/** What {@linkcode RequestStreams} needs from its transport. */
export interface RequestStreamsOptions {
  /** The server's MCP endpoint: resuming GETs go there; error text names it. */
  url: URL;
  /** Sends the GETs; its secrets are redacted from error text. */
  http: HttpClient;
  /** The current session id and the GET headers. */
  session: StreamableSession;
  /** Backoff for resuming broken streams. */
  backoff: Backoff;
  /** Hands one message to the transport's `onmessage`; may throw. */
  onMessage: (message: JSONRPCMessage) => void;
  /** Hands a non-fatal error to the transport's `onerror`; never throws. */
  report: (error: unknown) => void;
}

/**
 * What parsed data held: no message, messages but not the response awaited,
 * or that response.
 */
type Delivery = "none" | "delivered" | "answered";

/** A request whose response is still expected on an SSE stream. */
export interface RequestStream {
  id: RequestId;
  method: string;
  /** The session the request was sent in; a resume into another session is pointless. */
  session: string | undefined;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  attempts: number;
  answered: boolean;
  /** Set when the request was cancelled or the transport closed: stop quietly. */
  done: boolean;
  /** Set once its answer is an SSE stream, being read. */
  following: boolean;
  reader: EventReader | undefined;
  /** Closes the request's response (the modern era's cancellation), when set. */
  abort?: (() => void) | undefined;
}

/**
 * The requests whose responses are still expected, by id. Each stream that
 * breaks before its response is resumed with backoff, or given up and
 * reported as {@linkcode MCPRequestLostError}. Also delivers every message
 * (from a JSON answer, a request's stream or the GET stream) to `onMessage`.
 */
export class RequestStreams {
  readonly #url: URL;
  readonly #http: HttpClient;
  readonly #session: StreamableSession;
  readonly #backoff: Backoff;
  readonly #onMessage: (message: JSONRPCMessage) => void;
  readonly #report: (error: unknown) => void;
  readonly #streams = new Map<RequestId, RequestStream>();
  readonly #timers = new Timers();
  #isClosed = false;

  /**
   * Starts with no request.
   *
   * @param options The endpoint, HTTP client, session, backoff and hooks.
   */
  constructor(options: RequestStreamsOptions) {
    this.#url = options.url;
    this.#http = options.http;
    this.#session = options.session;
    this.#backoff = options.backoff;
    this.#onMessage = options.onMessage;
    this.#report = options.report;
  }

  /**
   * Registers a request before its POST, so a cancellation sent meanwhile
   * finds it.
   *
   * @returns The request's stream record; pass it to `settle()` once the
   * POST is answered.
   */
  track(
    id: RequestId,
    request: { method: string; session: string | undefined },
  ): RequestStream {
    const stream: RequestStream = {
      id,
      method: request.method,
      session: request.session,
      lastEventId: undefined,
      retryMs: undefined,
      attempts: 0,
      answered: false,
      done: false,
      following: false,
      reader: undefined,
    };
    this.#streams.set(id, stream);
    return stream;
  }

  /** Forgets a request once its POST is over, unless its SSE stream is being read. */
  settle(stream: RequestStream): void {
    if (!stream.following) this.#streams.delete(stream.id);
  }

  /** Stops following a cancelled request's stream. */
  cancel(requestId: unknown): void {
    const stream = this.#streams.get(requestId as RequestId);
    if (stream === undefined) return;
    this.#streams.delete(stream.id);
    stream.done = true;
    stream.reader?.cancel().catch(() => {});
    stream.abort?.();
  }

  /**
   * Delivers the JSON-RPC error a 4xx answer's body holds for a request,
   * when it holds one for it.
   *
   * @param anyCode Any error code counts; otherwise only the modern era's
   * -32020 to -32022, so a 2025-era answer keeps its own handling.
   * @returns Whether it was delivered.
   */
  deliverError(stream: RequestStream, text: string, anyCode: boolean): boolean {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return false;
    }
    const error = (data as { error?: { code?: unknown } } | null)?.error;
    const code = error?.code;
    if (
      typeof code !== "number" || (data as { id?: unknown }).id !== stream.id ||
      (!anyCode && (code > -32020 || code < -32022))
    ) return false;
    return this.#dispatch(data, stream.id) === "answered";
  }

  /**
   * Reads the SSE stream that answered a request's POST; resumes it if it
   * ends before the response. A body of known size was composed whole
   * before it was sent and is read whole, as a JSON answer is (if it
   * breaks, no event of it is delivered); any other is read event by event.
   *
   * @returns Settles when the stream is done with, resumptions included.
   */
  follow(stream: RequestStream, response: Response): Promise<void> {
    stream.following = true;
    const whole = this.#http.readWhole(response);
    return whole === undefined
      ? this.#read(stream, response, false)
      : this.#readWhole(stream, whole);
  }

  /**
   * Delivers the JSON answer to a request's POST; reports the request lost
   * if the answer held no response to it.
   *
   * @param text The answer's body.
   * @throws {MCPUnusableAnswerError} If `text` is not JSON (an `MCPConnectionError`).
   */
  deliverJson(stream: RequestStream, text: string): void {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new MCPUnusableAnswerError(
        `MCP server at ${displayUrl(this.#url)} answered POST ${
          JSON.stringify(stream.method)
        } with invalid JSON: ${excerpt(text, this.#http.secrets)}`,
      );
    }
    if (this.#dispatch(data, stream.id) !== "answered") {
      this.#lose(stream, "the server's JSON answer held no response to it");
    }
  }

  /**
   * Delivers the data of a message event of the GET stream.
   *
   * @returns Whether it held a message.
   */
  deliverEvent(data: string): boolean {
    return this.#dispatchText(data, undefined) !== "none";
  }

  /** Reads a request's SSE stream; resumes it if it ends before the response. */
  async #read(
    stream: RequestStream,
    body: ReadableStream<Uint8Array> | Response,
    resumed: boolean,
  ): Promise<void> {
    const openedAt = performance.now();
    const reader = this.#http.events(body, (ms) => stream.retryMs = ms);
    stream.reader = reader;
    if (stream.done) reader.cancel().catch(() => {});
    let delivered = false;
    let failure: unknown;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (this.#take(stream, value)) delivered = true;
        // A resumed stream may be held open by the server: let it go. A
        // POST stream ends by itself; reading it to the end keeps the
        // connection reusable.
        if (stream.answered && resumed) break;
      }
    } catch (error) {
      failure = error;
    }
    if (resumed || failure !== undefined) reader.cancel().catch(() => {});
    // Read the clock only for a stream that went without its answer.
    if (!stream.answered) {
      this.#ended(
        stream,
        failure,
        madeProgress(this.#backoff, delivered, openedAt),
      );
    }
  }

  /** Reads the whole body of a request's SSE answer and delivers its events. */
  async #readWhole(
    stream: RequestStream,
    body: Promise<string>,
  ): Promise<void> {
    let delivered = false;
    let failure: unknown;
    try {
      const { events, retryMs } = await parseEvents(await body);
      if (retryMs !== undefined) stream.retryMs = retryMs;
      // Until it is cancelled, maybe by what one of them delivered.
      for (let i = 0; i < events.length && !stream.done; i++) {
        if (this.#take(stream, events[i]!)) delivered = true;
      }
    } catch (error) {
      failure = error;
    }
    this.#ended(stream, failure, delivered);
  }

  /**
   * Delivers one event of a request's stream, and notes its id.
   *
   * @returns Whether it held a message.
   */
  #take(stream: RequestStream, event: EventSourceMessage): boolean {
    if (event.id) stream.lastEventId = event.id;
    if (event.data === "" || !isMessageEvent(event)) return false;
    const delivery = this.#dispatchText(event.data, stream.id);
    if (delivery === "answered") {
      stream.answered = true;
      this.#streams.delete(stream.id);
    }
    return delivery !== "none";
  }

  /**
   * A request's stream ended, or failed with `failure`: unless the request
   * is answered or dropped, it is resumed, or given up.
   *
   * @param progress Whether the stream made progress (see `madeProgress`):
   * the attempts to resume start counting again.
   */
  #ended(stream: RequestStream, failure: unknown, progress: boolean): void {
    if (stream.answered || stream.done || this.#closed()) return;
    if (isTooLarge(failure)) {
      // Resuming would bring the same event again.
      this.#lose(
        stream,
        `the server sent an event larger than maxMessageBytes (${
          this.#http.maxMessageBytes.toLocaleString("en-US")
        } characters); raise the maxMessageBytes option if it legitimately sends messages this large`,
      );
      return;
    }
    if (progress) stream.attempts = 0;
    this.#resume(stream, failure);
  }

  /** Schedules the next resumption attempt, or gives the request up. */
  #resume(stream: RequestStream, cause: unknown): void {
    if (stream.lastEventId === undefined) {
      this.#lose(
        stream,
        "its SSE stream ended before the response and the server sent no event id to resume from",
        cause,
      );
      return;
    }
    if (stream.attempts >= this.#backoff.maxRetries) {
      this.#lose(
        stream,
        `its SSE stream broke and ${stream.attempts} attempt(s) to resume it failed`,
        cause,
      );
      return;
    }
    const delayMs = reconnectDelay(
      this.#backoff,
      stream.attempts,
      stream.retryMs,
    );
    stream.attempts++;
    this.#timers.later(delayMs, () => void this.#reopen(stream));
  }

  async #reopen(stream: RequestStream): Promise<void> {
    if (stream.done || this.#closed()) return;
    if (stream.session !== this.#session.id) {
      this.#lose(
        stream,
        "its session ended before the stream could be resumed",
      );
      return;
    }
    const lastEventId = stream.lastEventId!;
    let response: Response;
    try {
      response = await this.#http.request(
        "GET",
        this.#url,
        () => ({
          ...this.#session.streamHeaders(),
          "last-event-id": lastEventId,
        }),
      );
    } catch (error) {
      if (!stream.done && !this.#closed()) this.#resume(stream, error);
      return;
    }
    if (stream.done || this.#closed()) {
      discardBody(response);
      return;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (!response.ok || type !== EVENT_STREAM || response.body === null) {
      const text = await readBodyStart(response);
      const reason = `resuming its SSE stream got HTTP ${response.status} (${
        type ?? "no content type"
      }): ${excerpt(text, this.#http.secrets)}`;
      if (response.status >= 500 || response.status === 429) {
        this.#resume(stream, new Error(reason));
      } else this.#lose(stream, reason);
      return;
    }
    await this.#read(stream, response.body, true);
  }

  #lose(stream: RequestStream, reason: string, cause?: unknown): void {
    this.#streams.delete(stream.id);
    stream.done = true;
    this.#report(
      new MCPRequestLostError(
        stream.id,
        `The response to "${stream.method}" (request ${
          JSON.stringify(stream.id)
        }) from MCP server at ${
          displayUrl(this.#url)
        } was lost: ${reason}. The call may or may not have run.`,
        cause === undefined ? undefined : { cause },
      ),
    );
  }

  /** Delivers parsed JSON, one message or a batch. */
  #dispatch(data: unknown, awaiting: RequestId | undefined): Delivery {
    if (!Array.isArray(data)) return this.#deliver(data, awaiting);
    let delivery: Delivery = "none";
    for (const item of data) {
      const one = this.#deliver(item, awaiting);
      if (one === "answered" || delivery === "none") delivery = one;
    }
    return delivery;
  }

  /** Parses an event's data and delivers it. */
  #dispatchText(data: string, awaiting: RequestId | undefined): Delivery {
    const parsed = parseEventData(data, this.#url, this.#http.secrets);
    if (parsed instanceof Error) {
      this.#report(parsed);
      return "none";
    }
    return this.#dispatch(parsed, awaiting);
  }

  #deliver(message: unknown, awaiting: RequestId | undefined): Delivery {
    if (!isMessageObject(message)) {
      this.#report(notAMessage(message, this.#url, this.#http.secrets));
      return "none";
    }
    const answered = awaiting !== undefined &&
      (message as { id?: unknown }).id === awaiting &&
      ("result" in message || "error" in message);
    try {
      this.#onMessage(message as JSONRPCMessage);
    } catch (error) {
      this.#report(error);
    }
    return answered ? "answered" : "delivered";
  }

  /**
   * Stops for good: pending resumptions are cancelled and every request is
   * dropped quietly. Readers end when the transport aborts its fetches.
   */
  close(): void {
    this.#isClosed = true;
    this.#timers.clear();
    for (const stream of this.#streams.values()) stream.done = true;
    this.#streams.clear();
  }

  /** A method, not a field read, so TypeScript does not narrow across awaits. */
  #closed(): boolean {
    return this.#isClosed;
  }
}
