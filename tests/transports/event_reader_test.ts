import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EventReader, isTooLarge } from "../../src/transports/_body.ts";

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
    const reader = new EventReader(response, 1024);
    const read = drain(reader);
    push(body);
    close();
    assert.deepEqual(await read, ["one", "two"]);
  });

  it("delivers nothing after cancel(), even when the body arrives later", async () => {
    const { response, push, close } = controlledResponse({
      "content-length": String(events.length),
    });
    const reader = new EventReader(response, 1024);
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
    const reader = new EventReader(response, 64);
    push("data: first\n\n");
    // The first event arrives while the body is far from complete.
    assert.equal((await reader.read()).value?.data, "first");
    push(`data: ${"x".repeat(100)}`);
    await assert.rejects(reader.read(), (error) => isTooLarge(error));
  });

  it("streams a body without a Content-Length: each event as it arrives", async () => {
    const { response, push, close } = controlledResponse({});
    const reader = new EventReader(response, 1024);
    push("data: early\n\n");
    assert.equal((await reader.read()).value?.data, "early");
    push("data: late\n\n");
    close();
    assert.deepEqual(await drain(reader), ["late"]);
  });
});
