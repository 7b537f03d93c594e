/**
 * Reading what a server sends in an HTTP body, bounded. Bodies are read as
 * the runtime hands them over, already decoded (`fetch` inflates
 * `Content-Encoding: gzip` by itself), so every limit counts decoded bytes
 * and a declared `Content-Length` is only a hint: with an encoding it counts
 * the compressed bytes, and a custom `fetch` may say anything. (A body from
 * the runtime's own `fetch`, unencoded and within the limit by its
 * Content-Length, is read whole, in one call: see {@linkcode readWhole}.)
 * Nothing here keeps a view into a chunk it was handed: the decompressor's
 * chunks can be small views into large buffers, which a kept view would keep
 * alive. Also: what was read, as JSON-RPC messages, and the words for what
 * is not one. Web standards only. Internal.
 *
 * @module
 */

import { displayUrl, excerpt } from "../util/redact.ts";
import { lazy } from "../util/lazy.ts";
import { kindOf, unlessTooDeep } from "../util/values.ts";
import { byobReader, FEED_BYTES, OWN_READ_BUFFER } from "../util/read_body.ts";
import type { JSONRPCMessage } from "./transport.ts";
import type {
  EventSourceMessage,
  EventSourceParser,
  ParserConfig,
} from "eventsource-parser";

export type { EventSourceMessage };

/** How much of an error body is read for its excerpt. */
const EXCERPT_READ_BYTES = 4096;

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
      // One decoded chunk may be far larger than the excerpt.
      const part = value.subarray(0, EXCERPT_READ_BYTES - bytes);
      bytes += part.byteLength;
      text += decoder.decode(part, { stream: true });
    }
  } catch {
    // A broken body still leaves what was read.
  }
  reader.cancel().catch(() => {});
  return text;
}

/**
 * The whole body as text, read in one call into the runtime, when its size
 * is known to be within `limit` decoded bytes before it is read; otherwise
 * `undefined`, for the caller to read it a chunk at a time. Known means: a
 * Content-Length within the limit, no Content-Encoding (with one, the
 * length counts the compressed bytes), and not a cross-origin response
 * (whose Content-Encoding a browser may hide). Only as good as the fetch
 * that made the response: call it for one from the runtime's own `fetch`,
 * which ends a body at its Content-Length; a custom one may say anything.
 *
 * On Deno this costs a fraction of a chunked read (one call into the
 * runtime for the body instead of one per chunk and one for its end; see
 * `docs/performance.md`). The body cannot be cancelled while it is read:
 * it ends at its Content-Length, or when the fetch is aborted.
 */
export function readWhole(
  response: Response,
  limit: number,
): Promise<string> | undefined {
  if (response.type === "cors" || response.type === "opaque") return;
  const headers = response.headers;
  const encoding = headers.get("content-encoding");
  if (encoding !== null && encoding.trim().toLowerCase() !== "identity") {
    return;
  }
  const declared = headers.get("content-length");
  if (declared === null || declared === "") return;
  const length = Number(declared);
  if (Number.isSafeInteger(length) && length >= 0 && length <= limit) {
    return response.text();
  }
}

/**
 * A BYOB reader's first buffer: enough for most answers, cheap to allocate
 * per body. A read that fills it makes the next buffer 8× larger, up to
 * {@linkcode FEED_BYTES} (the chunk size of Deno's default reads).
 */
const READ_BUFFER_BYTES = 8 * 1024;
/** How an {@linkcode EventReader} reads its body. */
export interface EventReaderOptions {
  /** The longest event, in characters. */
  maxBufferSize: number;
  /** Receives each `retry:` field. */
  onRetry?: ((ms: number) => void) | undefined;
}

/** The SSE parser, loaded with the first event stream: JSON-only servers never need it. */
const sseParser = lazy(() => import("eventsource-parser"));

/**
 * The events of an SSE body, read on demand: the reader shape of a web
 * stream of events (`read()`, `cancel()`), without the two transform
 * streams a `pipeThrough` chain would put on every chunk. An event larger
 * than `maxBufferSize` characters makes `read()` reject (see
 * {@linkcode isTooLarge}) once at most {@linkcode FEED_BYTES} more have
 * been read; the body as a whole may be of any length.
 */
export class EventReader {
  readonly #body:
    | ReadableStreamDefaultReader<Uint8Array>
    | ReadableStreamBYOBReader
    | undefined;
  /** The buffer the next read fills, with a BYOB reader. */
  #buffer: Uint8Array<ArrayBuffer> | undefined;
  /** What is left of a chunk larger than {@linkcode FEED_BYTES}. */
  #rest: Uint8Array | undefined;
  /** Made on the first read. */
  #decoder: TextDecoder | undefined;
  readonly #callbacks: ParserConfig;
  /** Made on the first read: `eventsource-parser` loads with the first SSE body. */
  #parser: EventSourceParser | undefined;
  #queue: EventSourceMessage[] = [];
  #head = 0;
  #failure: unknown;
  #ended = false;

  /**
   * @param source The SSE body, or a response whose body it is (its
   * headers are not consulted).
   * @param options The event limit and the `retry:` hook.
   */
  constructor(
    source: ReadableStream<Uint8Array> | Response,
    options: EventReaderOptions,
  ) {
    const { maxBufferSize, onRetry } = options;
    const body = source instanceof Response ? source.body : source;
    if (body === null) this.#body = undefined;
    else {
      const byob = OWN_READ_BUFFER ? byobReader(body) : undefined;
      if (byob === undefined) this.#body = body.getReader();
      else {
        this.#body = byob;
        this.#buffer = new Uint8Array(READ_BUFFER_BYTES);
      }
    }
    this.#callbacks = {
      onEvent: (event) => this.#queue.push(event),
      onRetry,
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") this.#failure = error;
      },
      maxBufferSize,
    };
  }

  /** The next event, or `done` at the end of the body. */
  async read(): Promise<ReadableStreamReadResult<EventSourceMessage>> {
    const parser = this.#parser ??= (sseParser.value ?? await sseParser.load())
      .createParser(
        this.#callbacks,
      );
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
      if (this.#rest !== undefined) {
        this.#feed(parser, this.#rest);
        continue;
      }
      if (this.#ended || this.#body === undefined) {
        this.#ended = true;
        return { value: undefined, done: true };
      }
      const buffer = this.#buffer;
      const { value, done } = buffer === undefined
        ? await (this.#body as ReadableStreamDefaultReader<Uint8Array>).read()
        : await (this.#body as ReadableStreamBYOBReader).read(buffer);
      if (done) this.#ended = true;
      else if (!this.#ended) { // not cancelled meanwhile
        this.#feed(parser, value);
        // The read took the buffer over; the next one fills it again, or a
        // larger one when this one came back full. (A BYOB read is at most
        // FEED_BYTES long: it leaves no rest that would share the buffer.)
        if (buffer !== undefined) {
          this.#buffer = value.byteLength === value.buffer.byteLength &&
              value.byteLength < FEED_BYTES
            ? new Uint8Array(value.byteLength * 8)
            : new Uint8Array(value.buffer as ArrayBuffer);
        }
      }
    }
  }

  /** Decodes and parses the first {@linkcode FEED_BYTES} of `bytes`; keeps the rest for later. */
  #feed(parser: EventSourceParser, bytes: Uint8Array): void {
    const piece = bytes.byteLength > FEED_BYTES
      ? bytes.subarray(0, FEED_BYTES)
      : bytes;
    this.#rest = piece === bytes ? undefined : bytes.subarray(FEED_BYTES);
    parser.feed(
      (this.#decoder ??= new TextDecoder()).decode(piece, { stream: true }),
    );
  }

  /** Stops reading and releases the body. */
  cancel(): Promise<void> {
    this.#ended = true;
    this.#queue = [];
    this.#head = 0;
    this.#rest = undefined;
    return this.#body?.cancel() ?? Promise.resolve();
  }
}

/** What {@linkcode parseEvents} found. */
export interface ParsedEvents {
  events: EventSourceMessage[];
  /** The last `retry:` field, if any. */
  retryMs: number | undefined;
}

/** The parser of {@linkcode parseEvents}, and where it puts what it finds. */
let wholeParser: EventSourceParser | undefined;
let parsed: ParsedEvents = { events: [], retryMs: undefined };

/**
 * The events of a whole SSE body (from {@linkcode readWhole}), in order; an
 * unfinished last event is dropped, as at the end of a stream. One parser
 * serves every body: a body is fed whole and its events are taken before
 * anything else runs.
 */
export async function parseEvents(text: string): Promise<ParsedEvents> {
  const parser = wholeParser ??= (sseParser.value ?? await sseParser.load())
    .createParser({
      onEvent: (event) => parsed.events.push(event),
      onRetry: (ms) => parsed.retryMs = ms,
    });
  const found = parsed = { events: [], retryMs: undefined };
  try {
    parser.feed(text);
  } finally {
    parser.reset();
  }
  return found;
}

/** Whether an {@linkcode EventReader} failed because an event passed `maxMessageBytes`. */
export function isTooLarge(error: unknown): boolean {
  return (error as { type?: unknown } | null)?.type ===
    "max-buffer-size-exceeded";
}

/** Releases a body we do not read. */
export function discardBody(response: Response): void {
  const body = response.body;
  if (body !== null && !body.locked) body.cancel().catch(() => {});
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
      excerpt(
        unlessTooDeep(() => JSON.stringify(value) ?? "") ?? kindOf(value),
        secrets,
      )
    }`,
  );
}
