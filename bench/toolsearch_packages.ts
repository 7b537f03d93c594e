/**
 * The built-in ranker against maintained, edge-safe search packages from
 * npm, on the tool-search benchmark's dev set: the evidence behind writing
 * the index rather than depending on one (docs/tool-search.md).
 *
 * ```sh
 * deno run -A bench/toolsearch_packages.ts [--toolsearch /work/shared/toolsearch]
 * ```
 *
 * Each package runs twice over the same fields (name, title, description,
 * parameters, server): as packaged (its own tokenizer, the benchmark
 * baseline's identifier splitting and stop words, field boosts), and fed
 * this library's text analysis (split, folded, stemmed terms; the query
 * widened by the vocabulary, at the synonym weight where the package takes
 * per-term weights). Figures: Recall@5 and MRR@10 on the dev set and its
 * halves, the build of the 1,577 tools and the search latency (all in this
 * one process, after a warm-up build, so they compare with each other), and
 * the package's minified gzip size when bundled for a browser.
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { build, stop } from "esbuild";
import { createRequire } from "node:module";
import { analyse, terms } from "../src/search/_analyze.ts";
import { FIELD_TERMS, FIELDS, readFields } from "../src/search/_fields.ts";
import { buildVocabulary, SYNONYMS } from "../src/search/_vocabulary.ts";
import { createLexicalRanker, DEFAULT_TUNING } from "../src/search/lexical.ts";
import type { ToolSearchEntry } from "../src/search/types.ts";
import { type BenchmarkCatalog, entriesOf } from "./toolsearch_ranker.ts";
import { type Query, score, type Scores } from "./toolsearch_tune.ts";

/** A ranker under test: built from entries, a query in, ids out. */
type Rank = (query: string, k: number) => string[] | Promise<string[]>;

/** The text fields every package indexes, as strings. */
interface Doc {
  id: string;
  name: string;
  title: string;
  description: string;
  parameters: string;
  server: string;
}

/** Field boosts shared by the packages (the baseline's, plus title). */
const BOOST = { name: 2, title: 2, description: 1, parameters: 0.5, server: 1 };
const TEXT_FIELDS = Object.keys(BOOST) as (keyof typeof BOOST)[];

// The benchmark baseline's text preparation (rankers/text.mjs).
const STOP = new Set(
  "a an and are as at be by for from has have i in into is it its me my of on or our please so that the their them then this to us was we what when where which with you your can could would should will do does did how all any some via using use get"
    .split(" "),
);
function splitIdentifier(text: string): string {
  return String(text).replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").replace(/[_\-./:]+/g, " ");
}
function baselineTokens(text: string): string[] {
  return splitIdentifier(text).toLowerCase().split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token && !STOP.has(token));
}
function schemaText(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== "object" || depth > 2) return "";
  const out: string[] = [];
  const properties = (schema as { properties?: Record<string, unknown> })
    .properties ?? {};
  for (const [key, value] of Object.entries(properties)) {
    out.push(splitIdentifier(key));
    const node = value as Record<string, unknown> | null;
    if (node && typeof node.description === "string") {
      out.push(node.description);
    }
    if (node && node.type === "object") out.push(schemaText(node, depth + 1));
    if (node && node.items && typeof node.items === "object") {
      out.push(schemaText(node.items, depth + 1));
    }
  }
  return out.join(" ");
}

function plainDocs(entries: ToolSearchEntry[]): Doc[] {
  return entries.map((entry) => ({
    id: entry.id,
    name: splitIdentifier(entry.name),
    title: entry.title ?? "",
    description: entry.description ?? "",
    parameters: schemaText(entry.inputSchema),
    server: splitIdentifier(entry.server),
  }));
}

/** An entry's terms, field by field, as the lexical index reads them. */
function fieldTerms(entry: ToolSearchEntry): string[][] {
  const fields = FIELDS.map((): string[] => []);
  readFields(entry, (field, text, maxChars) => {
    const room = FIELD_TERMS[field]! - fields[field]!.length;
    if (room > 0) fields[field]!.push(...terms(text, maxChars, room));
  });
  return fields;
}

/** The same fields as this library's analysis sees them, as terms. */
function analysedDocs(entries: ToolSearchEntry[]): Doc[] {
  const at = (field: typeof FIELDS[number]) => FIELDS.indexOf(field);
  return entries.map((entry) => {
    const fields = fieldTerms(entry);
    return {
      id: entry.id,
      name: fields[at("name")]!.join(" "),
      title: fields[at("title")]!.join(" "),
      description: fields[at("description")]!.join(" "),
      parameters: [
        ...fields[at("parameters")]!,
        ...fields[at("parameterText")]!,
      ]
        .join(" "),
      server: fields[at("server")]!.join(" "),
    };
  });
}

const vocabulary = buildVocabulary(SYNONYMS, DEFAULT_TUNING.synonymWeight);

/** A query's terms and their weights: its words, then their synonyms. */
function analysedQuery(query: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const word of analyse(query, 2_048, 64)) {
    for (const term of [...word.parts, ...(word.whole ? [word.whole] : [])]) {
      weights.set(term, 1);
      for (const { term: other, weight } of vocabulary.get(term) ?? []) {
        if (!weights.has(other)) weights.set(other, weight);
      }
    }
  }
  return weights;
}

/**
 * The compared packages, loaded from the scratch folder they were installed
 * in (their CommonJS builds; typed here as far as this script uses them).
 */
interface Packages {
  // deno-lint-ignore no-explicit-any
  MiniSearch: any;
  // deno-lint-ignore no-explicit-any
  orama: { create: any; insert: any; search: any };
  // deno-lint-ignore no-explicit-any
  FlexSearch: { Document: any };
  // deno-lint-ignore no-explicit-any
  bm25: () => any;
}

let packages: Packages;

function loadPackages(dir: string): Packages {
  const require = createRequire(join(dir, "package.json"));
  return {
    MiniSearch: require("minisearch"),
    orama: require("@orama/orama"),
    FlexSearch: require("flexsearch"),
    bm25: require("wink-bm25-text-search"),
  };
}

/** Splits pre-analysed text on spaces (the analysed variants' tokenizer). */
const spaces = (text: string) => text.split(" ").filter((term) => term !== "");

function miniSearch(analysed: boolean) {
  return (entries: ToolSearchEntry[]): Rank => {
    const index = new packages.MiniSearch({
      idField: "id",
      fields: TEXT_FIELDS,
      tokenize: analysed ? spaces : baselineTokens,
      processTerm: (term: string) => term,
      searchOptions: { boost: BOOST, combineWith: "OR" },
    });
    index.addAll(analysed ? analysedDocs(entries) : plainDocs(entries));
    return (query, k) => {
      if (!analysed) {
        return index.search(query).slice(0, k).map((hit: { id: string }) =>
          String(hit.id)
        );
      }
      const weights = analysedQuery(query);
      return index.search([...weights.keys()].join(" "), {
        boostTerm: (term: string) => weights.get(term) ?? 1,
      }).slice(0, k).map((hit: { id: string }) => String(hit.id));
    };
  };
}

function orama(analysed: boolean) {
  return async (entries: ToolSearchEntry[]): Promise<Rank> => {
    const schema = Object.fromEntries(
      [...TEXT_FIELDS, "key"].map((field) => [field, "string"]),
    ) as Record<keyof typeof BOOST | "key", "string">;
    const { create, insert, search } = packages.orama;
    const db = create({
      schema,
      components: {
        tokenizer: {
          language: "english",
          normalizationCache: new Map(),
          tokenize: analysed ? spaces : baselineTokens,
        },
      },
    });
    const docs = analysed ? analysedDocs(entries) : plainDocs(entries);
    for (const doc of docs) {
      await insert(db, { ...doc, id: doc.id, key: doc.id });
    }
    return async (query, k) => {
      const term = analysed
        ? [...analysedQuery(query).keys()].join(" ")
        : query;
      const result = await search(db, {
        term,
        properties: TEXT_FIELDS,
        boost: BOOST,
        limit: k,
        threshold: 1,
      });
      return result.hits.map((hit: { document: { key: string } }) =>
        String(hit.document.key)
      );
    };
  };
}

function flexSearch(analysed: boolean) {
  return (entries: ToolSearchEntry[]): Rank => {
    const index = new packages.FlexSearch.Document({
      document: { id: "id", index: TEXT_FIELDS },
      tokenize: "strict",
      encode: analysed ? spaces : baselineTokens,
    });
    const docs = analysed ? analysedDocs(entries) : plainDocs(entries);
    for (const doc of docs) index.add(doc);
    return (query, k) => {
      const text = analysed
        ? [...analysedQuery(query).keys()].join(" ")
        : query;
      // FlexSearch ranks within each field without scores: merge the
      // fields' rankings by boosted reciprocal rank.
      const merged = new Map<string, number>();
      const results = index.search(text, { limit: 100, suggest: true }) as {
        field: keyof typeof BOOST;
        result: (string | number)[];
      }[];
      for (const { field, result } of results) {
        result.forEach((id, rank) => {
          const key = String(id);
          merged.set(key, (merged.get(key) ?? 0) + BOOST[field] / (rank + 1));
        });
      }
      return [...merged].sort((a, b) => b[1] - a[1]).slice(0, k).map(([id]) =>
        id
      );
    };
  };
}

function winkBm25(analysed: boolean) {
  return (entries: ToolSearchEntry[]): Rank => {
    const engine = packages.bm25();
    engine.defineConfig({ fldWeights: BOOST });
    engine.definePrepTasks([analysed ? spaces : baselineTokens]);
    const docs = analysed ? analysedDocs(entries) : plainDocs(entries);
    docs.forEach((doc) => engine.addDoc(doc, doc.id));
    engine.consolidate();
    return (query, k) => {
      const text = analysed
        ? [...analysedQuery(query).keys()].join(" ")
        : query;
      return (engine.search(text, k) as [string, number][]).map(([id]) => id);
    };
  };
}

function builtIn(entries: ToolSearchEntry[]): Rank {
  const ranker = createLexicalRanker();
  ranker.add(entries);
  return (query, k) => ranker.search(query, { k }).map((hit) => hit.id);
}

/** The packages, pinned, as their bundles install them. */
const PACKAGES: Record<string, string> = {
  "minisearch": "7.2.0",
  "@orama/orama": "3.1.18",
  "flexsearch": "0.8.212",
  "wink-bm25-text-search": "3.1.2",
};

/** Installs {@linkcode PACKAGES} with npm into a scratch folder. */
async function installPackages(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolsearch-packages-" });
  await Deno.writeTextFile(
    join(dir, "package.json"),
    JSON.stringify({ private: true, dependencies: PACKAGES }),
  );
  const { success } = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--ignore-scripts"],
    cwd: dir,
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("npm install of the compared packages failed");
  return dir;
}

/** Minified gzip size of a browser bundle of `source`, resolved in `dir`. */
async function bundleSize(source: string, dir: string): Promise<number> {
  const result = await build({
    stdin: { contents: source, resolveDir: dir, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  const gzipped = await new Response(
    new Blob([result.outputFiles[0]!.text]).stream().pipeThrough(
      new CompressionStream("gzip"),
    ),
  ).arrayBuffer();
  return gzipped.byteLength;
}

interface Contender {
  name: string;
  incremental: string;
  make: (entries: ToolSearchEntry[]) => Rank | Promise<Rank>;
  /** What a bundle of it imports, or undefined to skip the measure. */
  bundle?: string;
}

const CONTENDERS: Contender[] = [
  {
    name: "minisearch 7.2.0",
    incremental: "add, discard",
    make: miniSearch(false),
    bundle: 'export { default } from "minisearch";',
  },
  {
    name: "minisearch + our analysis",
    incremental: "add, discard",
    make: miniSearch(true),
  },
  {
    name: "@orama/orama 3.1.18",
    incremental: "insert, remove",
    make: orama(false),
    bundle: 'export { create, insert, remove, search } from "@orama/orama";',
  },
  {
    name: "orama + our analysis",
    incremental: "insert, remove",
    make: orama(true),
  },
  {
    name: "flexsearch 0.8.212",
    incremental: "add, remove",
    make: flexSearch(false),
    bundle: 'export { default } from "flexsearch";',
  },
  {
    name: "flexsearch + our analysis",
    incremental: "add, remove",
    make: flexSearch(true),
  },
  {
    name: "wink-bm25-text-search 3.1.2",
    incremental: "no (consolidate() once)",
    make: winkBm25(false),
    bundle: 'export { default } from "wink-bm25-text-search";',
  },
  {
    name: "wink-bm25 + our analysis",
    incremental: "no (consolidate() once)",
    make: winkBm25(true),
  },
  {
    name: "built-in (createLexicalRanker)",
    incremental: "add, remove",
    make: builtIn,
    bundle: `export { createLexicalRanker } from "${
      new URL("../search.ts", import.meta.url).pathname
    }";`,
  },
];

function format(scores: Scores): string {
  return `${scores.r5.toFixed(3)} / ${scores.mrr.toFixed(3)}`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      toolsearch: { type: "string", default: "/work/shared/toolsearch" },
    },
  });
  const catalog: BenchmarkCatalog = JSON.parse(
    await Deno.readTextFile(join(values.toolsearch, "catalog.json")),
  );
  const queries: Query[] = JSON.parse(
    await Deno.readTextFile(join(values.toolsearch, "queries.dev.json")),
  );
  const entries = entriesOf(catalog);
  const installed = await installPackages();
  packages = loadPackages(installed);
  const halves = [
    queries.filter((_, i) => i % 2 === 0),
    queries.filter((_, i) => i % 2 === 1),
  ];
  // deno-lint-ignore no-console
  console.log(
    "| ranker | dev R@5 / MRR | half A | half B | build | mean / p95 search | gzip | add/remove |\n|---|---|---|---|---:|---:|---:|---|",
  );
  for (const contender of CONTENDERS) {
    await contender.make(entries); // warm-up: compile the code paths
    const start = performance.now();
    const rank = await contender.make(entries);
    const buildMs = performance.now() - start;
    const latencies: number[] = [];
    const timed = async (query: string) => {
      const began = performance.now();
      const ids = await rank(query, 10);
      latencies.push(performance.now() - began);
      return ids;
    };
    const all = await score(queries, timed);
    const [a, b] = [
      await score(halves[0]!, timed),
      await score(halves[1]!, timed),
    ];
    latencies.sort((x, y) => x - y);
    const mean = latencies.reduce((x, y) => x + y, 0) / latencies.length;
    const p95 = latencies[Math.ceil(0.95 * latencies.length) - 1]!;
    const gzip = contender.bundle === undefined
      ? ""
      : `${
        ((await bundleSize(contender.bundle, installed)) / 1024).toFixed(1)
      } KiB`;
    // deno-lint-ignore no-console
    console.log(
      `| ${contender.name} | ${format(all)} | ${format(a)} | ${format(b)} | ${
        buildMs.toFixed(0)
      } ms | ${(mean * 1000).toFixed(0)} / ${
        (p95 * 1000).toFixed(0)
      } µs | ${gzip} | ${contender.incremental} |`,
    );
  }
  // deno-lint-ignore no-console
  console.log(`(${queries.length} dev queries, ${entries.length} tools)`);
  await Deno.remove(installed, { recursive: true });
  await stop();
}
