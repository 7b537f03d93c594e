/**
 * Text from a server made safe to put before a model: the one neutraliser
 * every model-bound text of a server passes (tool titles and descriptions,
 * instructions). What a person reviewing the text cannot see, a model
 * still reads: control characters, format characters (zero-width spaces
 * and joiners, the soft hyphen, bidirectional overrides) and Unicode tag
 * characters, which models read as the ASCII they shadow. All of them are
 * removed, with lone surrogates; line breaks become `\n`. Internal.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";

/** Line breaks of every kind: CR LF, CR, NEL, the line and paragraph separators. */
const BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
/**
 * Controls but newline and tab; format characters (`Cf`: soft hyphen,
 * zero-width characters, bidi controls, tags); every default-ignorable
 * code point (variation selectors, Hangul fillers, tag characters); lone
 * surrogates.
 */
const UNSEEN =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}]/gu;
/**
 * A quick first look, for the common clean text: `\r`, and every UTF-16
 * unit of what `UNSEEN` or `BREAKS` match — `UNSEEN`'s ranges (Unicode 16)
 * spelt out, and the high surrogates of its astral ones — without the `u`
 * flag, which scans 2–4 times as fast. A match only sends the text down
 * the full path; `tests/models/model_text_test.ts` checks that it covers
 * every code point `UNSEEN` matches. Lone surrogates: `isWellFormed()`.
 */
const MAYBE =
  // deno-lint-ignore no-control-regex
  /[\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u17b4-\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ud804\ud80d\ud82f\ud834\udb40-\udb43]/;

/**
 * `text` with what a person cannot see but a model reads taken out. With
 * `normalize`, NFKC besides: compatibility forms (fullwidth `＜／`,
 * ligatures, superscripts) become the characters a model reads them as,
 * so that a pattern matched afterwards matches every spelling.
 */
export function modelText(text: string, normalize = false): string {
  if (!normalize && !MAYBE.test(text) && text.isWellFormed()) return text;
  const seen = text.replace(BREAKS, "\n").replace(UNSEEN, "");
  // NFKC can make nothing unseen, but what it joins is checked again.
  return normalize ? seen.normalize("NFKC").replace(UNSEEN, "") : seen;
}

/** The characters NFKC reads as `<`: itself, and its small and fullwidth forms. */
const OPENERS = /[<\uFE64\uFF1C]/g;
const SPACE = /\s/;

/**
 * `text` with every spelling of tag `name`, opening or closing, that a
 * model reads as it defused: `_` after its `<`, so that a model reads it as
 * text. A spelling is what NFKC folds to the tag, in any case, with
 * whitespace (line breaks too) before, after and between any of its
 * characters: fullwidth and small forms, mathematical, circled and
 * superscript letters. Each character is folded on its own, so `text`
 * itself need not be NFKC-normalised (a resource's `x²` stays `x²`), and
 * what is unseen must already be out of it (`modelText`). Linear in the
 * text: a match reads on from a `<` only while the tag's characters come.
 *
 * @param name The tag's name: lower-case ASCII letters and `-`.
 */
export function defuseTag(text: string, name: string): string {
  let out = "";
  let from = 0;
  for (const { index } of text.matchAll(OPENERS)) {
    // Most `<` start something else (`<div`): an ASCII character that
    // cannot begin the tag answers at once.
    const after = text[index + 1] ?? "";
    if (
      after.charCodeAt(0) < 0x80 && after !== "/" &&
      after.toLowerCase() !== name[0] && !SPACE.test(after)
    ) continue;
    if (!spellsTag(text, index + 1, name)) continue;
    out += `${text.slice(from, index + 1)}_`;
    from = index + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Whether `text` from `start` on reads as `/name` or `name`, as `defuseTag()` reads it. */
function spellsTag(text: string, start: number, name: string): boolean {
  let at = start;
  let folded = "";
  /** The next character as NFKC folds it, lower case, whitespace skipped. */
  const next = (): string | undefined => {
    for (;;) {
      if (folded === "") {
        if (at >= text.length) return undefined;
        const code = text.codePointAt(at)!;
        const char = String.fromCodePoint(code);
        at += char.length;
        folded = code < 0x80 ? char : char.normalize("NFKC");
        continue;
      }
      const char = folded[0]!;
      folded = folded.slice(1);
      if (!SPACE.test(char)) return char.toLowerCase();
    }
  };
  let char = next();
  if (char === "/") char = next();
  for (let index = 0; index < name.length; index++) {
    if (index > 0) char = next();
    if (char !== name[index]) return false;
  }
  return true;
}

/**
 * A boundary marker for a text block that `texts` cannot forge: 16 hex
 * digits derived from the texts themselves (the same texts give the same
 * marker, so the output stays byte-identical across calls, for prompt
 * caches), and found in none of them.
 */
export function boundaryMarker(texts: readonly string[]): string {
  const all = texts.join("\u0000");
  for (let seed = 0;; seed++) {
    const marker = hash64(all, seed);
    if (!texts.some((text) => text.includes(marker))) return marker;
  }
}

/** 64 bits of a non-cryptographic hash of `text` (cyrb53's mixing, both halves), as hex. */
function hash64(text: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^
    Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^
    Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, "0") +
    (h1 >>> 0).toString(16).padStart(8, "0");
}

/** Keywords whose values are data the model echoes back, never text to neutralise. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);
/** Keywords whose values map names to schemas: there a key is a name, never a keyword. */
const NAME_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

/**
 * `schema` with every `description` and `title` string through
 * `modelText` (the texts a dialect derives from them, "Default: …",
 * "One of: …", are in a `description` too). Property names and the values
 * a model must echo back (`enum`, `const`, `default`, `examples`) are
 * left as they are: changed, the call would not match the tool; a
 * property *named* `default` or `description` is a schema like any other.
 * Nodes are copied only where something changed; the input is not
 * touched. Throws past `maxDepth` levels.
 */
export function schemaText(schema: unknown, maxDepth: number): unknown {
  const walk = (node: unknown, depth: number, names: boolean): unknown => {
    if (typeof node !== "object" || node === null) return node;
    if (depth > maxDepth) {
      throw new Error(
        `its input schema nests more than ${maxDepth} levels deep`,
      );
    }
    if (Array.isArray(node)) {
      let out: unknown[] | undefined;
      for (let index = 0; index < node.length; index++) {
        const item = walk(node[index], depth + 1, false);
        if (item !== node[index]) (out ??= [...node])[index] = item;
      }
      return out ?? node;
    }
    let out: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(node)) {
      const shown = names
        ? walk(value, depth + 1, false)
        : typeof value === "string"
        ? key === "description" || key === "title" ? modelText(value) : value
        : DATA_KEYWORDS.has(key)
        ? value
        : walk(value, depth + 1, NAME_MAPS.has(key));
      if (shown === value) continue;
      out ??= { ...node };
      setOwn(out, key, shown);
    }
    return out ?? node;
  };
  return walk(schema, 0, false);
}
