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
 * Every statistic is a sum kept as tools come and go, and ties are broken by
 * id, so an index built by adds and removes answers exactly as one built
 * afresh from the same tools.
 *
 * @module
 */

import { analyse } from "./_analyze.ts";
import {
  FIELDS,
  type FieldTerms,
  fieldTerms,
  nameWords as countNameWords,
} from "./_fields.ts";
import { type Alternative, rewritePhrases } from "./_vocabulary.ts";
import type { ToolSearchEntry, ToolSearchHit } from "./types.ts";

/** The knobs of the scoring; the defaults are in `lexical.ts`. */
export interface Tuning {
  /** Weight per field, in the order of {@linkcode FIELDS}. */
  weights: readonly number[];
  /** Length normalisation per field (BM25's `b`), same order. */
  b: readonly number[];
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
}

/** Characters and words read of a query. */
const QUERY_CHARS = 2_048;
const QUERY_WORDS = 64;
const FIELD_COUNT = FIELDS.length;
const NAME = 0;

/** One tool. */
interface Doc {
  id: string;
  /** Its server's number (see `#serverIds`). */
  server: number;
  /** Its place in the score arrays; reused after removal. */
  slot: number;
  /** Term count per field. */
  lengths: number[];
  /** How many distinct words its name has. */
  nameWords: number;
  /** Its postings, one per distinct term. */
  postings: Posting[];
}

/** One term of one tool. */
interface Posting {
  term: string;
  doc: Doc;
  /** The term's count per field. */
  counts: number[];
  /** Where it sits in its term's list. */
  at: number;
  /** Its weighted, length-normalised frequency, as of generation `generation`. */
  tf: number;
  generation: number;
}

/** One concept of a query: a word and what it may stand for. */
type Concept = Alternative[];

/** The index behind the built-in ranker. */
export class LexicalIndex {
  readonly #tuning: Tuning;
  readonly #vocabulary: ReadonlyMap<string, Alternative[]>;
  readonly #docs = new Map<string, Doc>();
  readonly #postings = new Map<string, Posting[]>();
  readonly #totals: number[] = FIELDS.map(() => 0);
  /** Servers by name, numbered for the affinity arrays. */
  readonly #serverIds = new Map<string, number>();
  readonly #freeServerIds: number[] = [];
  /** Tools per server number. */
  #serverTools: number[] = [];
  /** Scratch for the affinity, by server number. */
  #serverCount: number[] = [];
  #serverBest: number[] = [];
  #serverAffinity: number[] = [];
  /** Bumped by every change: cached frequencies older than it are stale. */
  #generation = 1;
  #averages: number[] = FIELDS.map(() => 1);
  #averagesGeneration = 0;
  readonly #freeSlots: number[] = [];
  #slots = 0;
  // Scratch, by slot, reused by every search (and cleared after it).
  #scores = new Float64Array(64);
  #best = new Float64Array(64);
  #inName = new Float64Array(64);
  #named = new Float64Array(64);

  constructor(
    tuning: Tuning,
    vocabulary: ReadonlyMap<string, Alternative[]>,
  ) {
    this.#tuning = tuning;
    this.#vocabulary = vocabulary;
  }

  /** How many tools are indexed. */
  get size(): number {
    return this.#docs.size;
  }

  /** Indexes one tool, replacing one with its id; skips what is no tool. */
  add(entry: ToolSearchEntry): void {
    let fields: FieldTerms;
    let nameWords: number;
    try {
      if (typeof entry?.id !== "string") return;
      fields = fieldTerms(entry);
      nameWords = countNameWords(entry.name);
    } catch {
      // A hostile entry (a throwing getter) is left out; the others stay.
      return;
    }
    this.remove(entry.id);
    this.#generation++;
    const server = this.#serverId(
      typeof entry.server === "string" ? entry.server : "",
    );
    const doc: Doc = {
      id: entry.id,
      server,
      slot: this.#takeSlot(),
      lengths: fields.map((terms) => terms.length),
      nameWords,
      postings: [],
    };
    const byTerm = new Map<string, number[]>();
    for (let field = 0; field < FIELD_COUNT; field++) {
      for (const term of fields[field]!) {
        let counts = byTerm.get(term);
        if (counts === undefined) {
          byTerm.set(term, counts = new Array(FIELD_COUNT).fill(0));
        }
        counts[field] = counts[field]! + 1;
      }
    }
    this.#docs.set(doc.id, doc);
    for (let field = 0; field < FIELD_COUNT; field++) {
      this.#totals[field]! += doc.lengths[field]!;
    }
    this.#serverTools[server]!++;
    for (const [term, counts] of byTerm) {
      let list = this.#postings.get(term);
      if (list === undefined) this.#postings.set(term, list = []);
      const posting: Posting = {
        term,
        doc,
        counts,
        at: list.length,
        tf: 0,
        generation: 0,
      };
      list.push(posting);
      doc.postings.push(posting);
    }
  }

  /** Removes a tool by id; an unknown id is ignored. */
  remove(id: string): void {
    const doc = this.#docs.get(id);
    if (doc === undefined) return;
    this.#generation++;
    this.#docs.delete(id);
    this.#freeSlots.push(doc.slot);
    for (let field = 0; field < FIELD_COUNT; field++) {
      this.#totals[field]! -= doc.lengths[field]!;
    }
    if (--this.#serverTools[doc.server]! === 0) {
      this.#freeServerIds.push(doc.server);
      for (const [name, id] of this.#serverIds) {
        if (id === doc.server) this.#serverIds.delete(name);
      }
    }
    for (const posting of doc.postings) {
      const list = this.#postings.get(posting.term)!;
      const last = list.pop()!;
      if (last !== posting) {
        list[posting.at] = last;
        last.at = posting.at;
      }
      if (list.length === 0) this.#postings.delete(posting.term);
    }
  }

  /** The best `k` tools for a query that `accept` lets through. */
  search(
    query: string,
    k: number,
    accept?: (id: string) => boolean,
  ): ToolSearchHit[] {
    const n = this.#docs.size;
    if (n === 0 || !(k >= 1)) return [];
    const concepts = this.#concepts(query);
    if (concepts.length === 0) return [];
    const touched = this.#score(concepts);
    const scores = new Float64Array(touched.length);
    touched.forEach((doc, i) => {
      scores[i] = this.#scores[doc.slot]!;
      this.#scores[doc.slot] = 0;
      this.#named[doc.slot] = 0;
    });
    // The scratch is clear before `accept` runs: it may search again.
    return top(touched, scores, Math.floor(k), accept);
  }

  /** Scores the tools that match any concept; returns them, unordered. */
  #score(concepts: Concept[]): Doc[] {
    const tuning = this.#tuning;
    const n = this.#docs.size;
    const averages = this.#currentAverages();
    const generation = this.#generation;
    const scores = this.#scores;
    const best = this.#best;
    const inName = this.#inName;
    const named = this.#named;
    // Per server number: tools with the term, the concept's best share,
    // and the affinity summed over concepts.
    const perServer = this.#serverCount;
    const serverBest = this.#serverBest;
    const affinity = this.#serverAffinity;
    const serverTotal = this.#serverIds.size;
    const servers = this.#serverTools.length;
    affinity.fill(0);
    const touched: Doc[] = [];
    const conceptTouched: Doc[] = [];
    const inNames = tuning.weights[NAME]! > 0;
    for (const concept of concepts) {
      serverBest.fill(0);
      for (const { term, weight } of concept) {
        const list = this.#postings.get(term);
        if (list === undefined) continue;
        const df = list.length;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        for (const posting of list) {
          if (posting.generation !== generation) {
            posting.tf = this.#frequency(posting, averages);
            posting.generation = generation;
          }
          const tf = posting.tf;
          // Only in fields weighted 0: not evidence at all.
          if (tf === 0) continue;
          const score = weight * idf * tf / (tuning.k1 + tf);
          const doc = posting.doc;
          const slot = doc.slot;
          if (best[slot] === 0) conceptTouched.push(doc);
          if (score > best[slot]!) best[slot] = score;
          if (inNames && posting.counts[NAME]! > 0 && weight > inName[slot]!) {
            inName[slot] = weight;
          }
          perServer[doc.server] = perServer[doc.server]! + 1;
        }
        this.#serverShares(weight, serverTotal, servers);
      }
      for (const doc of conceptTouched) {
        const slot = doc.slot;
        if (scores[slot] === 0 && named[slot] === 0) touched.push(doc);
        scores[slot] = scores[slot]! + best[slot]!;
        named[slot] = named[slot]! + inName[slot]!;
        best[slot] = 0;
        inName[slot] = 0;
      }
      conceptTouched.length = 0;
      for (let server = 0; server < servers; server++) {
        affinity[server] = affinity[server]! + serverBest[server]!;
      }
    }
    for (const doc of touched) {
      const slot = doc.slot;
      const coverage = Math.min(1, named[slot]! / Math.max(1, doc.nameWords));
      scores[slot] = scores[slot]! + tuning.nameCoverage * coverage +
        tuning.serverPrior * affinity[doc.server]!;
    }
    return touched;
  }

  /**
   * Folds one term's count of tools per server (in `#serverCount`, which it
   * clears) into the concept's best share per server: the share of the
   * server's tools that use the term, weighted by how few servers do.
   */
  #serverShares(weight: number, serverTotal: number, servers: number): void {
    const perServer = this.#serverCount;
    const serverBest = this.#serverBest;
    const tools = this.#serverTools;
    let using = 0;
    for (let server = 0; server < servers; server++) {
      if (perServer[server]! > 0) using++;
    }
    const idf = Math.log(1 + serverTotal / Math.max(1, using));
    for (let server = 0; server < servers; server++) {
      const count = perServer[server]!;
      if (count === 0) continue;
      perServer[server] = 0;
      const value = weight * idf * count / tools[server]!;
      if (value > serverBest[server]!) serverBest[server] = value;
    }
  }

  /** A posting's weighted, length-normalised frequency (BM25F). */
  #frequency(posting: Posting, averages: number[]): number {
    const { weights, b } = this.#tuning;
    const { counts, doc } = posting;
    let tf = 0;
    for (let field = 0; field < FIELD_COUNT; field++) {
      const count = counts[field]!;
      if (count === 0) continue;
      const norm = 1 - b[field]! +
        b[field]! * doc.lengths[field]! / averages[field]!;
      tf += weights[field]! * count / norm;
    }
    return tf;
  }

  #currentAverages(): number[] {
    if (this.#averagesGeneration !== this.#generation) {
      const n = this.#docs.size;
      this.#averages = this.#totals.map((total) => total / n || 1);
      this.#averagesGeneration = this.#generation;
    }
    return this.#averages;
  }

  /** A query's concepts: each word with its alternatives, once each. */
  #concepts(query: string): Concept[] {
    const seen = new Set<string>();
    const concepts: Concept[] = [];
    const push = (term: string) => {
      if (seen.has(term)) return;
      seen.add(term);
      concepts.push([{ term, weight: 1 }, ...this.#vocabulary.get(term) ?? []]);
    };
    let text = typeof query === "string" ? query.slice(0, QUERY_CHARS) : "";
    if (this.#tuning.phrases) text = rewritePhrases(text);
    let previous: string | undefined;
    for (const word of analyse(text, QUERY_CHARS, QUERY_WORDS)) {
      // A joined word the tools use (`OneDrive`) is one concept, not two.
      if (word.whole !== undefined && this.#postings.has(word.whole)) {
        push(word.whole);
        previous = word.whole;
        continue;
      }
      for (const part of word.parts) {
        // Words written apart that tools write joined (`argo cd`).
        if (
          this.#tuning.joinWords && previous !== undefined &&
          this.#postings.has(previous + part)
        ) push(previous + part);
        push(part);
        previous = part;
      }
    }
    return concepts;
  }

  #serverId(name: string): number {
    let id = this.#serverIds.get(name);
    if (id === undefined) {
      id = this.#freeServerIds.pop() ?? this.#serverTools.length;
      this.#serverIds.set(name, id);
      this.#serverTools[id] = 0;
      this.#serverCount[id] = 0;
      this.#serverBest[id] = 0;
      this.#serverAffinity[id] = 0;
    }
    return id;
  }

  #takeSlot(): number {
    const free = this.#freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.#slots++;
    if (slot >= this.#scores.length) {
      const grow = (old: Float64Array) => {
        const next = new Float64Array(old.length * 2);
        next.set(old);
        return next;
      };
      this.#scores = grow(this.#scores);
      this.#best = grow(this.#best);
      this.#inName = grow(this.#inName);
      this.#named = grow(this.#named);
    }
    return slot;
  }
}

/**
 * The best `k` of `docs` (scored by `scores`, same order) that `accept`
 * lets through, best first: higher score, then lower id. `accept` is asked
 * only about tools that would enter the top `k` at the time.
 */
function top(
  docs: Doc[],
  scores: Float64Array,
  k: number,
  accept: ((id: string) => boolean) | undefined,
): ToolSearchHit[] {
  const kept: number[] = [];
  const before = (a: number, b: number) =>
    scores[a]! > scores[b]! ||
    (scores[a] === scores[b] && docs[a]!.id < docs[b]!.id);
  for (let i = 0; i < docs.length; i++) {
    if (kept.length >= k && !before(i, kept[kept.length - 1]!)) continue;
    if (accept !== undefined && !accept(docs[i]!.id)) continue;
    let at = kept.length;
    while (at > 0 && before(i, kept[at - 1]!)) at--;
    kept.splice(at, 0, i);
    if (kept.length > k) kept.pop();
  }
  return kept.map((i) => ({ id: docs[i]!.id, score: scores[i]! }));
}
