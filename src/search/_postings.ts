/**
 * The lexical index's postings, by term number: which tools have a term,
 * how strongly, and how many of each server's tools do. Internal.
 *
 * A term's postings are two arrays of the same length: tool slots, each
 * shifted left once with the low bit set when the term is in the tool's
 * name, and the tool's saturated frequency of the term. They are plain
 * arrays of small integers and of doubles, which V8 keeps unboxed and grows
 * in place as tools are added. A term's servers are pairs of a server
 * number and how many of its tools use the term, kept as tools come and go,
 * so the server prior reads one short list per term instead of counting
 * postings at every search.
 *
 * @module
 */

/** The postings of every term, by term number. */
export class Postings {
  /** Tool slots, `slot << 1 | in name`, by term. */
  readonly slots: (number[] | undefined)[] = [];
  /** Saturated frequencies, same order, by term. */
  readonly tfs: (number[] | undefined)[] = [];
  /** Pairs of server number and tool count, by term. */
  readonly servers: (number[] | undefined)[] = [];
  /** How many terms have postings. */
  used = 0;

  /** How many tools have a term (0 for -1, no term). */
  df(term: number): number {
    return term < 0 ? 0 : this.slots[term]?.length ?? 0;
  }

  /** Adds a tool's posting of a term. */
  add(
    term: number,
    slot: number,
    inName: boolean,
    tf: number,
    server: number,
  ): void {
    let slots = this.slots[term];
    if (slots === undefined) {
      this.slots[term] = slots = [];
      this.tfs[term] = [];
      this.servers[term] = [];
    }
    slots.push(slot << 1 | (inName ? 1 : 0));
    this.tfs[term]!.push(tf);
    if (slots.length === 1) this.used++;
    this.#count(term, server, 1);
  }

  /** Removes a tool's posting of a term (it must be there). */
  remove(term: number, slot: number, server: number): void {
    const slots = this.slots[term]!;
    const tfs = this.tfs[term]!;
    const last = slots.length - 1;
    let at = 0;
    while (slots[at]! >> 1 !== slot) at++;
    slots[at] = slots[last]!;
    tfs[at] = tfs[last]!;
    slots.pop();
    tfs.pop();
    if (last === 0) this.used--;
    this.#count(term, server, -1);
  }

  /** Forgets a term with no postings (its number is about to be reused). */
  drop(term: number): void {
    this.slots[term] = undefined;
    this.tfs[term] = undefined;
    this.servers[term] = undefined;
  }

  /** Adds `change` to the count of a server's tools that use a term. */
  #count(term: number, server: number, change: number): void {
    const pairs = this.servers[term]!;
    // Tools come server by server: the last pair is the likely one.
    let at = pairs.length - 2;
    if (at < 0 || pairs[at] !== server) {
      at = 0;
      while (at < pairs.length && pairs[at] !== server) at += 2;
    }
    if (at === pairs.length) {
      pairs.push(server, change);
      return;
    }
    const count = pairs[at + 1]! + change;
    if (count > 0) {
      pairs[at + 1] = count;
      return;
    }
    const last = pairs.length - 2;
    pairs[at] = pairs[last]!;
    pairs[at + 1] = pairs[last + 1]!;
    pairs.length = last;
  }
}
