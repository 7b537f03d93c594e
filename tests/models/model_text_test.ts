/**
 * The model-text neutraliser's quick path (a clean text returned as it
 * is) misses nothing its full path takes out, for every code point.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { modelText } from "../../src/models/_model_text.ts";

describe("modelText", () => {
  it("takes out every code point it means to, the quick path included", () => {
    const unseen =
      // deno-lint-ignore no-control-regex
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
    const missed: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      const shown = code === 0x0d || code === 0x85 ? "a\nb" : "ab";
      if (unseen.test(char) && modelText(`a${char}b`) !== shown) {
        missed.push(code.toString(16));
      }
    }
    assert.deepEqual(missed, []);
    assert.equal(
      modelText("a\r\nb\rc\u2028d\u2029e\u0085f"),
      "a\nb\nc\nd\ne\nf",
    );
    assert.equal(modelText("a\ud800b\udc00c"), "abc", "lone surrogates");
    const clean = "plain é ✓ 😀 text\n\twith a tab";
    assert.strictEqual(modelText(clean), clean);
  });
});
