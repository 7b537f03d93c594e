import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PendingTable } from "../../src/protocol/_pending.ts";

interface Entry {
  id: number;
  name: string;
}

const entry = (id: number): Entry => ({ id, name: `request ${id}` });

describe("PendingTable", () => {
  it("finds what is in flight by id, and nothing for ids it never had, ids gone or ids of another type", () => {
    const table = new PendingTable<Entry>();
    for (let id = 1; id <= 10; id++) table.add(entry(id));
    assert.equal(table.size, 10);
    assert.equal(table.get(7)?.name, "request 7");
    assert.equal(table.take(7)?.name, "request 7");
    assert.equal(table.take(7), undefined, "a second take finds nothing");
    assert.equal(table.get(7), undefined);
    assert.equal(table.size, 9);
    // An id that shares a slot with a request in flight (8 + 64, a late
    // answer to an old request) must neither find nor take it; a server may
    // answer with any id.
    assert.equal(table.get(72), undefined);
    assert.equal(table.take(72), undefined);
    assert.equal(table.get(8)?.name, "request 8");
    for (const id of ["8", 8.5, null, undefined, { id: 8 }, -8, 8n]) {
      assert.equal(table.get(id), undefined, `get(${String(id)})`);
      assert.equal(table.take(id), undefined, `take(${String(id)})`);
    }
    assert.equal(table.size, 9, "nothing was taken by another type's id");
  });

  it("keeps a long-lived request while many short ones pass through, in a ring that stays small", () => {
    const table = new PendingTable<Entry>();
    const listening = entry(1); // e.g. subscriptions/listen, open for the session's life
    table.add(listening);
    let id = 2;
    // 100,000 requests, 64 in flight at a time: each slot comes round
    // again more than a thousand times, the long-lived request's among them.
    const inFlight: number[] = [];
    for (let n = 0; n < 100_000; n++) {
      table.add(entry(id));
      inFlight.push(id++);
      if (inFlight.length === 64) {
        const done = inFlight.shift()!;
        assert.equal(table.get(done)?.id, done);
        assert.equal(table.take(done)?.id, done);
      }
    }
    assert.equal(
      table.get(1),
      listening,
      "still found after its slot was taken",
    );
    assert.equal(table.size, 64);
    for (const done of inFlight) assert.equal(table.get(done)?.id, done);
    // The ring grows while more than half of it is in flight, so 65
    // entries need 256 slots, not one slot per request ever made.
    assert.equal(table.values().length, 64);
    assert.ok(table.capacity <= 256, `the ring has ${table.capacity} slots`);
    assert.equal(table.take(1), listening, "taken from where it moved");
    assert.equal(table.get(1), undefined);
  });

  it("grows with the requests in flight and finds every one of them", () => {
    const table = new PendingTable<Entry>();
    for (let id = 1; id <= 5_000; id++) table.add(entry(id));
    assert.equal(table.size, 5_000);
    for (let id = 1; id <= 5_000; id++) assert.equal(table.get(id)?.id, id);
    assert.deepEqual(
      table.values().map((e) => e.id).toSorted((a, b) => a - b),
      Array.from({ length: 5_000 }, (_, i) => i + 1),
    );
    for (let id = 1; id <= 5_000; id += 2) table.take(id);
    assert.equal(table.size, 2_500);
    assert.equal(table.get(4_999), undefined);
    assert.equal(table.get(5_000)?.id, 5_000);
  });

  it("hands out its entries as an array the caller may take from while walking it", () => {
    const table = new PendingTable<Entry>();
    table.add(entry(1));
    table.add(entry(65)); // the same slot as 1: 1 moves out of the ring
    table.add(entry(2));
    const seen: number[] = [];
    for (const e of table.values()) {
      seen.push(e.id);
      table.take(e.id);
    }
    assert.deepEqual(seen.toSorted((a, b) => a - b), [1, 2, 65]);
    assert.equal(table.size, 0);
    assert.deepEqual(table.values(), []);
  });
});
