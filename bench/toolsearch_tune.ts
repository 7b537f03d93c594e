/**
 * Cross-validation of the lexical ranker's tuning on the tool-search
 * benchmark's dev set: every variant is scored on the two halves of the dev
 * set (odd and even positions) and on the whole, so a change is kept only
 * when it helps both halves (a change that helps one half alone fits those
 * queries, not the task).
 *
 * ```sh
 * deno run -A bench/toolsearch_tune.ts [--toolsearch /work/shared/toolsearch] [--variants decisions|ablation|weights|vocabulary] [--cv]
 * ```
 *
 * The last columns are the check set (`bench/toolsearch_check.json`, written
 * before any of this tuning): read them only to confirm that a change kept
 * on the dev set's halves also helps requests nobody tuned on.
 *
 * Figures are Recall@5 and MRR@10 as `score.mjs` computes them.
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { LexicalIndex, type Tuning } from "../src/search/_index.ts";
import { DEFAULT_TUNING } from "../src/search/lexical.ts";
import {
  ABBREVIATIONS,
  type Alternative,
  buildVocabulary,
  HINTS,
  SYNONYMS,
} from "../src/search/_vocabulary.ts";
import { type BenchmarkCatalog, entriesOf } from "./toolsearch_ranker.ts";

/** One labelled request of the benchmark. */
export interface Query {
  id: string;
  query: string;
  relevant: string[];
  any?: boolean;
}

/** Recall@1/5/10 and MRR@10 of a ranker over queries. */
export interface Scores {
  r1: number;
  r5: number;
  r10: number;
  mrr: number;
}

/**
 * Scores ranked ids against the labels exactly as `score.mjs` does.
 *
 * @param queries The labelled requests.
 * @param rank The ranker: a request in, ids out, best first.
 * @returns The means.
 */
export async function score(
  queries: readonly Query[],
  rank: (query: string) => string[] | Promise<string[]>,
): Promise<Scores> {
  const sums = { r1: 0, r5: 0, r10: 0, mrr: 0 };
  for (const q of queries) {
    const top = [...new Set(await rank(q.query))].slice(0, 10);
    const relevant = new Set(q.relevant);
    const need = q.any ? 1 : relevant.size;
    const recall = (k: number) =>
      Math.min(need, top.slice(0, k).filter((id) => relevant.has(id)).length) /
      need;
    const first = top.findIndex((id) => relevant.has(id));
    sums.r1 += recall(1);
    sums.r5 += recall(5);
    sums.r10 += recall(10);
    sums.mrr += first >= 0 ? 1 / (first + 1) : 0;
  }
  const n = queries.length;
  return {
    r1: sums.r1 / n,
    r5: sums.r5 / n,
    r10: sums.r10 / n,
    mrr: sums.mrr / n,
  };
}

/** A variant of the tuning, with its own vocabulary. */
export interface Variant {
  name: string;
  tuning: Tuning;
  synonymWeight: number;
  synonyms: readonly (readonly string[])[];
  hints?: Readonly<Record<string, readonly string[]>>;
  abbreviations?: Readonly<Record<string, string>>;
  vocabulary?: boolean;
}

const base: Variant = {
  name: "default",
  tuning: DEFAULT_TUNING,
  synonymWeight: DEFAULT_TUNING.synonymWeight,
  synonyms: SYNONYMS,
};

function withTuning(name: string, change: Partial<Tuning>): Variant {
  return { ...base, name, tuning: { ...base.tuning, ...change } };
}

function weight(field: number, value: number): Variant {
  const weights = [...base.tuning.weights];
  weights[field] = value;
  return withTuning(`weight[${field}]=${value}`, { weights });
}

function b(field: number, value: number): Variant {
  const bs = [...base.tuning.b];
  bs[field] = value;
  return withTuning(`b[${field}]=${value}`, { b: bs });
}

/** Experiments with the vocabulary: each replaces one part of it. */
function vocabularyVariants(): Variant[] {
  return [
    base,
    {
      ...base,
      name: "+bulk group, all → batch (helps half B only: left out)",
      synonyms: [...SYNONYMS, ["batch", "bulk", "many", "multiple"]],
      hints: { ...HINTS, all: ["list", "many", "batch", "bulk"] },
    },
    {
      ...base,
      name: "without print/dump/grab",
      synonyms: SYNONYMS.map((group) =>
        group.filter((word) => !["print", "dump", "grab"].includes(word))
      ),
    },
    {
      ...base,
      name: "without the second list of abbreviations (prod, perf, …)",
      abbreviations: Object.fromEntries(
        Object.entries(ABBREVIATIONS).filter(([short]) =>
          !MORE_ABBREVIATIONS.includes(short)
        ),
      ),
    },
    { ...base, name: "no hints", hints: {} },
    {
      ...base,
      name: "+what → get/describe (mixed: left out)",
      hints: { ...HINTS, what: ["get", "describe"] },
    },
    {
      ...base,
      name: "+where → find/search (worse: left out)",
      hints: { ...HINTS, where: ["find", "search"] },
    },
    {
      ...base,
      name: "+write/put in create and update (worse: left out)",
      synonyms: SYNONYMS.map((group) =>
        group[0] === "create" || group[0] === "update"
          ? [...group, "write", "put"]
          : group
      ),
    },
    {
      ...base,
      name: "+open in create (helps half B only: left out)",
      synonyms: SYNONYMS.map((group) =>
        group[0] === "create" ? [...group, "open"] : group
      ),
    },
    { ...base, name: "no abbreviations", abbreviations: {} },
    {
      ...base,
      name: "verbs only",
      synonyms: SYNONYMS.slice(
        0,
        SYNONYMS.findIndex((g) => g[0] === "directory"),
      ),
    },
    {
      ...base,
      name: "nouns only",
      synonyms: SYNONYMS.slice(SYNONYMS.findIndex((g) => g[0] === "directory")),
    },
  ];
}

/** The standard abbreviations added in a second pass (their expansions are ABBREVIATIONS'). */
const MORE_ABBREVIATIONS: readonly string[] = [
  "prod",
  "perf",
  "admin",
  "pkg",
  "lib",
  "fn",
  "func",
  "err",
  "req",
  "resp",
  "txn",
  "num",
  "avg",
  "pwd",
  "creds",
  "acct",
  "addr",
];

/** The decisions of the second round, each beside the state without it. */
function decisions(): Variant[] {
  const name = (value: number) => {
    const weights = [...base.tuning.weights];
    weights[0] = value;
    return withTuning(`name weight ${value}`, { weights });
  };
  return [
    base,
    withTuning("without the verb intent", { intentPenalty: 1 }),
    withTuning("verb intent ×0.5", { intentPenalty: 0.5 }),
    withTuning("verb intent ×0.9", { intentPenalty: 0.9 }),
    name(3),
    name(1),
    { ...base, name: "without the vocabulary", vocabulary: false },
    withTuning("without the server prior", { serverPrior: 0 }),
    withTuning("without name coverage", { nameCoverage: 0 }),
    withTuning("without phrasal verbs", { phrases: false }),
  ];
}

const VARIANTS: Record<string, () => Variant[]> = {
  decisions,
  vocabulary: vocabularyVariants,
  ablation: () => [
    base,
    { ...base, name: "no vocabulary", vocabulary: false },
    withTuning("no server prior", { serverPrior: 0 }),
    withTuning("no joined words", { joinWords: false }),
    withTuning("no phrases", { phrases: false }),
    withTuning("no name coverage", { nameCoverage: 0 }),
    ...[0.5, 1.5, 2, 3].map((value) =>
      withTuning(`nameCoverage=${value}`, { nameCoverage: value })
    ),
  ],
  weights: () => [
    base,
    ...[1, 2, 4, 6].map((value) => weight(0, value)),
    ...[0.5, 2].map((value) => weight(2, value)),
    ...[0.25, 1].map((value) => weight(3, value)),
    ...[0.1, 0.6].map((value) => weight(4, value)),
    ...[0.5, 2, 3].map((value) => weight(5, value)),
    ...[0, 0.6].map((value) => b(0, value)),
    ...[0.5, 0.9].map((value) => b(2, value)),
    ...[0.25, 0.5, 1, 2].map((value) =>
      withTuning(`serverPrior=${value}`, { serverPrior: value })
    ),
    ...[0.8, 2].map((value) => withTuning(`k1=${value}`, { k1: value })),
    ...[0.4, 0.8, 1].map((value) => ({
      ...base,
      name: `synonymWeight=${value}`,
      synonymWeight: value,
    })),
  ],
};

function rankerOf(
  variant: Variant,
  catalog: BenchmarkCatalog,
): { index: LexicalIndex; buildMs: number } {
  const vocabulary: Map<string, Alternative[]> = variant.vocabulary === false
    ? new Map()
    : buildVocabulary(
      variant.synonyms,
      variant.synonymWeight,
      variant.hints,
      variant.abbreviations,
    );
  const start = performance.now();
  const index = new LexicalIndex(variant.tuning, vocabulary);
  index.add(entriesOf(catalog));
  return { index, buildMs: performance.now() - start };
}

function format(scores: Scores): string {
  return `${scores.r5.toFixed(3)}/${scores.mrr.toFixed(3)}`;
}

/** The numeric knobs the cross-validated search moves, and how. */
const KNOBS: {
  name: string;
  get: (v: Variant) => number;
  set: (v: Variant, x: number) => Variant;
}[] = [
  ...[0, 2, 3, 4, 5].map((field) => ({
    name: `weights[${field}]`,
    get: (v: Variant) => v.tuning.weights[field]!,
    set: (v: Variant, x: number) => {
      const weights = [...v.tuning.weights];
      weights[field] = x;
      return { ...v, tuning: { ...v.tuning, weights } };
    },
  })),
  ...[0, 2, 3].map((field) => ({
    name: `b[${field}]`,
    get: (v: Variant) => v.tuning.b[field]!,
    set: (v: Variant, x: number) => {
      const bs = [...v.tuning.b];
      bs[field] = Math.min(1, x);
      return { ...v, tuning: { ...v.tuning, b: bs } };
    },
  })),
  ...(["k1", "serverPrior", "nameCoverage"] as const).map((
    key,
  ) => ({
    name: key,
    get: (v: Variant) => v.tuning[key],
    set: (v: Variant, x: number) => ({
      ...v,
      tuning: { ...v.tuning, [key]: x },
    }),
  })),
  {
    name: "synonymWeight",
    get: (v: Variant) => v.synonymWeight,
    set: (v: Variant, x: number) => ({ ...v, synonymWeight: Math.min(1, x) }),
  },
];

/**
 * Coordinate ascent on one half: each knob ×/÷ 1.5 while R@5 + MRR on that
 * half improves, a few rounds.
 */
async function ascend(
  start: Variant,
  catalog: BenchmarkCatalog,
  queries: Query[],
): Promise<Variant> {
  const objective = async (variant: Variant) => {
    const { index } = rankerOf(variant, catalog);
    const s = await score(
      queries,
      (query) => index.search(query, 10).map((hit) => hit.id),
    );
    return s.r5 + s.mrr;
  };
  let best = start;
  let bestScore = await objective(best);
  for (let round = 0; round < 3; round++) {
    let moved = false;
    for (const knob of KNOBS) {
      for (const factor of [1.5, 1 / 1.5]) {
        const value = knob.get(best);
        const candidate = knob.set(
          best,
          value === 0 ? 0.5 * factor : value * factor,
        );
        const candidateScore = await objective(candidate);
        if (candidateScore > bestScore + 1e-9) {
          best = candidate;
          bestScore = candidateScore;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  return best;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      toolsearch: { type: "string", default: "/work/shared/toolsearch" },
      variants: { type: "string", default: "ablation" },
      cv: { type: "boolean", default: false },
      check: {
        type: "string",
        default: new URL("./toolsearch_check.json", import.meta.url).pathname,
      },
    },
  });
  const catalog: BenchmarkCatalog = JSON.parse(
    await Deno.readTextFile(join(values.toolsearch, "catalog.json")),
  );
  const queries: Query[] = JSON.parse(
    await Deno.readTextFile(join(values.toolsearch, "queries.dev.json")),
  );
  const check: Query[] = JSON.parse(await Deno.readTextFile(values.check));
  const halves = [
    queries.filter((_, i) => i % 2 === 0),
    queries.filter((_, i) => i % 2 === 1),
  ];
  if (values.cv) {
    for (const [tuned, other] of [[0, 1], [1, 0]] as const) {
      const found = await ascend(base, catalog, halves[tuned]!);
      const show = async (variant: Variant, half: number) => {
        const { index } = rankerOf(variant, catalog);
        return format(
          await score(
            halves[half]!,
            (query) => index.search(query, 10).map((hit) => hit.id),
          ),
        );
      };
      const changed = KNOBS.filter((knob) => knob.get(found) !== knob.get(base))
        .map((knob) =>
          `${knob.name} ${knob.get(base)}→${knob.get(found).toFixed(2)}`
        );
      // deno-lint-ignore no-console
      console.log(
        `tuned on half ${"AB"[tuned]}: ${changed.join(", ") || "no change"}\n` +
          `  half ${"AB"[tuned]} ${await show(base, tuned)} → ${await show(
            found,
            tuned,
          )}; ` +
          `held-out half ${"AB"[other]} ${await show(
            base,
            other,
          )} → ${await show(found, other)}`,
      );
    }
    Deno.exit(0);
  }
  const make = VARIANTS[values.variants];
  if (make === undefined) throw new Error(`no variants ${values.variants}`);
  // deno-lint-ignore no-console
  console.log(
    `variant | half A R@5/MRR | half B R@5/MRR | dev R@5/MRR | dev R@1 | R@10 | check R@5/MRR | check R@1`,
  );
  for (const variant of make()) {
    const { index } = rankerOf(variant, catalog);
    const rank = (query: string) =>
      index.search(query, 10).map((hit) => hit.id);
    const [a, bHalf, all, checked] = [
      await score(halves[0]!, rank),
      await score(halves[1]!, rank),
      await score(queries, rank),
      await score(check, rank),
    ];
    // deno-lint-ignore no-console
    console.log(
      `${variant.name} | ${format(a)} | ${format(bHalf)} | ${format(all)} | ${
        all.r1.toFixed(3)
      } | ${all.r10.toFixed(3)} | ${format(checked)} | ${
        checked.r1.toFixed(3)
      }`,
    );
  }
}
