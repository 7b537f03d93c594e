/**
 * The one neutraliser of text on its way into telemetry: masked before it
 * is cut, whatever the masking does to the text's length.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { secretsOf } from "../../src/util/redact.ts";
import { MAX_SPAN_TEXT, spanText } from "../../src/telemetry/_span_text.ts";

describe("spanText()", () => {
  it("a secret masked early does not pull the head of a later one, cut by the prefix read, into what is kept", () => {
    const secret = `sk-${"A1b2C3d4".repeat(12)}`; // 99 characters
    const secrets = secretsOf([["API_KEY", secret]]);
    // An error echoing the key three times: the last one starts 50
    // characters past the kept length, where the prefix read ends inside it.
    const text = `${secret}${"x".repeat(MAX_SPAN_TEXT - 49 - secret.length)}${
      secret.repeat(2)
    }`;
    const shown = spanText(text, secrets);
    assert.ok(!shown.includes("sk-A1b2"), shown.slice(-60));
    assert.ok(shown.length <= MAX_SPAN_TEXT, `${shown.length}`);
    assert.ok(shown.startsWith("[redacted]x"), shown.slice(0, 20));
    assert.ok(shown.endsWith("…"), shown.slice(-20));
  });

  it("keeps a short text whole and masks it; a long one is cut with an ellipsis", () => {
    const secrets = secretsOf([["TOKEN", "hunter2hunter2"]]);
    assert.equal(spanText("bad hunter2hunter2", secrets), "bad [redacted]");
    const long = spanText("y".repeat(MAX_SPAN_TEXT + 5), secrets);
    assert.equal(long.length, MAX_SPAN_TEXT);
    assert.ok(long.endsWith("…"));
    assert.equal(
      spanText("z".repeat(MAX_SPAN_TEXT), []),
      "z".repeat(MAX_SPAN_TEXT),
    );
  });
});
