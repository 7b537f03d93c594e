/**
 * The session of the streamable HTTP transport and what lives as long as it:
 * the `Mcp-Session-Id` and `MCP-Protocol-Version` headers, the GET stream
 * for server-initiated messages (reopened with backoff when it drops),
 * recognising an answer that says the server forgot the session, and the
 * DELETE that ends it. Also the backoff and timers that request streams
 * (`_streamable_requests.ts`) reuse. Web standards only. Internal: never
 * exported.
 *
 * @module
 */

import {
  MCPConnectionError,
  MCPInitializeStatusError,
  MCPSessionExpiredError,
  MCPUnusableAnswerError,
} from "../../errors.ts";
import type { HttpClient } from "../_client.ts";
import { mediaType } from "../_headers.ts";
import {
  discardBody,
  type EventReader,
  type EventSourceMessage,
  isTooLarge,
  readBodyStart,
} from "../_body.ts";
import { displayUrl, excerpt } from "../../util/redact.ts";
import { messageTooLarge } from "../limits.ts";
import { timerMs, Timers } from "../../util/time.ts";
import { isModernVersion } from "../../version.ts";

/** The media type of an SSE stream. */
export const EVENT_STREAM = "text/event-stream";
/** Headers the transport sets itself; the configured `headers` may not. */
export const RESERVED_HEADERS = [
  "accept",
  "content-type",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
] as const;

const ACCEPT_BOTH = "application/json, text/event-stream";
/**
 * How servers built on the SDK's example code (server-everything among them)
 * word a 400 for a session they do not know. Deliberately narrow: a 400 is
 * taken for an expired session only when its body says so this way or names
 * the session id we sent, because the request is then sent again.
 */
const STALE_SESSION_400 =
  /no valid session|session not found|unknown session|invalid session|session (?:has )?expired|server not initialized/i;
/** A session id shorter than this is not looked for in a 400 body: it would match by chance. */
const MIN_SESSION_ID_CHARS = 8;

/** How broken SSE streams are reopened. */
export interface Backoff {
  /** Delay before the first attempt, in milliseconds. */
  initialDelayMs: number;
  /** Longest delay between attempts, in milliseconds. */
  maxDelayMs: number;
  /** Each delay is the previous one times this. */
  growFactor: number;
  /** Attempts per broken stream before giving up. */
  maxRetries: number;
}

/**
 * The shortest first delay a server's `retry:` can set, in milliseconds
 * (unless `initialDelayMs` is shorter): `retry: 0` is waited for this long.
 * Low enough to honour the retry a server means (the conformance suite's
 * `sse-retry` asks for 500 ms), high enough that `retry: 0` cannot make a
 * storm; with the attempt budget, a stream that makes no progress is given
 * up after `maxRetries` such waits.
 */
export const RETRY_FLOOR_MS = 250;

/**
 * The delay before reconnection attempt `attempt` (counted from 0 since the
 * stream last made progress), in milliseconds: `initialDelayMs`, or the
 * server's `retry:` raised to {@linkcode RETRY_FLOOR_MS} (or to
 * `initialDelayMs`, if shorter), times `growFactor` per attempt; never
 * more than `maxDelayMs`. A server can slow reconnection down, not speed it
 * past the floor.
 */
export function reconnectDelay(
  backoff: Backoff,
  attempt: number,
  retryMs: number | undefined,
): number {
  const { initialDelayMs, growFactor, maxDelayMs } = backoff;
  const first = retryMs === undefined
    ? initialDelayMs
    : Math.max(retryMs, Math.min(RETRY_FLOOR_MS, initialDelayMs));
  return Math.min(first * growFactor ** attempt, maxDelayMs);
}

/**
 * Whether a stream that ended made progress, so that reconnecting starts a
 * new count of attempts: it delivered a message, or it stayed open at least
 * `maxDelayMs` (and at least {@linkcode RETRY_FLOOR_MS}), as a healthy
 * stream that a proxy cuts now and then does. An event without a message
 * (a bare id, a `retry:`) or a keep-alive is no progress: a server that
 * sends one and hangs up is given up on after `maxRetries` attempts.
 *
 * @param openedAt When the stream's response arrived, on `performance.now()`.
 */
export function madeProgress(
  backoff: Backoff,
  delivered: boolean,
  openedAt: number,
): boolean {
  return delivered ||
    performance.now() - openedAt >=
      Math.max(backoff.maxDelayMs, RETRY_FLOOR_MS);
}

/** Whether an SSE event carries a message (no `event:` field, or `message`). */
export function isMessageEvent(event: EventSourceMessage): boolean {
  return event.event === undefined || event.event === "message";
}

/** What a {@linkcode StreamableSession} needs from its transport. */
export interface StreamableSessionOptions {
  /** The server's MCP endpoint: GET and DELETE go there; error text names it. */
  url: URL;
  /** Sends the requests and supplies the base headers; its secrets are redacted from error text. */
  http: HttpClient;
  /** Backoff for reopening the GET stream. */
  backoff: Backoff;
  /**
   * Delivers the data of a message event of the GET stream; returns
   * whether it held a message (progress).
   */
  onEvent: (data: string) => boolean;
  /** Hands a non-fatal error to the transport's `onerror`; never throws. */
  report: (error: unknown) => void;
}

/**
 * The session id, the protocol version and the header objects built from
 * them (once per change of session, version or credentials: call
 * {@linkcode StreamableSession.rebuild} when the base headers change), and
 * the session's GET stream, retired by generation. The `…Headers` members
 * are stable functions, ready to hand to `HttpClient.request`.
 */
export class StreamableSession {
  readonly #url: URL;
  readonly #http: HttpClient;
  readonly #backoff: Backoff;
  readonly #onEvent: (data: string) => boolean;
  readonly #report: (error: unknown) => void;
  readonly #timers = new Timers();
  #isClosed = false;
  #id: string | undefined;
  #protocolVersion: string | undefined;
  #init: Record<string, string> = {};
  #post: Record<string, string> = {};
  #stream: Record<string, string> = {};
  #delete: Record<string, string> = {};
  /** Bumped to retire the current GET stream. */
  #listenGeneration = 0;
  #listenReader: EventReader | undefined;

  /** Headers of an `initialize` POST: no session id or version yet. */
  readonly initHeaders = (): Record<string, string> => this.#init;
  /** Headers of every other POST. */
  readonly postHeaders = (): Record<string, string> => this.#post;
  /** Headers of a GET for an SSE stream (add `last-event-id` to resume). */
  readonly streamHeaders = (): Record<string, string> => this.#stream;

  /**
   * Starts without a session or GET stream; builds the header objects.
   *
   * @param options The endpoint, HTTP client, backoff and hooks.
   */
  constructor(options: StreamableSessionOptions) {
    this.#url = options.url;
    this.#http = options.http;
    this.#backoff = options.backoff;
    this.#onEvent = options.onEvent;
    this.#report = options.report;
    this.rebuild();
  }

  /** The session id the server assigned, if any. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The protocol version sent as `MCP-Protocol-Version`, once set. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /**
   * Whether requests speak the modern era (2026-07-28 and later): no
   * session, `Mcp-Method` and `Mcp-Name` headers, cancellation by closing
   * the response.
   */
  get modern(): boolean {
    return this.#protocolVersion !== undefined &&
      isModernVersion(this.#protocolVersion);
  }

  /** Takes the session id of an `initialize` answer. */
  adopt(id: string): void {
    this.#id = id;
    this.rebuild();
  }

  /** Sends `version` as `MCP-Protocol-Version` from now on. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.rebuild();
  }

  /** A new `initialize` starts a new session: forgets the old one. */
  reset(): void {
    this.stopListening();
    if (this.#id === undefined && this.#protocolVersion === undefined) return;
    this.#id = undefined;
    this.#protocolVersion = undefined;
    this.rebuild();
  }

  /** Builds the header objects from the base headers, the id and the version. */
  rebuild(): void {
    const base = this.#http.base;
    const session: Record<string, string> = {};
    if (this.#id !== undefined) session["mcp-session-id"] = this.#id;
    if (this.#protocolVersion !== undefined) {
      session["mcp-protocol-version"] = this.#protocolVersion;
    }
    this.#init = {
      ...base,
      accept: ACCEPT_BOTH,
      "content-type": "application/json",
    };
    this.#post = { ...this.#init, ...session };
    this.#stream = { ...base, accept: EVENT_STREAM, ...session };
    this.#delete = { ...base, ...session };
  }

  /**
   * The error for a non-2xx answer, from the start of its body. A 404 to a
   * request that carried a session id, or a 400 whose body says the session
   * is unknown, means the server forgot the session: if it is still the
   * current one, it is cleared and its GET stream retired.
   *
   * @param response The non-2xx answer.
   * @param text The start of its body (`readBodyStart`).
   * @param sent What was sent (`what`, e.g. `POST "tools/call"`) and the
   * session id it carried (`session`), if any.
   * @returns An {@linkcode MCPSessionExpiredError}, an
   * {@linkcode MCPInitializeStatusError} (400, 404 or 405 to `initialize`)
   * or an {@linkcode MCPConnectionError}; never throws.
   */
  statusError(
    response: Response,
    text: string,
    sent: { what: string; session: string | undefined; initialize: boolean },
  ): Error {
    const { what, session } = sent;
    const status = response.status;
    if (
      session !== undefined &&
      (status === 404 || (status === 400 && namesStaleSession(text, session)))
    ) {
      if (this.#id === session) {
        this.#id = undefined;
        this.stopListening();
        this.rebuild();
      }
      return new MCPSessionExpiredError(
        `MCP server at ${
          displayUrl(this.#url)
        } no longer knows this session (HTTP ${status} to ${what}: ${
          excerpt(text, this.#http.secrets)
        }); the message was not processed. Send "initialize" to start a new session, then send it again.`,
      );
    }
    const hint = status === 401 || status === 403
      ? ' Check the credentials in "headers".'
      : status === 404
      ? ' Check that "url" is the server\'s MCP endpoint.'
      : "";
    const message = `MCP server at ${
      displayUrl(this.#url)
    } answered ${what} with HTTP ${status}${
      response.statusText ? ` ${response.statusText}` : ""
    }: ${excerpt(text, this.#http.secrets)}.${hint}`;
    // The statuses after which the specification's backwards-compatibility
    // procedure tries the legacy SSE transport (after `initialize`), or
    // `initialize` (after the modern probe, `server/discover`).
    return sent.initialize &&
        (status === 400 || status === 404 || status === 405)
      ? new MCPInitializeStatusError(message, status)
      : new MCPUnusableAnswerError(message);
  }

  /** Opens the GET stream for server-initiated messages (a new generation). */
  listen(): void {
    this.stopListening();
    void this.#openListenStream(
      this.#listenGeneration,
      undefined,
      0,
      undefined,
    );
  }

  /** Retires the GET stream, whether open or waiting to be reopened. */
  stopListening(): void {
    this.#listenGeneration++;
    this.#listenReader?.cancel().catch(() => {});
    this.#listenReader = undefined;
  }

  async #openListenStream(
    generation: number,
    lastEventId: string | undefined,
    attempts: number,
    retryMs: number | undefined,
  ): Promise<void> {
    const current = () =>
      generation === this.#listenGeneration && !this.#closed();
    if (!current()) return;
    const resumeFrom = lastEventId;
    const headers = resumeFrom === undefined
      ? this.streamHeaders
      : () => ({ ...this.#stream, "last-event-id": resumeFrom });
    let response: Response;
    try {
      response = await this.#http.request("GET", this.#url, headers);
    } catch (error) {
      if (current()) {
        this.#relisten(generation, lastEventId, attempts, retryMs, error);
      }
      return;
    }
    if (!current() || response.status === 405) {
      discardBody(response); // 405: the server offers no GET stream
      return;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (!response.ok || type !== EVENT_STREAM || response.body === null) {
      const text = await readBodyStart(response);
      const error = new MCPConnectionError(
        `MCP server at ${
          displayUrl(this.#url)
        } refused the GET stream for server-initiated messages: HTTP ${response.status} (${
          type ?? "no content type"
        }): ${excerpt(text, this.#http.secrets)}`,
      );
      if (attempts > 0 && (response.status >= 500 || response.status === 429)) {
        this.#relisten(generation, lastEventId, attempts, retryMs, error);
      } else if (current()) this.#report(error);
      return;
    }
    const openedAt = performance.now();
    const reader = this.#http.events(response.body, (ms) => retryMs = ms);
    this.#listenReader = reader;
    let delivered = false;
    let failure: unknown;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.id) lastEventId = value.id;
        if (
          value.data !== "" && isMessageEvent(value) &&
          this.#onEvent(value.data)
        ) delivered = true;
      }
    } catch (error) {
      failure = error;
    }
    if (madeProgress(this.#backoff, delivered, openedAt)) attempts = 0;
    if (this.#listenReader === reader) this.#listenReader = undefined;
    reader.cancel().catch(() => {});
    if (current() && isTooLarge(failure)) {
      // Reopening would bring the same event again.
      this.#report(
        messageTooLarge(
          `MCP server at ${displayUrl(this.#url)}`,
          this.#http.maxMessageBytes,
          "its GET stream was closed; server notifications outside requests are missed until the next connect",
        ),
      );
      return;
    }
    if (current()) {
      this.#relisten(generation, lastEventId, attempts, retryMs, failure);
    }
  }

  #relisten(
    generation: number,
    lastEventId: string | undefined,
    attempts: number,
    retryMs: number | undefined,
    cause: unknown,
  ): void {
    if (attempts >= this.#backoff.maxRetries) {
      this.#report(
        new MCPConnectionError(
          `The GET stream for server-initiated messages from MCP server at ${
            displayUrl(this.#url)
          } broke and could not be reopened after ${attempts} attempt(s); requests still work, but server notifications outside them are missed until the next connect.`,
          cause === undefined ? undefined : { cause },
        ),
      );
      return;
    }
    this.#timers.later(
      reconnectDelay(this.#backoff, attempts, retryMs),
      () =>
        void this.#openListenStream(
          generation,
          lastEventId,
          attempts + 1,
          retryMs,
        ),
    );
  }

  /**
   * Stops the GET stream for good: no reopening, no new one. Its reader
   * ends when the transport aborts its fetches.
   */
  close(): void {
    this.#isClosed = true;
    this.#timers.clear();
    this.#listenGeneration++;
  }

  /**
   * Ends the session with a DELETE, if there is one (a 405 or any failure is
   * ignored), and forgets its id.
   *
   * @param timeoutMs How long to wait for the DELETE, in milliseconds.
   */
  async end(timeoutMs: number): Promise<void> {
    if (this.#id === undefined) return;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timerMs(timeoutMs));
    try {
      const response = await this.#http.request(
        "DELETE",
        this.#url,
        () => this.#delete,
        undefined,
        controller.signal,
      );
      discardBody(response);
    } catch {
      // Best effort: the server drops idle sessions anyway.
    } finally {
      clearTimeout(timer);
      this.#id = undefined;
    }
  }

  /** A method, not a field read, so TypeScript does not narrow across awaits. */
  #closed(): boolean {
    return this.#isClosed;
  }
}

/** Whether a 400 body says the server does not know the session `sent`. */
function namesStaleSession(body: string, sent: string): boolean {
  return STALE_SESSION_400.test(body) ||
    (sent.length >= MIN_SESSION_ID_CHARS && body.includes(sent));
}
