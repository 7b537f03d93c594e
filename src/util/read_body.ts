/**
 * An HTTP body read as text within a bound of decoded bytes: what a
 * server sends is refused past it, as soon as it is past it. Web
 * standards only; shared by the transports and the OAuth checks. Internal.
 *
 * @module
 */

/**
 * Whether bodies are read into a buffer of our own (a BYOB reader) rather
 * than in the chunks the runtime allocates. On Deno that made SSE answers
 * 1.3–1.5× faster (64 concurrent calls, `bench/client_bench.ts`), and a
 * gzip body's chunks there are 4 KiB views into 64 KiB buffers; on Node 20
 * it made SSE answers ~10% slower, so there, and wherever the runtime is not
 * known, default reads stay. `navigator.userAgent` is the web
 * standard way to ask; Deno's is `Deno/<version>`.
 */
export const OWN_READ_BUFFER =
  (globalThis as { navigator?: { userAgent?: unknown } })
    .navigator?.userAgent?.toString().startsWith("Deno/") === true;
/**
 * The most bytes decoded and handed to the SSE parser at once. A larger
 * chunk is fed a piece per read: the parser checks its buffer against the
 * event limit after each piece, and the events of one piece (which keep
 * their piece's text alive) are read before the next is fed.
 */
export const FEED_BYTES = 64 * 1024;

/** A BYOB reader of `body`, or `undefined` when it is not a byte stream (a custom fetch). */
export function byobReader(
  body: ReadableStream<Uint8Array>,
): ReadableStreamBYOBReader | undefined {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

/** The largest buffer of {@linkcode readCapped}, whatever the Content-Length says. */
const BUFFER_MAX_BYTES = 1024 * 1024;

/** How {@linkcode readCapped} reads a body. */
export interface ReadCappedOptions {
  /** The most decoded bytes to read. */
  limit: number;
  /** The error to throw for a body past the limit. */
  tooLarge: () => Error;
}

/**
 * A whole body as text, at most `limit` decoded bytes: a `Content-Length`
 * over it is refused unread, and a body that grows past it is cancelled as
 * soon as it does; a `Content-Length` within it only sizes the buffer (to
 * read a body the length vouches for in one go, see the transports'
 * `readWhole`).
 * The bytes are decoded as they arrive and never kept: what is held is the
 * text so far and, on Deno, one buffer of our own that the runtime reads
 * into (at most 1 MiB, reused).
 *
 * @throws What `tooLarge()` returns; a failed read as it is.
 */
export async function readCapped(
  response: Response,
  options: ReadCappedOptions,
): Promise<string> {
  const { limit, tooLarge } = options;
  const body = response.body;
  const length = Number(response.headers.get("content-length") ?? NaN);
  if (length > limit) {
    if (body !== null && !body.locked) body.cancel().catch(() => {});
    throw tooLarge();
  }
  if (body === null) return "";
  const byob = OWN_READ_BUFFER ? byobReader(body) : undefined;
  const reader = byob ?? body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  if (byob === undefined) {
    for (;;) {
      const { value, done } = await (reader as ReadableStreamDefaultReader<
        Uint8Array
      >).read();
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > limit) break;
      text += decoder.decode(value, { stream: true });
    }
  } else {
    // Sized for the whole body when its declared length is small, so that
    // it is decoded in one go; the byte more sees the end.
    let buffer = new Uint8Array(
      Math.min(length >= 0 ? length + 1 : FEED_BYTES, BUFFER_MAX_BYTES),
    );
    let used = 0;
    for (;;) {
      const { value, done } = await byob.read(buffer.subarray(used));
      // No view comes back only when the body was cancelled meanwhile.
      if (value === undefined) return text + decoder.decode();
      buffer = new Uint8Array(value.buffer as ArrayBuffer);
      used += value.byteLength;
      bytes += value.byteLength;
      if (bytes > limit) break;
      if (done || used === buffer.byteLength) {
        text += decoder.decode(buffer.subarray(0, used), { stream: !done });
        if (done) return text;
        used = 0;
      }
    }
  }
  reader.cancel().catch(() => {});
  throw tooLarge();
}
