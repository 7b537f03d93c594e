/**
 * HTTP plumbing shared by the remote transports: header checks, the
 * authorization retry, same-origin redirects, SSE parsing and error text.
 * Web standards only. Internal.
 *
 * @module
 */

import type {
  EventSourceMessage,
  EventSourceParser,
  ParserConfig,
} from "eventsource-parser";
import { errorMessage } from "../_util/errors.ts";
import { concatBytes } from "../_util/bytes.ts";
import { checkMaxMessageBytes, messageTooLarge } from "./_limits.ts";
import {
  displayUrl,
  excerpt,
  mergeSecrets,
  redact,
  secretsOf,
} from "../_util/redact.ts";
import type { JSONRPCMessage, MCPAuthorizationCallback } from "./transport.ts";
import {
  type AuthHooks,
  type OAuthClientProviderLike,
  oauthHooks,
} from "./oauth.ts";
import {
  MCPAdapterError,
  MCPConfigError,
  MCPConnectionError,
} from "../errors.ts";

export type { EventSourceMessage };

/**
 * Called when the server answers 401, or 403 with `insufficient_scope`.
 * Resolves `true` once new credentials are in place: the transport then
 * fetches headers again through `getHeaders` and retries the request.
 */
export type AuthorizeHook = (
  response: Response,
  signal?: AbortSignal,
) => Promise<boolean>;

/** Supplies extra headers (e.g. `Authorization`) before every request. */
export type HeadersHook = () => Promise<Record<string, string>>;

/** The options both remote transports share. */
export interface HttpOptions {
  url: string | URL;
  headers?: Record<string, string> | undefined;
  fetch?: typeof fetch | undefined;
  authorize?: AuthorizeHook | undefined;
  getHeaders?: HeadersHook | undefined;
  authProvider?: OAuthClientProviderLike | undefined;
  maxMessageBytes?: number | undefined;
}

/** How much of an error body is read for its excerpt. */
const EXCERPT_READ_BYTES = 4096;
const MAX_REDIRECTS = 5;
/** Authorizations one request may run before its refusal is returned. */
const MAX_AUTH_ROUNDS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const decoder = new TextDecoder();
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_HEADER_VALUE = /[\0\r\n]/;

/** The `type/subtype` of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | null): string | undefined {
  if (header === null) return undefined;
  const semicolon = header.indexOf(";");
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim()
    .toLowerCase();
  return type === "" ? undefined : type;
}

/**
 * Why a fetch failed, with its cause: Node's fetch says only "fetch failed"
 * and keeps the reason ("connect ECONNREFUSED 127.0.0.1:3001") in `cause`.
 */
export function fetchFailure(error: unknown): string {
  const message = errorMessage(error);
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause === undefined || cause === null) return message;
  const detail = cause instanceof Error
    ? cause.message || (cause as { code?: string }).code
    : String(cause);
  return detail && !message.includes(detail)
    ? `${message} (${detail})`
    : message;
}

/** Parses and checks the configured server URL. */
export function serverUrl(url: unknown, transport: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url as string | URL);
  } catch {
    parsed = undefined;
  }
  if (
    parsed === undefined ||
    (parsed.protocol !== "http:" && parsed.protocol !== "https:")
  ) {
    throw new MCPConfigError(
      "url",
      `${transport} needs an absolute http(s) "url" such as "https://example.com/mcp", got ${
        typeof url === "string" ? JSON.stringify(url) : typeof url
      }.`,
    );
  }
  return parsed;
}

/**
 * Checks the configured headers and returns them with lower-cased names.
 * Messages name the header, never its value.
 */
export function checkHeaders(
  headers: Record<string, string> | undefined,
  reserved: readonly string[],
  transport: string,
): Record<string, string> {
  const checked: Record<string, string> = {};
  if (headers === undefined) return checked;
  if (headers === null || typeof headers !== "object") {
    throw new MCPConfigError(
      "headers",
      `${transport}: "headers" must be an object of header names to string values.`,
    );
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      throw new MCPConfigError(
        "headers",
        `${transport}: ${
          JSON.stringify(name)
        } is not a valid HTTP header name; use letters, digits and dashes.`,
      );
    }
    const key = name.toLowerCase();
    if (typeof value !== "string" || BAD_HEADER_VALUE.test(value)) {
      throw new MCPConfigError(
        "headers",
        `${transport}: the value of header "${name}" must be a string without line breaks or NUL characters.`,
      );
    }
    if (reserved.includes(key)) {
      throw new MCPConfigError(
        "headers",
        `${transport}: header "${name}" is managed by the transport; remove it from "headers".`,
      );
    }
    checked[key] = value;
  }
  return checked;
}

/**
 * The JSON in an SSE event's data, or an `Error` (returned, for the caller
 * to report) quoting what the server at `url` sent instead.
 */
export function parseEventData(
  data: string,
  url: URL,
  secrets: readonly string[],
): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return new Error(
      `MCP server at ${displayUrl(url)} sent an SSE event that is not JSON: ${
        excerpt(data, secrets)
      }`,
    );
  }
}

/** Whether `value` can be a JSON-RPC message: an object, not an array. */
export function isMessageObject(value: unknown): value is JSONRPCMessage {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The error to report for parsed data that is not a JSON-RPC message object. */
export function notAMessage(
  value: unknown,
  url: URL,
  secrets: readonly string[],
): Error {
  return new Error(
    `MCP server at ${
      displayUrl(url)
    } sent something that is not a JSON-RPC message object: ${
      excerpt(JSON.stringify(value) ?? "", secrets)
    }`,
  );
}

/** The first few KiB of a body as text; the rest is discarded. Never throws. */
export async function readBodyStart(response: Response): Promise<string> {
  const body = response.body;
  if (body === null || body.locked) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < EXCERPT_READ_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A broken body still leaves what was read.
  }
  reader.cancel().catch(() => {});
  return text;
}

/** Releases a body we do not read. */
export function discardBody(response: Response): void {
  const body = response.body;
  if (body !== null && !body.locked) body.cancel().catch(() => {});
}

/**
 * Whether SSE bodies are read into a buffer of our own (a BYOB reader)
 * rather than in the chunks the runtime allocates. On Deno that made SSE
 * answers 1.3–1.5× faster (64 concurrent calls, `bench/client_bench.ts`);
 * on Node 20 it made them ~10% slower, so there, and wherever the runtime
 * is not known, default reads stay. `navigator.userAgent` is the web
 * standard way to ask; Deno's is `Deno/<version>`.
 */
const OWN_READ_BUFFER = (globalThis as { navigator?: { userAgent?: unknown } })
  .navigator?.userAgent?.toString().startsWith("Deno/") === true;
/**
 * A BYOB reader's first buffer: enough for most answers, cheap to allocate
 * per body. A read that fills it makes the next buffer 8× larger, up to
 * {@linkcode READ_BUFFER_MAX_BYTES} (the chunk size of Deno's default reads).
 */
const READ_BUFFER_BYTES = 8 * 1024;
const READ_BUFFER_MAX_BYTES = 64 * 1024;

/** The SSE parser, loaded with the first event stream: JSON-only servers never need it. */
let sseParser: typeof import("eventsource-parser") | undefined;

/**
 * The events of an SSE body, read on demand: the reader shape of a web
 * stream of events (`read()`, `cancel()`), without the two transform
 * streams a `pipeThrough` chain would put on every chunk. An event larger
 * than `maxBufferSize` characters makes `read()` reject (see
 * {@linkcode isTooLarge}).
 */
export class EventReader {
  readonly #body:
    | ReadableStreamDefaultReader<Uint8Array>
    | ReadableStreamBYOBReader
    | undefined;
  /** A body of known length, read whole on the first `read()`. */
  #whole: Response | undefined;
  /** The buffer the next read fills, with a BYOB reader. */
  #buffer: Uint8Array<ArrayBuffer> | undefined;
  /** Made on the first streamed read: a body read whole needs none. */
  #decoder: TextDecoder | undefined;
  readonly #callbacks: ParserConfig;
  /** Made on the first read: `eventsource-parser` loads with the first SSE body. */
  #parser: EventSourceParser | undefined;
  #queue: EventSourceMessage[] = [];
  #head = 0;
  #failure: unknown;
  #ended = false;

  /**
   * @param source The SSE body, or a response whose body it is. A response
   * with a `Content-Length` of at most `maxBufferSize` is read whole, in
   * one native read: its server had the whole body before sending it, so
   * streaming it would deliver nothing sooner.
   * @param maxBufferSize The longest event, in characters.
   * @param onRetry Receives each `retry:` field.
   * @param onComment Receives each comment line (keep-alives).
   */
  constructor(
    source: ReadableStream<Uint8Array> | Response,
    maxBufferSize: number,
    onRetry?: (ms: number) => void,
    onComment?: () => void,
  ) {
    let body: ReadableStream<Uint8Array> | null;
    if (source instanceof Response) {
      const length = source.headers.get("content-length");
      if (length !== null && Number(length) <= maxBufferSize) {
        this.#whole = source;
        body = null;
      } else body = source.body;
    } else body = source;
    if (body === null) this.#body = undefined;
    else {
      let byob: ReadableStreamBYOBReader | undefined;
      if (OWN_READ_BUFFER) {
        try {
          byob = body.getReader({ mode: "byob" });
        } catch {
          byob = undefined; // not a byte stream (a custom fetch)
        }
      }
      if (byob === undefined) this.#body = body.getReader();
      else {
        this.#body = byob;
        this.#buffer = new Uint8Array(READ_BUFFER_BYTES);
      }
    }
    this.#callbacks = {
      onEvent: (event) => this.#queue.push(event),
      onRetry,
      onComment,
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") this.#failure = error;
      },
      maxBufferSize,
    };
  }

  /** The next event, or `done` at the end of the body. */
  async read(): Promise<ReadableStreamReadResult<EventSourceMessage>> {
    const parser = this.#parser ??
      (this.#parser = (sseParser ??= await import("eventsource-parser"))
        .createParser(this.#callbacks));
    for (;;) {
      if (this.#head < this.#queue.length) {
        const value = this.#queue[this.#head++]!;
        if (this.#head === this.#queue.length) {
          this.#queue = [];
          this.#head = 0;
        }
        return { value, done: false };
      }
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#ended) return { value: undefined, done: true };
      const whole = this.#whole;
      if (whole !== undefined) {
        this.#whole = undefined;
        const text = await whole.text();
        if (this.#ended) continue; // cancelled meanwhile
        this.#ended = true;
        parser.feed(text);
        continue;
      }
      const buffer = this.#buffer;
      const { value, done } = buffer === undefined
        ? await (this.#body as ReadableStreamDefaultReader<Uint8Array>).read()
        : await (this.#body as ReadableStreamBYOBReader).read(buffer);
      if (done) this.#ended = true;
      else {
        parser.feed(
          (this.#decoder ??= new TextDecoder()).decode(value, { stream: true }),
        );
        // The read took the buffer over; the next one fills it again, or a
        // larger one when this one came back full.
        if (buffer !== undefined) {
          this.#buffer = value.byteLength === value.buffer.byteLength &&
              value.byteLength < READ_BUFFER_MAX_BYTES
            ? new Uint8Array(value.byteLength * 8)
            : new Uint8Array(value.buffer as ArrayBuffer);
        }
      }
    }
  }

  /** Stops reading and releases the body. */
  cancel(): Promise<void> {
    this.#ended = true;
    this.#queue = [];
    this.#head = 0;
    const whole = this.#whole;
    this.#whole = undefined;
    if (this.#body !== undefined) return this.#body.cancel();
    // A whole read under way ends by itself (the body is of known length),
    // or with the transport's close signal.
    if (whole !== undefined) discardBody(whole);
    return Promise.resolve();
  }
}

/** Whether an {@linkcode EventReader} failed because an event passed `maxMessageBytes`. */
export function isTooLarge(error: unknown): boolean {
  return (error as { type?: unknown } | null)?.type ===
    "max-buffer-size-exceeded";
}

/** Whether a response asks for (more) authorization. */
function wantsAuthorization(response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 &&
    (response.headers.get("www-authenticate") ?? "").includes(
      "insufficient_scope",
    );
}

/**
 * One transport's HTTP client: the fetch to use, the close signal, the
 * merged base headers, and the authorization retry.
 */
export class HttpClient {
  /**
   * Aborted by {@linkcode HttpClient.prototype.abort} (the transport's
   * `close()`); the requests without a signal of their own carry it.
   */
  readonly #controller = new AbortController();
  /** The controllers of the requests in flight that have their own. */
  readonly #flights = new Set<AbortController>();
  /** Configured headers plus authorization headers, lower-cased. Replaced, never mutated. */
  base: Record<string, string>;
  /** Called after `base` changed, so the transport rebuilds its derived header objects. */
  onBaseChange: () => void = () => {};

  readonly #fetch: typeof fetch;
  readonly #configured: Record<string, string>;
  readonly #auth: AuthHooks;
  readonly #transport: string;
  /** The largest body or SSE event a server may send, in bytes (events: characters). */
  readonly maxMessageBytes: number;
  /** Longest first. Only grows: a token replaced by a refresh stays secret. */
  #secrets: string[] = [];
  #authorizing: Promise<boolean> | undefined;
  /** The last `getHeaders()` answer, to notice a new token. */
  #extra = "{}";

  constructor(
    options: HttpOptions,
    reserved: readonly string[],
    transport: string,
  ) {
    this.#transport = transport;
    this.#configured = checkHeaders(options.headers, reserved, transport);
    this.base = this.#configured;
    this.#addSecrets(this.#configured);
    const injected = options.fetch;
    if (injected !== undefined && typeof injected !== "function") {
      throw new MCPConfigError(
        "fetch",
        `${transport}: "fetch" must be a function like globalThis.fetch.`,
      );
    }
    // Resolved per call, and never called as a method: some runtimes reject a
    // fetch whose `this` is not the global object.
    this.#fetch = injected ??
      ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const provider = options.authProvider;
    this.#auth = provider
      ? oauthHooks(provider, String(options.url), options.fetch)
      : options;
    this.maxMessageBytes = checkMaxMessageBytes(
      options.maxMessageBytes,
      transport,
    );
  }

  /**
   * A signal of its own for one request, aborted with everything else by
   * {@linkcode HttpClient.prototype.abort}; hand it back with `land()` once
   * the response body is read or discarded. Frequent requests (POSTs) take
   * one: Node's `fetch` leaves a listener on the signal it is given until
   * the request is garbage collected, so thousands of calls carrying the one
   * long-lived signal would pile up listeners on it (and Node would print
   * MaxListenersExceededWarning).
   */
  flight(): AbortController {
    const flight = new AbortController();
    const closed = this.#controller.signal;
    if (closed.aborted) flight.abort(closed.reason);
    else this.#flights.add(flight);
    return flight;
  }

  /** The request of a {@linkcode HttpClient.prototype.flight} is over. */
  land(flight: AbortController): void {
    this.#flights.delete(flight);
  }

  /** Aborts every request and stream, in flight and to come: the transport closed. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
    const aborted = this.#controller.signal.reason;
    for (const flight of this.#flights) flight.abort(aborted);
    this.#flights.clear();
  }

  /**
   * A JSON body as text, read up to `maxMessageBytes`: a longer one (by its
   * Content-Length, or as it arrives) is cancelled and rejected early.
   *
   * @param what Names the server and request, for the error message.
   * @throws {MCPConnectionError} When the body is too large.
   */
  async readText(response: Response, what: () => string): Promise<string> {
    const limit = this.maxMessageBytes;
    const tooLarge = () =>
      messageTooLarge(
        what(),
        limit,
        "the request failed and its answer was discarded",
      );
    const length = response.headers.get("content-length");
    if (length !== null) {
      // The body is exactly this long: read it natively, or not at all.
      if (Number(length) <= limit) return await response.text();
      discardBody(response);
      throw tooLarge();
    }
    const body = response.body;
    if (body === null) return "";
    const reader = body.getReader();
    const parts: Uint8Array[] = [];
    let bytes = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > limit) {
        reader.cancel().catch(() => {});
        throw tooLarge();
      }
      parts.push(value);
    }
    return decoder.decode(concatBytes(parts, bytes));
  }

  /**
   * Reads an SSE body as events, each at most `maxMessageBytes` characters
   * (past that `read()` rejects; see {@linkcode isTooLarge}). `onRetry`
   * receives each `retry:` field, `onComment` each comment line
   * (keep-alives).
   */
  events(
    body: ReadableStream<Uint8Array> | Response,
    onRetry?: (ms: number) => void,
    onComment?: () => void,
  ): EventReader {
    return new EventReader(body, this.maxMessageBytes, onRetry, onComment);
  }

  /**
   * Header values, and their parts, that must never appear in an error
   * message: the configured headers and every set `getHeaders()` returned.
   */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** `text` with every secret replaced, for error messages built from foreign text. */
  redact(text: string): string {
    return redact(text, this.#secrets);
  }

  #addSecrets(headers: Record<string, string>): void {
    this.#secrets = mergeSecrets(
      this.#secrets,
      secretsOf(Object.entries(headers)),
    );
  }

  /**
   * Loads the authorization headers, if there is a hook for them. Called
   * before every request, so a refreshed or stepped-up token is used at once.
   */
  async loadHeaders(): Promise<void> {
    const { getHeaders, secrets } = this.#auth;
    if (getHeaders === undefined) return;
    let extra: Record<string, string>;
    try {
      extra = checkHeaders(await getHeaders(), [], this.#transport);
    } catch (error) {
      if (error instanceof MCPAdapterError) throw error;
      throw new MCPConnectionError(
        `${this.#transport}: getHeaders() failed: ${
          this.redact(errorMessage(error))
        }`,
        { cause: error },
      );
    }
    const json = JSON.stringify(extra);
    if (json === this.#extra) return;
    this.#extra = json;
    this.#addSecrets(extra);
    if (secrets) this.#secrets = mergeSecrets(this.#secrets, secrets());
    this.base = { ...this.#configured, ...extra };
    this.onBaseChange();
  }

  /**
   * Completes an OAuth authorization-code login through the provider.
   *
   * @throws {MCPConfigError} Without an OAuth `authProvider`.
   */
  finishAuth(code: MCPAuthorizationCallback): Promise<void> {
    const finish = this.#auth.finishAuth;
    return finish ? finish(code) : Promise.reject(
      new MCPConfigError(
        "authProvider",
        `${this.#transport} has no OAuth "authProvider"`,
      ),
    );
  }

  /**
   * Fetches `url`, following redirects only within its origin, with the
   * authorization headers of the moment. On 401 (or 403
   * `insufficient_scope`) runs the authorize hook and retries, at most
   * {@linkcode MAX_AUTH_ROUNDS} times; when another request renewed the
   * token meanwhile, retries with that one first. Fetch failures are thrown
   * as they are.
   *
   * @param headers Called for each attempt, so a retry sees the new headers.
   */
  async request(
    method: "GET" | "POST" | "DELETE",
    url: URL,
    headers: () => Record<string, string>,
    body?: string,
    signal: AbortSignal = this.#controller.signal,
  ): Promise<Response> {
    const auth = this.#auth;
    for (let round = 0;; round++) {
      // Read per request: a refresh or a step-up shows on the next one.
      if (auth.getHeaders !== undefined) await this.loadHeaders();
      const sent = this.base.authorization;
      const init: RequestInit = {
        method,
        headers: headers(),
        body: body ?? null,
        signal,
        redirect: "manual",
      };
      let response = await this.#fetch(url, init);
      if (
        response.type === "opaqueredirect" ||
        REDIRECT_STATUSES.has(response.status)
      ) response = await this.#followWithinOrigin(method, url, init, response);
      if (!auth.authorize || !wantsAuthorization(response)) {
        if (sent) auth.passed?.();
        return response;
      }
      if (round === MAX_AUTH_ROUNDS) return response;
      await this.loadHeaders();
      if (
        this.base.authorization === sent &&
        !await this.#authorizeOnce(response, signal)
      ) {
        return response;
      }
      discardBody(response);
    }
  }

  /** Runs the authorize hook; concurrent 401s share one run. */
  #authorizeOnce(response: Response, signal: AbortSignal): Promise<boolean> {
    this.#authorizing ??= (async () => {
      try {
        // The request's signal: a caller that gives up abandons the flow.
        return await this.#auth.authorize!(response, signal) === true;
      } catch (error) {
        if (error instanceof MCPAdapterError) throw error;
        throw new MCPConnectionError(
          `${this.#transport}: authorization failed: ${
            this.redact(errorMessage(error))
          }`,
          { cause: error },
        );
      }
    })().finally(() => this.#authorizing = undefined);
    return this.#authorizing;
  }

  /**
   * Follows the redirect `response` within the origin of `url`, fetching
   * with `init` (manual redirects) again; refuses any other.
   */
  async #followWithinOrigin(
    method: string,
    url: URL,
    init: RequestInit,
    response: Response,
  ): Promise<Response> {
    const fetchFn = this.#fetch;
    let target = url;
    for (let hop = 0;; hop++) {
      if (hop > 0) response = await fetchFn(target, init);
      if (response.type === "opaqueredirect") {
        throw new MCPConnectionError(
          `MCP server at ${
            displayUrl(url)
          } answered ${method} with a redirect this runtime does not expose; set "url" to the final address.`,
        );
      }
      if (!REDIRECT_STATUSES.has(response.status)) return response;
      const location = response.headers.get("location");
      let next: URL | undefined;
      try {
        next = location === null ? undefined : new URL(location, target);
      } catch {
        next = undefined;
      }
      if (next === undefined) return response;
      discardBody(response);
      const keepsMethod = response.status === 307 ||
        response.status === 308 || method !== "POST";
      if (
        next.origin !== url.origin || next.username !== url.username ||
        next.password !== url.password
      ) {
        throw new MCPConnectionError(
          `MCP server at ${displayUrl(url)} redirected ${method} to ${
            displayUrl(next)
          }, another origin; the configured headers are never sent there. Set "url" to that address if you trust it.`,
        );
      }
      if (hop >= MAX_REDIRECTS) {
        throw new MCPConnectionError(
          `MCP server at ${
            displayUrl(url)
          } redirected ${method} more than ${MAX_REDIRECTS} times; set "url" to the final address.`,
        );
      }
      if (!keepsMethod) {
        throw new MCPConnectionError(
          `MCP server at ${
            displayUrl(url)
          } answered POST with HTTP ${response.status}, a redirect that would drop the request body; set "url" to ${
            displayUrl(next)
          }.`,
        );
      }
      target = next;
    }
  }
}
