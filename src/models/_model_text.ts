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

/**
 * The most characters of a server's description a model reads: a tool's,
 * and each one inside its input schema (about 2,000 tokens; real ones run
 * to a few thousand characters). What is past it is cut, with `…`: one
 * text must not fill the context.
 */
export const MAX_DESCRIPTION_CHARS = 8192;
/** The most characters of a title a model reads: a tool's, and each one inside its input schema. */
export const MAX_TITLE_CHARS = 256;

/** `text` cut to `max` characters, with `…`, never inside a surrogate pair. */
export function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Keywords whose values stay exactly as sent: data the model must match or
 * echo back (`enum`, `const`, `default`, `examples`, `pattern`), names
 * (`required`, `dependentRequired`, `propertyOrdering`) and what points at
 * names (`$ref`, …). Changed, the model's call would not match the tool,
 * or a reference would not resolve.
 */
const EXACT_KEYWORDS = new Set([
  "enum",
  "const",
  "default",
  "examples",
  "pattern",
  "required",
  "dependentRequired",
  "propertyOrdering",
  "type",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$schema",
]);
/** Keywords whose values map names to schemas: there a key is a name, never a keyword. */
const NAME_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);
/** Keywords whose values are a schema, or a list of schemas. */
const SCHEMA_KEYWORDS = new Set([
  "items",
  "additionalItems",
  "prefixItems",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "contentSchema",
  "not",
  "if",
  "then",
  "else",
  "anyOf",
  "oneOf",
  "allOf",
]);

/**
 * What a value of the schema is: a schema (or a list of them), a map of
 * names to schemas, or a value of another keyword (`$comment`, `x-…`,
 * `errorMessage`), which is text through and through.
 */
type Kind = "schema" | "names" | "other";

/**
 * `schema` as a model may read it: every string it holds is server text,
 * through `modelText` and cut to {@linkcode MAX_TITLE_CHARS} (a `title`)
 * or {@linkcode MAX_DESCRIPTION_CHARS} (a `description`, the texts a
 * dialect derives from them — "Default: …", "One of: …" — and any other
 * keyword's: `$comment`, `x-…`, `format`), at any depth. A key whose name
 * `modelText` would change, other than a property's, is left out (it is
 * no keyword). Property names and the values of
 * {@linkcode EXACT_KEYWORDS} are left as they are: changed, the call would
 * not match the tool; a property *named* `default` or `description` is a
 * schema like any other. Nodes are copied only where something changed;
 * the input is not touched. Throws past `maxDepth` levels.
 */
export function schemaText(schema: unknown, maxDepth: number): unknown {
  const walk = (
    node: unknown,
    depth: number,
    kind: Kind,
    max = MAX_DESCRIPTION_CHARS,
  ): unknown => {
    if (typeof node === "string") return bounded(modelText(node), max);
    if (typeof node !== "object" || node === null) return node;
    if (depth > maxDepth) {
      throw new Error(
        `its input schema nests more than ${maxDepth} levels deep`,
      );
    }
    if (Array.isArray(node)) {
      let out: unknown[] | undefined;
      for (let index = 0; index < node.length; index++) {
        const item = walk(node[index], depth + 1, kind);
        if (item !== node[index]) (out ??= [...node])[index] = item;
      }
      return out ?? node;
    }
    let out: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(node)) {
      if (kind !== "names" && modelText(key) !== key) {
        out ??= { ...node };
        delete out[key];
        continue;
      }
      const shown = kind === "names"
        // A name's value is a schema, or (`dependencies`) a list of names.
        ? Array.isArray(value) ? value : walk(value, depth + 1, "schema")
        : kind === "other"
        ? walk(value, depth + 1, "other")
        : EXACT_KEYWORDS.has(key)
        ? value
        : walk(
          value,
          depth + 1,
          NAME_MAPS.has(key)
            ? "names"
            : SCHEMA_KEYWORDS.has(key)
            ? "schema"
            : "other",
          key === "title" ? MAX_TITLE_CHARS : MAX_DESCRIPTION_CHARS,
        );
      if (shown === value) continue;
      out ??= { ...node };
      setOwn(out, key, shown);
    }
    return out ?? node;
  };
  return walk(schema, 0, "schema");
}
