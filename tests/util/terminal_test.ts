import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { printable } from "../../src/util/terminal.ts";

describe("printable()", () => {
  it("writes control characters and bidi overrides as visible escapes, on one line", () => {
    assert.equal(
      printable("a\u001b[2Jb\u009bc\nd\te\u202ef\u2066"),
      "a\\x1b[2Jb\\x9bc\\x0ad\\x09e\\u202ef\\u2066",
    );
  });

  it("leaves ordinary text, accents and emoji as they are", () => {
    const text = "Grüße, 世界 👋 https://example.com/a?b=c";
    assert.equal(printable(text), text);
  });
});
