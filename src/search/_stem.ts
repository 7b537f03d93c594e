/**
 * The light English stemmer of the lexical ranker. Internal.
 *
 * @module
 */

/**
 * A light English stemmer: steps 1 and 5 of Porter's algorithm (plurals,
 * `-ed`, `-ing`, `-y`, a final `e`), which conflate the inflections users and
 * authors mix ("deploy the branches", "deploys a branch") without the
 * suffix stripping of Porter's steps 2–4, which merges words of a small
 * technical vocabulary that mean different things (`generic` and
 * `generate`, `organization` and `organ`). Terms with digits and terms that
 * are not lower-case ASCII letters are left as they are.
 *
 * @param term A lower-case term.
 * @returns Its stem.
 */
export function stem(term: string): string {
  if (term.length < 3 || !isLowerAscii(term)) return term;
  let word = term;
  // 1a: plurals.
  if (word.endsWith("sses")) word = word.slice(0, -2);
  else if (word.endsWith("ies")) word = word.slice(0, -2);
  else if (word.endsWith("s") && !word.endsWith("ss")) word = word.slice(0, -1);
  // 1b: -eed, -ed, -ing.
  if (word.endsWith("eed")) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1);
  } else {
    const suffix = word.endsWith("ed") ? 2 : word.endsWith("ing") ? 3 : 0;
    if (suffix > 0 && hasVowel(word.slice(0, -suffix))) {
      word = word.slice(0, -suffix);
      if (word.endsWith("at") || word.endsWith("bl") || word.endsWith("iz")) {
        word += "e";
      } else if (endsDouble(word)) word = word.slice(0, -1);
      else if (measure(word) === 1 && endsCvc(word)) word += "e";
    }
  }
  // 1c: a final y after a vowel-bearing stem.
  if (word.endsWith("y") && hasVowel(word.slice(0, -1))) {
    word = word.slice(0, -1) + "i";
  }
  // 5: a final e, a final double l.
  if (word.endsWith("e")) {
    const rest = word.slice(0, -1);
    const m = measure(rest);
    if (m > 1 || (m === 1 && !endsCvc(rest))) word = rest;
  }
  if (word.endsWith("ll") && measure(word) > 1) word = word.slice(0, -1);
  return word;
}

/** Whether letter `i` of `word` is a consonant in Porter's sense. */
function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") {
    return false;
  }
  return c !== "y" || i === 0 || !isConsonant(word, i - 1);
}

/** Porter's m: how many vowel–consonant sequences `word` has. */
function measure(word: string): number {
  let m = 0;
  let vowel = false;
  for (let i = 0; i < word.length; i++) {
    if (!isConsonant(word, i)) vowel = true;
    else if (vowel) {
      m++;
      vowel = false;
    }
  }
  return m;
}

function hasVowel(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (!isConsonant(word, i)) return true;
  return false;
}

/** Ends consonant–vowel–consonant, the last not w, x or y (`hop`, `sav`). */
function endsCvc(word: string): boolean {
  const n = word.length;
  return n >= 3 && isConsonant(word, n - 1) && !isConsonant(word, n - 2) &&
    isConsonant(word, n - 3) && !"wxy".includes(word[n - 1]!);
}

/** Whether `term` is lower-case ASCII letters only. */
function isLowerAscii(term: string): boolean {
  for (let i = 0; i < term.length; i++) {
    const code = term.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

/** Ends in a double consonant other than l, s or z (`hopp`, not `fall`). */
function endsDouble(word: string): boolean {
  const n = word.length;
  const last = word[n - 1]!;
  return n >= 2 && last === word[n - 2] && !"aeiouylsz".includes(last);
}
