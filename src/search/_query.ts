/**
 * How the lexical index reads a request: its words, once each, as the terms
 * the index knows. Internal.
 *
 * @module
 */

import { Scanner } from "./_analyze.ts";
import type { Lexicon } from "./_lexicon.ts";
import { QUESTION_WORDS, READ } from "./_intent.ts";
import { phraseOf } from "./_vocabulary.ts";

/** Characters read of a query. */
export const QUERY_CHARS = 2_048;
/** Words read of a query (function words not counted). */
export const QUERY_WORDS = 64;

/** What a query's reading needs of the index. */
export interface QueryOptions {
  /** Whether phrasal verbs ("turn on") are read as the verbs tools use. */
  phrases: boolean;
  /** Whether adjacent words are also tried joined (`argo cd`). */
  joinWords: boolean;
  /** Whether any tool has a term. */
  used(term: string): boolean;
  /** The kinds of action a term's word names (`_intent.ts`), as a mask. */
  intentOf(term: number): number;
}

/** Words after which a verb leads a clause ("… and delete", "please list"). */
const CLAUSE_OPENERS: ReadonlySet<string> = new Set(
  "and then please to me you also just".split(" "),
);

/** A request as the index reads it. */
export interface QueryReading {
  /** Its concepts, as the term numbers of its words. */
  concepts: number[];
  /** The kinds of action it asks for (`_intent.ts`), as a mask. */
  intent: number;
}

const SCANNER = new Scanner();

/**
 * A query's concepts, as the term numbers of its words, each once and in
 * order: a phrasal verb read as the verbs tools use, a word the tools write
 * joined (`OneDrive`, `argo cd`) as one concept, and words no tool and no
 * vocabulary entry knows left out.
 *
 * @param query The request, read up to {@linkcode QUERY_CHARS}.
 * @param lexicon The index's terms.
 * @param options The reading's switches, and which terms tools use.
 * @returns The term numbers, and the kinds of action asked for: those its
 *   verbs name, and reading when it is a question.
 */
export function queryConcepts(
  query: string,
  lexicon: Lexicon,
  options: QueryOptions,
): QueryReading {
  const concepts: number[] = [];
  let intent = 0;
  let leading = false;
  const push = (term: string) => {
    const id = lexicon.find(term);
    if (id < 0) return;
    // A verb counts where it leads a clause: "list" in "append a to-do
    // list" names a thing. "New" counts anywhere: "a new page" is made.
    if (leading || term === "new") intent |= options.intentOf(id);
    if (!concepts.includes(id)) concepts.push(id);
  };
  // The words, lower-cased pieces each; a phrasal verb is replaced by the
  // words it stands for.
  const words: string[][] = [];
  const text = typeof query === "string" ? query : "";
  SCANNER.reset(text, QUERY_CHARS);
  while (SCANNER.next()) {
    const pieces = [...SCANNER.pieces];
    const previous = words.at(-1);
    const phrase = options.phrases && previous?.length === 1 &&
        pieces.length === 1
      ? phraseOf(previous[0]!, pieces[0]!)
      : undefined;
    if (phrase === undefined) words.push(pieces);
    else {
      words.pop();
      for (const word of phrase) words.push([word]);
    }
  }
  const first = words[0];
  if (
    (first?.length === 1 && QUESTION_WORDS.has(first[0]!)) ||
    text.slice(0, QUERY_CHARS).trimEnd().endsWith("?")
  ) intent |= READ;
  let previous: string | undefined;
  let kept = 0;
  for (let w = 0; w < words.length; w++) {
    const pieces = words[w]!;
    const before = words[w - 1];
    leading = w === 0 ||
      (before?.length === 1 && CLAUSE_OPENERS.has(before[0]!));
    if (kept >= QUERY_WORDS) break;
    const parts: string[] = [];
    for (const piece of pieces) {
      const stem = lexicon.stemOf(piece);
      if (stem !== undefined) parts.push(stem);
    }
    const whole = pieces.length > 1
      ? lexicon.stemOf(pieces.join(""))
      : undefined;
    if (parts.length === 0 && whole === undefined) continue;
    kept++;
    // A joined word the tools use (`OneDrive`) is one concept, not two.
    if (whole !== undefined && options.used(whole)) {
      push(whole);
      previous = whole;
      continue;
    }
    for (const part of parts) {
      // Words written apart that tools write joined (`argo cd`).
      if (
        options.joinWords && previous !== undefined &&
        options.used(previous + part)
      ) push(previous + part);
      push(part);
      previous = part;
    }
  }
  return { concepts, intent };
}
