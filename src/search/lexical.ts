/**
 * The built-in tool ranker: lexical, incremental, web standards only.
 *
 * @module
 */

import { MCPConfigError } from "../errors.ts";
import { FIELDS } from "./_fields.ts";
import { LexicalIndex, type Tuning } from "./_index.ts";
import { buildVocabulary, SYNONYMS } from "./_vocabulary.ts";
import type {
  ToolRanker,
  ToolRankerSearchOptions,
  ToolSearchEntry,
  ToolSearchHit,
} from "./types.ts";

/** How much each field of a tool counts; see {@linkcode LexicalRankerOptions}. */
export interface LexicalFieldWeights {
  /** The tool's name, split into words. */
  name?: number;
  /** Its title (and `annotations.title`). */
  title?: number;
  /** Its description. */
  description?: number;
  /** Its parameters' names. */
  parameters?: number;
  /** Its parameters' descriptions and enum values. */
  parameterText?: number;
  /** The name of the server that lists it. */
  server?: number;
}

/**
 * The built-in ranker: a {@linkcode ToolRanker} whose search answers at
 * once (it never returns a promise).
 */
export interface LexicalRanker extends ToolRanker {
  /** The best entries for `query`, best first, at most `k`. */
  search(query: string, options: ToolRankerSearchOptions): ToolSearchHit[];
}

/** Options of {@linkcode createLexicalRanker}. */
export interface LexicalRankerOptions {
  /**
   * More groups of words the host's users and tools use for the same thing
   * (`["invoice", "bill"]`, a product's nickname and its name), added to the
   * built-in vocabulary of everyday verbs, abbreviations and nouns.
   */
  synonyms?: readonly (readonly string[])[];
  /** Field weights, replacing the tuned defaults field by field. */
  fieldWeights?: LexicalFieldWeights;
}

/**
 * The tuned defaults (see docs/tool-search.md for the benchmark and the
 * reason behind each).
 */
export const DEFAULT_TUNING: Readonly<Tuning> & {
  readonly synonymWeight: number;
} = {
  // name, title, description, parameters, parameterText, server
  weights: [1.5, 2, 1, 0.5, 0.3, 1],
  b: [0.3, 0.3, 0.75, 0.5, 0.5, 0],
  // Typical lengths in terms (the mean lengths of 1,577 real tools' fields,
  // rounded): BM25's average length, fixed.
  pivots: [3, 4, 40, 12, 50, 2],
  k1: 1.2,
  serverPrior: 0.5,
  joinWords: true,
  nameCoverage: 2,
  phrases: true,
  synonymWeight: 0.6,
  intentPenalty: 0.7,
};

/**
 * Creates the built-in lexical ranker: BM25F over each tool's name (split at
 * `_`, `-`, camelCase and digits), title, description, parameter names and
 * descriptions and server name, with a light stemmer, the everyday synonyms
 * and abbreviations of software work (get/fetch/show, delete/remove,
 * repo/PR/k8s, …) and a prior for the servers a request speaks of. It is
 * kept current by {@linkcode ToolRanker.add} and {@linkcode ToolRanker.remove}
 * without a rebuild, reads every field with bounds (a tool's text is server
 * data), skips entries that are not tools, and searches synchronously.
 *
 * @param options Extra synonyms, field weights.
 * @returns A {@linkcode ToolRanker}.
 *
 * @example Find a tool by what it does
 * ```ts
 * import { createLexicalRanker } from "./lexical.ts";
 *
 * const ranker = createLexicalRanker();
 * ranker.add([
 *   {
 *     id: "files/remove_file",
 *     server: "files",
 *     name: "remove_file",
 *     description: "Removes a file from the workspace.",
 *   },
 *   {
 *     id: "files/read_file",
 *     server: "files",
 *     name: "read_file",
 *     description: "Reads a file.",
 *   },
 * ]);
 * const [hit] = ranker.search("delete the old log file", { k: 1 });
 * console.log(hit?.id); // "files/remove_file"
 * ```
 */
export function createLexicalRanker(
  options: LexicalRankerOptions = {},
): LexicalRanker {
  const weights = [...DEFAULT_TUNING.weights];
  const given = options.fieldWeights ?? {};
  FIELDS.forEach((field, index) => {
    const weight = given[field];
    if (weight === undefined) return;
    if (!(typeof weight === "number" && weight >= 0 && weight < Infinity)) {
      throw new MCPConfigError(
        `fieldWeights.${field}`,
        `createLexicalRanker()'s fieldWeights.${field} is ${
          String(weight)
        }: give a finite number of 0 or more`,
      );
    }
    weights[index] = weight;
  });
  const groups = [...SYNONYMS, ...checkedSynonyms(options.synonyms)];
  const index = new LexicalIndex(
    { ...DEFAULT_TUNING, weights },
    buildVocabulary(groups, DEFAULT_TUNING.synonymWeight),
  );
  return {
    add(entries: readonly ToolSearchEntry[]): void {
      index.add(entries);
    },
    remove(ids: readonly string[]): void {
      index.remove(ids);
    },
    search(query: string, options: ToolRankerSearchOptions): ToolSearchHit[] {
      return index.search(query, options.k, options.accept);
    },
  };
}

function checkedSynonyms(
  groups: readonly (readonly string[])[] | undefined,
): (readonly string[])[] {
  if (groups === undefined) return [];
  if (!Array.isArray(groups)) {
    throw new MCPConfigError(
      "synonyms",
      'createLexicalRanker()\'s synonyms must be a list of lists of words, like [["invoice", "bill"]]',
    );
  }
  return groups.map((group, index) => {
    if (
      !Array.isArray(group) || !group.every((word) => typeof word === "string")
    ) {
      throw new MCPConfigError(
        `synonyms[${index}]`,
        `createLexicalRanker()'s synonyms[${index}] must be a list of words, like ["invoice", "bill"]`,
      );
    }
    return group;
  });
}
