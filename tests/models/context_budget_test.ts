/**
 * The result budget of `resourceMessages()` and `promptMessages()`, for
 * every provider: text over `maxTokens` keeps its head and tail with the
 * marker and the message fits; a read's contents share the budget (the
 * small whole, the large cut to equal shares, those that cannot have 1 KiB
 * left out and counted); each prompt message has its own; images are
 * counted over the call and bounded in size.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  promptMessages,
  resourceMessages,
} from "@cleveragents/mcp-adapter/models";
import { allText, assertRules, readBack } from "./_context.ts";
import { PROVIDERS } from "./_rules.ts";

const PNG = btoa("\x89PNG fake");
const utf8 = (text: string) => new TextEncoder().encode(text).length;

describe("the budget", () => {
  const LINES = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join(
    "\n",
  );
  for (const provider of PROVIDERS) {
    it(`${provider}: a resource's text over maxTokens keeps its head and tail with the marker, and the message fits`, () => {
      const messages = resourceMessages(
        { contents: [{ uri: "file:///log.txt", text: LINES }] },
        provider,
        { resultBudget: { maxTokens: 1_000 } },
      );
      assertRules(provider, messages);
      const text = allText(readBack(provider, messages));
      assert.ok(utf8(text) <= 4_000, String(utf8(text)));
      assert.match(text, />\nline 0\nline 1\n/);
      assert.match(text, /\nline 19999\n<\/mcp-resource-/);
      assert.match(
        text,
        new RegExp(
          `\\[… [\\d,]+ of ${
            LINES.length.toLocaleString("en-US")
          } characters cut here to fit the context \\(the first [\\d,]+ and the last [\\d,]+ are shown\\)\\. The host has the whole resource\\.\\]`,
        ),
      );
    });

    it(`${provider}: each prompt message has the budget; text over it is cut with the marker`, () => {
      const messages = promptMessages(
        {
          messages: [
            { role: "user", content: { type: "text", text: LINES } },
            { role: "assistant", content: { type: "text", text: LINES } },
            { role: "user", content: { type: "text", text: "short" } },
          ],
        },
        provider,
        { resultBudget: { maxTokens: 500 } },
      );
      assertRules(provider, messages);
      const reads = readBack(provider, messages);
      assert.equal(reads.length, 3);
      for (const read of reads.slice(0, 2)) {
        const text = read.texts.join("\n\n");
        assert.ok(utf8(text) <= 2_000, String(utf8(text)));
        assert.match(text, /^line 0\n/);
        assert.match(text, /line 19999$/);
        assert.match(
          text,
          /characters cut here to fit the context \([^)]*\)\. The host has the whole message\.\]/,
        );
      }
      assert.deepEqual(reads[2]!.texts, ["short"]);
    });
  }

  it("a read's contents share the budget: the small whole, the large cut to equal shares", () => {
    const small = "small text";
    const messages = resourceMessages(
      {
        contents: [
          { uri: "x:big-1", text: "#".repeat(50_000) },
          { uri: "x:small", text: small },
          { uri: "x:big-2", text: "%".repeat(80_000) },
        ],
      },
      "anthropic",
      { resultBudget: { maxTokens: 2_000 } },
    );
    const text = allText(readBack("anthropic", messages));
    assert.ok(utf8(text) <= 8_000, String(utf8(text)));
    assert.ok(text.includes(`uri="x:small">\n${small}\n</`));
    const shown = (char: string) => text.split(char).length - 1;
    // Each large text has half of what the preamble, tags and small text leave.
    assert.equal(shown("#"), shown("%"));
    assert.ok(shown("#") > 3_000, String(shown("#")));
    assert.match(text, /\[… 4\d,\d{3} of 50,000 characters cut here/);
    assert.match(text, /\[… 7\d,\d{3} of 80,000 characters cut here/);
  });

  it("large contents that cannot have 1 KiB each are left out, later ones first, and counted in one note; so are those past half the budget in tags", () => {
    const contents = Array.from({ length: 300 }, (_, i) => ({
      uri: `x:${i}`,
      text: "z".repeat(3_000),
    }));
    const messages = resourceMessages(
      { contents },
      "openai-chat",
      { resultBudget: { maxTokens: 2_000 } },
    );
    const text = allText(readBack("openai-chat", messages));
    assert.ok(utf8(text) <= 8_000, String(utf8(text)));
    const uris = [...text.matchAll(/ uri="(x:\d+)"/g)].map((m) => m[1]);
    assert.ok(uris.length >= 3 && uris.length < 10, uris.join());
    assert.deepEqual(uris, uris.map((_, i) => `x:${i}`));
    assert.equal(
      text.split(/characters cut here to fit the context/).length - 1,
      uris.length,
    );
    assert.ok(
      text.endsWith(
        `\n\n[${
          300 - uris.length
        } more of the 300 contents left out to fit the context; the host has them all]`,
      ),
      text.slice(-200),
    );
  });

  it("images are counted over the whole call, and one over maxImageBytes is a note", () => {
    const big = btoa("x".repeat(3_000));
    const image = (data: string) => ({
      role: "user" as const,
      content: { type: "image" as const, data, mimeType: "image/png" },
    });
    const messages = promptMessages(
      { messages: [image(PNG), image(big), image(PNG), image(PNG)] },
      "anthropic",
      { resultBudget: { maxImages: 2, maxImageBytes: 2_000 } },
    );
    const reads = readBack("anthropic", messages);
    assert.deepEqual(reads.map((read) => read.images), [
      ["image/png"],
      [],
      ["image/png"],
      [],
    ]);
    assert.deepEqual(reads[1]!.texts, [
      "[image omitted: image/png, 3,000 bytes, over the budget of 2,000 bytes per image]",
    ]);
    assert.deepEqual(reads[3]!.texts, [
      "[image omitted: image/png, 9 bytes, over the budget of 2 image(s)]",
    ]);
    const read = resourceMessages(
      {
        contents: [
          { uri: "x:1", mimeType: "image/png", blob: PNG },
          { uri: "x:2", mimeType: "image/png", blob: PNG },
        ],
      },
      "gemini",
      { resultBudget: { maxImages: 1 } },
    );
    const [only] = readBack("gemini", read);
    assert.deepEqual(only!.images, ["image/png"]);
    assert.match(
      allText([only!]),
      /uri="x:2" mimeType="image\/png">\n\[image omitted: image\/png, 9 bytes, over the budget of 1 image\(s\)\]\n</,
    );
  });

  it("Anthropic: an image type the API does not take is a note", () => {
    const [read] = readBack(
      "anthropic",
      resourceMessages({
        contents: [{ uri: "x:1", mimeType: "image/bmp", blob: PNG }],
      }, "anthropic"),
    );
    assert.deepEqual(read!.images, []);
    assert.match(
      allText([read!]),
      /\[image omitted: image\/bmp is not a type the model accepts\]/,
    );
  });
});
