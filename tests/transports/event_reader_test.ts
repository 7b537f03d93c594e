import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  EventReader,
  isTooLarge,
  parseEvents,
  readWhole,
} from "../../src/transports/_body.ts";

const encoder = new TextEncoder();

/** A response whose body the test writes: `push()` a part, `close()` it. */
function controlledResponse(headers: Record<string, string>) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
  });
  return {
    response: new Response(body, {
      headers: { "content-type": "text/event-stream", ...headers },
    }),
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

/** Every event `reader` yields, in order, until the end of the body. */
async function drain(reader: EventReader): Promise<string[]> {
  const data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return data;
    data.push(value.data);
  }
}

describe("EventReader", () => {
  const events = "id: 1\ndata: one\n\nid: 2\ndata: two\n\n";

  it("reads a body with a Content-Length: its events in order, an unfinished last event dropped", async () => {
    const body = `${events}data: cut`;
    const { response, push, close } = controlledResponse({
      "content-length": String(encoder.encode(body).byteLength),
    });
    const reader = new EventReader(response, { maxBufferSize: 1024 });
    const read = drain(reader);
    push(body);
    close();
    assert.deepEqual(await read, ["one", "two"]);
  });

  it("delivers nothing after cancel(), even when the body arrives later", async () => {
    const { response, push, close } = controlledResponse({
      "content-length": String(events.length),
    });
    const reader = new EventReader(response, { maxBufferSize: 1024 });
    const first = reader.read();
    // Let the read start, then cancel while the body is still on its way.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await reader.cancel();
    // The body is cancelled: what the server sends now goes nowhere.
    assert.throws(() => push(events));
    assert.throws(() => close());
    assert.deepEqual(await first, { value: undefined, done: true });
    assert.deepEqual(await reader.read(), { value: undefined, done: true });
  });

  it("streams a body whose Content-Length passes the limit, event by event, and fails on an event past it", async () => {
    const { response, push } = controlledResponse({
      "content-length": String(1 << 20),
    });
    const reader = new EventReader(response, { maxBufferSize: 64 });
    push("data: first\n\n");
    // The first event arrives while the body is far from complete.
    assert.equal((await reader.read()).value?.data, "first");
    push(`data: ${"x".repeat(100)}`);
    await assert.rejects(reader.read(), (error) => isTooLarge(error));
  });

  it("streams a body without a Content-Length: each event as it arrives", async () => {
    const { response, push, close } = controlledResponse({});
    const reader = new EventReader(response, { maxBufferSize: 1024 });
    push("data: early\n\n");
    assert.equal((await reader.read()).value?.data, "early");
    push("data: late\n\n");
    close();
    assert.deepEqual(await drain(reader), ["late"]);
  });
});

describe("readWhole", () => {
  const body = "data: one\n\n";
  const sized = (headers: Record<string, string>) =>
    new Response(body, {
      headers: { "content-type": "text/event-stream", ...headers },
    });

  it("reads whole a body whose Content-Length is within the limit", async () => {
    assert.equal(await readWhole(sized({ "content-length": "12" }), 12), body);
    assert.equal(
      await readWhole(
        sized({ "content-length": "12", "content-encoding": "identity" }),
        1024,
      ),
      body,
    );
  });

  for (
    const [what, headers, limit] of [
      ["a Content-Length past the limit", { "content-length": "12" }, 11],
      ["no Content-Length", {}, 1024],
      ["an invalid Content-Length", { "content-length": "12abc" }, 1024],
      ["a negative Content-Length", { "content-length": "-1" }, 1024],
      [
        "a Content-Encoding (the length counts compressed bytes)",
        { "content-length": "12", "content-encoding": "gzip" },
        1024,
      ],
    ] as const
  ) {
    it(`leaves a body with ${what} to be read a chunk at a time`, () => {
      const response = sized(headers);
      assert.equal(readWhole(response, limit), undefined);
      assert.equal(response.bodyUsed, false);
    });
  }

  it("leaves a cross-origin body to be read a chunk at a time: a browser may hide its Content-Encoding", () => {
    const response = sized({ "content-length": "12" });
    Object.defineProperty(response, "type", { value: "cors" });
    assert.equal(readWhole(response, 1024), undefined);
  });
});

describe("parseEvents", () => {
  it("finds a whole body's events in order and its retry field, and drops an unfinished last event", async () => {
    const { events, retryMs } = await parseEvents(
      "retry: 250\nid: 1\ndata: one\n\nid: 2\nevent: note\ndata: two\n\ndata: cut",
    );
    assert.deepEqual(
      events.map(({ id, event, data }) => ({ id, event, data })),
      [
        { id: "1", event: undefined, data: "one" },
        { id: "2", event: "note", data: "two" },
      ],
    );
    assert.equal(retryMs, 250);
  });

  it("starts every body afresh: no part, id or BOM of the last one carries over", async () => {
    await parseEvents("id: 7\ndata: unfinished");
    const { events, retryMs } = await parseEvents("\uFEFFdata: next\n\n");
    assert.deepEqual(
      events.map(({ id, data }) => ({ id, data })),
      [{ id: undefined, data: "next" }],
    );
    assert.equal(retryMs, undefined);
  });
});
