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

/** `<`, `/` and `-` in the forms NFKC reads as them: fullwidth and small. */
const LOOKALIKES: Readonly<Record<string, string>> = {
  "<": "<\\uFE64\\uFF1C",
  "/": "/\\uFF0F",
  "-": "\\-\\uFE63\\uFF0D",
};

/**
 * A pattern for every spelling of tag `name`, opening or closing, that a
 * model reads as it once what is unseen is gone (`modelText`): any case,
 * whitespace — line breaks too — before, after and between any of its
 * characters, and `<`, `/`, `-` and ASCII letters in their fullwidth (and
 * small) forms, for text that is not NFKC-normalised. Each `\s*` is
 * followed by a fixed character, so a match costs time linear in the text.
 *
 * @param name The tag's name: ASCII letters and `-`.
 */
export function spelledTag(name: string): RegExp {
  const char = (c: string) => {
    const code = c.charCodeAt(0);
    return /[a-z]/i.test(c)
      ? `[${c}\\u{${(code + 0xfee0).toString(16)}}]`
      : `[${LOOKALIKES[c]}]`;
  };
  return new RegExp(
    `${char("<")}\\s*(?:${char("/")}\\s*)?${[...name].map(char).join("\\s*")}`,
    "giu",
  );
}

/**
 * `text` with every spelling of a tag that `pattern` (`spelledTag()`)
 * matches defused: `_` after its `<`, so that a model reads it as text.
 */
export function defuseTag(text: string, pattern: RegExp): string {
  return text.replace(pattern, (tag) => `${tag[0]}_${tag.slice(1)}`);
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
