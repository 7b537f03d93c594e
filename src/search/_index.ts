/**
 * The lexical index: BM25F over a tool's fields, query words widened by the
 * vocabulary, a bonus for names the query explains, and a server prior,
 * kept current one tool at a time. Internal.
 *
 * Scoring, for a query of concepts (a word and the words it may stand for)
 * and a tool of server `s`:
 *
 * - BM25F: per term, the tool's field counts are weighted and normalised by
 *   field length first, and saturated once (`tf / (k1 + tf)`), so a word in
 *   the name and again in the description is not counted as two words;
 * - a concept scores its best alternative (`weight × idf × saturated tf`),
 *   so a tool that says both "get" and "fetch" is not paid twice;
 * - name coverage adds `nameCoverage × (share of the name's words matched)`:
 *   a tool's name is what it does, and a request that accounts for all of it
 *   (`create` and `collection` for `createCollection`) beats one that only
 *   shares words with its description;
 * - the server prior adds `serverPrior × affinity(s)`: per concept, the share
 *   of the server's tools that use it, weighted by how few servers use it at
 *   all. A request naming GitLab, or Outlook (which only the Microsoft 365
 *   tools mention), leans towards that server's tools.
 *
 * A tool's frequencies depend on that tool alone (fields are normalised by
 * fixed pivot lengths), the corpus statistics (how many tools have a term,
 * how many tools each server has) are counts kept as tools come and go, and
 * ties are broken by id: an index built by adds and removes answers exactly
 * as one built afresh from the same tools.
 *
 * Everything a search reads is laid out for it when tools are added: terms
 * are numbers (`_lexicon.ts`); a term's postings are unboxed arrays of tool
 * slots and saturated frequencies (`tf / (k1 + tf)`, fixed per tool); a
 * term's count of tools per server is kept as tools come and go; each
 * vocabulary word's alternatives are resolved to term numbers when the index
 * is made; and the scratch of a search is typed arrays by slot, reused.
 *
 * @module
 */

import { FIELD_TERMS, FIELDS, NAME, readFields } from "./_fields.ts";
import { Lexicon } from "./_lexicon.ts";
import { conflicts, INTENT_VERBS, READ } from "./_intent.ts";
import { Postings } from "./_postings.ts";
import { queryConcepts } from "./_query.ts";
import { stem } from "./_stem.ts";
import { top } from "./_top.ts";
import type { Alternative } from "./_vocabulary.ts";
import type { ToolSearchEntry, ToolSearchHit } from "./types.ts";

/** The knobs of the scoring; the defaults are in `lexical.ts`. */
export interface Tuning {
  /** Weight per field, in the order of {@linkcode FIELDS}. */
  weights: readonly number[];
  /** Length normalisation per field (BM25's `b`), same order. */
  b: readonly number[];
  /**
   * Each field's pivot length, same order: a tool's field of this many
   * terms is normalised by 1. Fixed rather than the catalog's running
   * average, so a tool's frequencies never change after it is added.
   */
  pivots: readonly number[];
  /** BM25's `k1`: how fast repeated evidence saturates. */
  k1: number;
  /** How much the server prior adds, per unit of affinity. */
  serverPrior: number;
  /** Whether adjacent query words are also tried joined (`argo cd`). */
  joinWords: boolean;
  /** How much a name wholly explained by the query adds. */
  nameCoverage: number;
  /** Whether phrasal verbs ("turn on") are read as the verbs tools use. */
  phrases: boolean;
  /**
   * What a tool's score is multiplied by when the kind of action it does
   * conflicts with the request's (`_intent.ts`); 1: no effect.
   */
  intentPenalty: number;
}

const FIELD_COUNT = FIELDS.length;
/** Released term numbers are reclaimed past this many unused ones. */
const UNUSED_TERMS = 4_096;

/** A concept's alternatives: term numbers and what a match of each counts. */
interface Expansion {
  terms: Int32Array;
  weights: Float64Array;
}

function grown<T extends Float64Array | Int32Array | Uint8Array>(
  array: T,
  size: number,
): T {
  if (size <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(
    Math.max(size, array.length * 2),
  );
  next.set(array);
  return next;
}

/** The index behind the built-in ranker. */
export class LexicalIndex {
  readonly #tuning: Tuning;
  readonly #lexicon = new Lexicon();
  /** The alternatives of each vocabulary word, by term number. */
  readonly #expansions: (Expansion | undefined)[] = [];
  /** Terms the vocabulary names: never released. */
  #pinned = new Uint8Array(64);
  /** The kinds of action a verb names, by term number. */
  #termIntent = new Uint8Array(64);
  /** Whether a request of one mask of kinds conflicts with a tool of another. */
  readonly #conflict = new Uint8Array(256);

  readonly #postings = new Postings();

  // Tools, by slot.
  readonly #slots = new Map<string, number>();
  readonly #ids: string[] = [];
  #server = new Int32Array(64);
  #nameWords = new Int32Array(64);
  /** The kinds of action a tool does, by slot. */
  #intent = new Uint8Array(64);
  readonly #terms: (Int32Array | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  #slotCount = 0;

  // Servers, by number.
  readonly #serverIds = new Map<string, number>();
  readonly #serverNames: string[] = [];
  readonly #freeServers: number[] = [];
  #serverTools = new Int32Array(16);

  // Scratch of `add`, by field and by term.
  readonly #fieldTerms: number[][] = FIELDS.map(() => []);
  readonly #nameParts: number[] = [];
  #frequency = new Float64Array(64);
  #inName = new Uint8Array(64);
  readonly #touchedTerms: number[] = [];
  /** Reads one text of a tool into its field's terms. */
  readonly #read = (field: number, text: string, maxChars: number) =>
    this.#lexicon.scan(
      text,
      maxChars,
      this.#fieldTerms[field]!,
      FIELD_TERMS[field]!,
      field === NAME ? this.#nameParts : undefined,
    );

  // Scratch of a search, by slot and by server number; clear between.
  #scores = new Float64Array(64);
  #best = new Float64Array(64);
  #bestInName = new Float64Array(64);
  #named = new Float64Array(64);
  #touched = new Int32Array(64);
  #conceptTouched = new Int32Array(64);
  #serverBest = new Float64Array(16);
  #affinity = new Float64Array(16);
  #conceptServers = new Int32Array(16);
  // The answer being ranked, while `accept` is asked about it.
  #answerSlots = new Int32Array(64);
  #answerScores = new Float64Array(64);
  #answering = false;
  readonly #single: Expansion = {
    terms: new Int32Array(1),
    weights: new Float64Array([1]),
  };
  readonly #used = (term: string) =>
    this.#postings.df(this.#lexicon.find(term)) > 0;
  readonly #intentOf = (term: number) => this.#termIntent[term] ?? 0;

  constructor(
    tuning: Tuning,
    vocabulary: ReadonlyMap<string, readonly Alternative[]>,
  ) {
    this.#tuning = tuning;
    for (const [kind, verbs] of Object.entries(INTENT_VERBS)) {
      for (const verb of verbs) {
        const id = this.#pin(stem(verb));
        this.#termIntent = grown(this.#termIntent, id + 1);
        this.#termIntent[id]! |= Number(kind);
      }
    }
    for (let request = 0; request < 16; request++) {
      for (let tool = 0; tool < 16; tool++) {
        this.#conflict[request << 4 | tool] = conflicts(request, tool) ? 1 : 0;
      }
    }
    for (const [term, alternatives] of vocabulary) {
      const ids = [term, ...alternatives.map((a) => a.term)].map((t) =>
        this.#pin(t)
      );
      this.#expansions[ids[0]!] = {
        terms: Int32Array.from(ids),
        weights: Float64Array.from([1, ...alternatives.map((a) => a.weight)]),
      };
    }
  }

  /** How many terms the index holds numbers for (its lexicon's size). */
  get termCount(): number {
    return this.#lexicon.size;
  }

  /** Indexes tools, replacing any with their ids; skips what is no tool. */
  add(entries: readonly ToolSearchEntry[]): void {
    for (const entry of entries) this.#add(entry);
    this.#reclaimTerms();
  }

  /** Removes tools by id; unknown ids are ignored. */
  remove(ids: readonly string[]): void {
    for (const id of ids) this.#remove(id);
    this.#reclaimTerms();
  }

  #add(entry: ToolSearchEntry): void {
    const fields = this.#fieldTerms;
    const parts = this.#nameParts;
    for (const field of fields) field.length = 0;
    parts.length = 0;
    let id: string;
    let server: string;
    let readOnly: boolean;
    try {
      if (typeof entry?.id !== "string") return;
      id = entry.id;
      readFields(entry, this.#read);
      server = typeof entry.server === "string" ? entry.server : "";
      readOnly = entry.annotations?.readOnlyHint === true;
    } catch {
      // A hostile entry (a throwing getter) is left out; the others stay.
      return;
    }
    this.#remove(id);
    const slot = this.#takeSlot();
    this.#slots.set(id, slot);
    this.#ids[slot] = id;
    const serverNumber = this.#serverNumber(server);
    this.#server[slot] = serverNumber;
    this.#serverTools[serverNumber]!++;
    const capacity = this.#lexicon.capacity;
    this.#frequency = grown(this.#frequency, capacity);
    this.#inName = grown(this.#inName, capacity);
    this.#nameWords[slot] = this.#distinct(parts);
    let intent = 0;
    for (const part of parts) intent |= this.#termIntent[part] ?? 0;
    this.#intent[slot] = intent === 0 && readOnly ? READ : intent;

    // BM25F's pseudo-frequency summed occurrence by occurrence: each adds
    // its field's weight over the field's length normalisation. A field
    // weighted 0 is no evidence at all.
    const frequency = this.#frequency;
    const inName = this.#inName;
    const touched = this.#touchedTerms;
    const { weights, b, pivots, k1 } = this.#tuning;
    for (let field = 0; field < FIELD_COUNT; field++) {
      const terms = fields[field]!;
      const weight = weights[field]!;
      if (terms.length === 0 || !(weight > 0)) continue;
      const share = weight /
        (1 - b[field]! + b[field]! * terms.length / pivots[field]!);
      for (let i = 0; i < terms.length; i++) {
        const term = terms[i]!;
        if (frequency[term] === 0) touched.push(term);
        frequency[term] = frequency[term]! + share;
        if (field === NAME) inName[term] = 1;
      }
    }
    const postings = new Int32Array(touched.length);
    for (let i = 0; i < touched.length; i++) {
      const term = touched[i]!;
      const tf = frequency[term]!;
      this.#postings.add(
        term,
        slot,
        inName[term] === 1,
        tf / (k1 + tf),
        serverNumber,
      );
      postings[i] = term;
      frequency[term] = 0;
      inName[term] = 0;
    }
    touched.length = 0;
    this.#terms[slot] = postings;
  }

  /** How many distinct numbers `terms` holds. */
  #distinct(terms: number[]): number {
    const seen = this.#inName;
    let count = 0;
    for (const term of terms) {
      if (seen[term] === 0) count++;
      seen[term] = 1;
    }
    for (const term of terms) seen[term] = 0;
    return count;
  }

  #remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    this.#ids[slot] = "";
    this.#freeSlots.push(slot);
    const server = this.#server[slot]!;
    if (--this.#serverTools[server]! === 0) {
      this.#serverIds.delete(this.#serverNames[server]!);
      this.#freeServers.push(server);
    }
    for (const term of this.#terms[slot]!) {
      this.#postings.remove(term, slot, server);
    }
    this.#terms[slot] = undefined;
  }

  /**
   * Releases the numbers of terms no tool uses any more once there are
   * many: tools that come and go with new words do not grow the lexicon
   * without end.
   */
  #reclaimTerms(): void {
    const lexicon = this.#lexicon;
    const postings = this.#postings;
    const unused = lexicon.size - postings.used;
    if (unused <= UNUSED_TERMS || unused <= postings.used) return;
    const released: number[] = [];
    for (let term = 0; term < lexicon.capacity; term++) {
      if (
        lexicon.terms[term] !== "" && postings.df(term) === 0 &&
        this.#pinned[term] !== 1
      ) {
        released.push(term);
        postings.drop(term);
      }
    }
    lexicon.release(released);
  }

  /** The best `k` tools for a query that `accept` lets through. */
  search(
    query: string,
    k: number,
    accept?: (id: string) => boolean,
  ): ToolSearchHit[] {
    const n = this.#slots.size;
    if (n === 0 || !(k >= 1)) return [];
    const tuning = this.#tuning;
    const { concepts, intent } = queryConcepts(query, this.#lexicon, {
      phrases: tuning.phrases,
      joinWords: tuning.joinWords,
      used: this.#used,
      intentOf: this.#intentOf,
    });
    if (concepts.length === 0) return [];
    const count = this.#score(concepts, n);
    // The answer's arrays, which `accept` must not see change: the index's
    // own, unless this search runs inside another's `accept`. The scratch
    // is clear before `accept` runs.
    const outer = !this.#answering;
    if (outer) {
      this.#answerSlots = grown(this.#answerSlots, count);
      this.#answerScores = grown(this.#answerScores, count);
    }
    const slots = outer ? this.#answerSlots : new Int32Array(count);
    const final = outer ? this.#answerScores : new Float64Array(count);
    const touched = this.#touched;
    const scores = this.#scores;
    const named = this.#named;
    const nameWords = this.#nameWords;
    const serverOf = this.#server;
    const affinity = this.#affinity;
    const { nameCoverage, serverPrior, intentPenalty } = tuning;
    const toolIntent = this.#intent;
    const conflict = this.#conflict;
    for (let i = 0; i < count; i++) {
      const slot = touched[i]!;
      slots[i] = slot;
      const coverage = Math.min(
        1,
        named[slot]! / Math.max(1, nameWords[slot]!),
      );
      final[i] = scores[slot]! + nameCoverage * coverage +
        serverPrior * affinity[serverOf[slot]!]!;
      if (conflict[intent << 4 | toolIntent[slot]!] === 1) {
        final[i] = final[i]! * intentPenalty;
      }
      scores[slot] = 0;
      named[slot] = 0;
    }
    affinity.fill(0);
    if (!outer) {
      return top(this.#ids, slots, final, count, Math.floor(k), accept);
    }
    this.#answering = true;
    try {
      return top(this.#ids, slots, final, count, Math.floor(k), accept);
    } finally {
      this.#answering = false;
    }
  }

  /**
   * Scores the tools that match any concept (given as head terms): BM25F
   * in `#scores`, name matches in `#named`, the server affinity in
   * `#affinity`. Leaves their slots in `#touched`; returns how many.
   */
  #score(concepts: number[], n: number): number {
    const scores = this.#scores;
    const best = this.#best;
    const bestInName = this.#bestInName;
    const named = this.#named;
    const touched = this.#touched;
    const conceptTouched = this.#conceptTouched;
    const serverBest = this.#serverBest;
    const affinity = this.#affinity;
    const conceptServers = this.#conceptServers;
    const serverTools = this.#serverTools;
    const serverTotal = this.#serverIds.size;
    const postingSlots = this.#postings.slots;
    const postingTf = this.#postings.tfs;
    const termServers = this.#postings.servers;
    let touchedCount = 0;
    for (const head of concepts) {
      const expansion = this.#expansionOf(head);
      const terms = expansion.terms;
      const weights = expansion.weights;
      let conceptCount = 0;
      let conceptServerCount = 0;
      for (let a = 0; a < terms.length; a++) {
        const term = terms[a]!;
        const slots = postingSlots[term];
        if (slots === undefined || slots.length === 0) continue;
        const tfs = postingTf[term]!;
        const df = slots.length;
        const weight = weights[a]!;
        const scale = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
        for (let i = 0; i < df; i++) {
          const entry = slots[i]!;
          const slot = entry >> 1;
          const score = scale * tfs[i]!;
          const previous = best[slot]!;
          if (previous === 0) conceptTouched[conceptCount++] = slot;
          if (score > previous) best[slot] = score;
          if ((entry & 1) === 1 && weight > bestInName[slot]!) {
            bestInName[slot] = weight;
          }
        }
        // The server prior: the share of each server's tools that use the
        // term, weighted by how few servers do; a concept's best term.
        const pairs = termServers[term]!;
        const spread = weight * Math.log(1 + serverTotal / (pairs.length / 2));
        for (let i = 0; i < pairs.length; i += 2) {
          const server = pairs[i]!;
          const value = spread * pairs[i + 1]! / serverTools[server]!;
          const previous = serverBest[server]!;
          if (previous === 0) conceptServers[conceptServerCount++] = server;
          if (value > previous) serverBest[server] = value;
        }
      }
      for (let i = 0; i < conceptCount; i++) {
        const slot = conceptTouched[i]!;
        if (scores[slot] === 0 && named[slot] === 0) {
          touched[touchedCount++] = slot;
        }
        scores[slot] = scores[slot]! + best[slot]!;
        named[slot] = named[slot]! + bestInName[slot]!;
        best[slot] = 0;
        bestInName[slot] = 0;
      }
      for (let i = 0; i < conceptServerCount; i++) {
        const server = conceptServers[i]!;
        affinity[server] = affinity[server]! + serverBest[server]!;
        serverBest[server] = 0;
      }
    }
    return touchedCount;
  }

  #expansionOf(term: number): Expansion {
    const expansion = this.#expansions[term];
    if (expansion !== undefined) return expansion;
    this.#single.terms[0] = term;
    return this.#single;
  }

  #pin(term: string): number {
    const id = this.#lexicon.intern(term);
    this.#pinned = grown(this.#pinned, id + 1);
    this.#pinned[id] = 1;
    return id;
  }

  #serverNumber(name: string): number {
    let number = this.#serverIds.get(name);
    if (number === undefined) {
      number = this.#freeServers.pop() ?? this.#serverNames.length;
      this.#serverIds.set(name, number);
      this.#serverNames[number] = name;
      const size = this.#serverNames.length;
      this.#serverTools = grown(this.#serverTools, size);
      this.#serverBest = grown(this.#serverBest, size);
      this.#affinity = grown(this.#affinity, size);
      this.#conceptServers = grown(this.#conceptServers, size);
    }
    return number;
  }

  #takeSlot(): number {
    const free = this.#freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.#slotCount++;
    const size = slot + 1;
    this.#server = grown(this.#server, size);
    this.#nameWords = grown(this.#nameWords, size);
    this.#intent = grown(this.#intent, size);
    this.#scores = grown(this.#scores, size);
    this.#best = grown(this.#best, size);
    this.#bestInName = grown(this.#bestInName, size);
    this.#named = grown(this.#named, size);
    this.#touched = grown(this.#touched, size);
    this.#conceptTouched = grown(this.#conceptTouched, size);
    return slot;
  }
}
