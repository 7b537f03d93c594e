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
    assert.equal(table.delete(7), true);
    assert.equal(table.delete(7), false, "a second delete finds nothing");
    assert.equal(table.get(7), undefined);
    assert.equal(table.size, 9);
    // A late answer to request 7 + 64 must not find the request that now
    // holds 7's slot; a server may answer with any id.
    assert.equal(table.get(71), undefined);
    for (const id of ["7", 7.5, null, undefined, { id: 8 }, -8, 8n]) {
      assert.equal(table.get(id), undefined, `get(${String(id)})`);
    }
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
        assert.equal(table.delete(done), true);
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
    assert.equal(table.delete(1), true);
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
    for (let id = 1; id <= 5_000; id += 2) table.delete(id);
    assert.equal(table.size, 2_500);
    assert.equal(table.get(4_999), undefined);
    assert.equal(table.get(5_000)?.id, 5_000);
  });

  it("hands out its entries as an array the caller may delete from while walking it", () => {
    const table = new PendingTable<Entry>();
    table.add(entry(1));
    table.add(entry(65)); // the same slot as 1: 1 moves out of the ring
    table.add(entry(2));
    const seen: number[] = [];
    for (const e of table.values()) {
      seen.push(e.id);
      table.delete(e.id);
    }
    assert.deepEqual(seen.toSorted((a, b) => a - b), [1, 2, 65]);
    assert.equal(table.size, 0);
    assert.deepEqual(table.values(), []);
  });
});
