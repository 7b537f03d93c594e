/**
 * Property: for random result texts — ASCII, multi-byte characters, emoji
 * (surrogate pairs), lone surrogates, line breaks — and random budgets,
 * what a model is sent is within the budget (UTF-8 bytes ≤ 4 × maxTokens),
 * is well-formed UTF-16, starts with a prefix of the neutralised text (what
 * a person cannot see taken out, lone surrogates too) and ends with a
 * suffix of it, and the same input gives the same bytes; the host's share
 * is the result itself. Seeded and time-bounded (see `_fuzz.ts`).
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import type { MCPToolResult } from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { registryOf } from "../models/_tools.ts";
import { callOf, shareOf, utf8Bytes } from "../models/_share.ts";

/** Line breaks of every kind, and what the model-text neutraliser removes. */
const BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
const UNSEEN =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}]/gu;

const PIECE = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "\n",
    "é",
    "東京",
    "😀",
    "\ud800",
    "\udfff",
    "line\n",
    "\r\n",
    "\u200b",
    "\u{e0041}",
  ),
);
const TEXT = fc.array(PIECE, { maxLength: 4_000, size: "max" }).map((pieces) =>
  pieces.join("")
);

describe("fuzz: the result budget", () => {
  it("sends a well-formed head and tail within the budget, the same every time", async () => {
    let runs = 0;
    let cut = 0;
    await fc.assert(
      fc.asyncProperty(
        TEXT,
        fc.integer({ min: 256, max: 4_000 }),
        async (text, maxTokens) => {
          runs++;
          const result: MCPToolResult = {
            success: true,
            data: { content: [{ type: "text", text }] },
            error: null,
            durationMs: 0,
          };
          const tools = modelTools(
            registryOf("t", [{
              name: "get",
              description: "",
              inputSchema: { type: "object" },
            }], () => result),
            "anthropic",
            { resultBudget: { maxTokens } },
          );
          const call = callOf("anthropic", "t__get", {});
          const run = await tools.run(call);
          const sent = shareOf("anthropic", run.message).text;
          assert.strictEqual(run.result, result);
          assert.ok(utf8Bytes(sent) <= maxTokens * 4, "within the budget");
          assert.equal(sent, sent.toWellFormed(), "no lone surrogate");
          // What a person cannot see is taken out (lone surrogates too),
          // line breaks become \n; blank text is no content.
          const shown = text.replace(BREAKS, "\n").replace(UNSEEN, "");
          const whole = text.trim() === "" || shown === ""
            ? "(the tool returned no content)"
            : shown;
          if (run.cut === undefined) {
            assert.equal(sent, whole);
          } else {
            cut++;
            const marker = sent.indexOf("\n\n[… ");
            assert.ok(marker >= 0);
            assert.ok(whole.startsWith(sent.slice(0, marker)));
            const tail = sent.slice(sent.indexOf("]\n\n", marker) + 3);
            assert.ok(whole.endsWith(tail));
            assert.equal(run.cut.totalChars, whole.length);
            assert.equal(run.cut.shownChars, marker + tail.length);
          }
          const again = await tools.run(call);
          assert.equal(
            JSON.stringify(again.message),
            JSON.stringify(run.message),
          );
        },
      ),
      fuzzParameters("result budget"),
    );
    // deno-lint-ignore no-console
    console.log(`result budget: ${runs} texts, ${cut} cut`);
    assert.ok(cut > 0, "some texts were cut");
  });
});
