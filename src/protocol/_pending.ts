/**
 * The requests a session has in flight, by id. Internal.
 *
 * @module
 */

/** What the table holds: an entry knows its own id. */
export interface Identified {
  /** The request's JSON-RPC id, an integer the session gave out. */
  readonly id: number;
}

/**
 * The requests in flight, by their ids: consecutive integers from the
 * session, so they index a ring of slots, one store and one load per
 * request. A request still pending when its slot comes round again (a
 * long-lived one, such as `subscriptions/listen`) moves to a small map;
 * the ring doubles while more than half of it is in flight.
 *
 * Not a `Map` for every request: V8 links a `Map`'s retired hash table to
 * its successor, and a map whose entries come and go (one per request)
 * retires a table every few dozen requests. In a busy session the chain
 * of tables runs through the young generation, and each scavenge promotes
 * what the tables reach (the requests' state, promises and results) until
 * the next full GC. The raw stdio client of the benchmarks, 64 calls in
 * flight on Deno 2.9.6 (`bench/stdio_gc.ts`), promoted 117–130 bytes per
 * call with a `Map` and 13 with slots; its scavenges (pauses and helper
 * threads) fell from 0.54–0.57 µs per call to 0.15–0.17.
 */
export class PendingTable<T extends Identified> {
  #slots: (T | undefined)[] = new Array(64).fill(undefined);
  #mask = 63;
  /** The entries moved out of the ring, by id; made when first needed. */
  #moved: Map<number, T> | undefined;
  #size = 0;

  /** How many entries there are. */
  get size(): number {
    return this.#size;
  }

  /** The ring's slots: twice the most entries it held at once, or more. */
  get capacity(): number {
    return this.#slots.length;
  }

  /** The entry of `id`, if it is in flight; any other value finds nothing. */
  get(id: unknown): T | undefined {
    if (typeof id !== "number") return undefined;
    const entry = this.#slots[id & this.#mask];
    if (entry !== undefined && entry.id === id) return entry;
    return this.#moved?.get(id);
  }

  /** Adds `entry`, whose id is not in the table. */
  add(entry: T): void {
    if (this.#size >= this.#slots.length >> 1) this.#grow();
    this.#place(entry);
    this.#size++;
  }

  /** Puts `entry` in its slot, moving out a request that still holds it. */
  #place(entry: T): void {
    const slot = entry.id & this.#mask;
    const occupant = this.#slots[slot];
    if (occupant !== undefined) {
      (this.#moved ??= new Map()).set(occupant.id, occupant);
    }
    this.#slots[slot] = entry;
  }

  /** Removes the entry of `id` and hands it back; any other value finds nothing. */
  take(id: unknown): T | undefined {
    if (typeof id !== "number") return undefined;
    const slot = id & this.#mask;
    let entry = this.#slots[slot];
    if (entry !== undefined && entry.id === id) this.#slots[slot] = undefined;
    else {
      entry = this.#moved?.get(id);
      if (entry === undefined) return undefined;
      this.#moved!.delete(id);
    }
    this.#size--;
    return entry;
  }

  /** The entries, as an array the caller may change the table under. */
  values(): T[] {
    const values: T[] = [];
    for (const entry of this.#slots) {
      if (entry !== undefined) values.push(entry);
    }
    if (this.#moved !== undefined) values.push(...this.#moved.values());
    return values;
  }

  /** Doubles the ring, and brings moved entries back where their slots are free. */
  #grow(): void {
    const entries = this.#slots;
    this.#slots = new Array(entries.length * 2).fill(undefined);
    this.#mask = this.#slots.length - 1;
    for (const entry of entries) if (entry !== undefined) this.#place(entry);
    const moved = this.#moved;
    if (moved === undefined) return;
    for (const entry of moved.values()) {
      if (this.#slots[entry.id & this.#mask] === undefined) {
        moved.delete(entry.id);
        this.#slots[entry.id & this.#mask] = entry;
      }
    }
  }
}
