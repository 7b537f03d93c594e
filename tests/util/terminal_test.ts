import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  printable,
  printableJson,
  printableText,
} from "../../src/util/terminal.ts";

/** `text` in Unicode tags: invisible on a terminal, read by a model. */
const tags = (text: string) =>
  Array.from(text, (char) => String.fromCodePoint(0xe0000 + char.charCodeAt(0)))
    .join("");

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

  it("shows invisible characters: zero-width ones, the soft hyphen, fillers, tags, variation selectors", () => {
    // "read\u200bfile" would look like "readfile".
    assert.equal(printable("read\u200bfile"), "read\\u200bfile");
    assert.equal(
      printable(
        "a\u200c\u200d\u2060\u2064\ufeff\u00ad\u180e\u3164\u115f\u034fb",
      ),
      "a\\u200c\\u200d\\u2060\\u2064\\ufeff\\xad\\u180e\\u3164\\u115f\\u034fb",
    );
    // Astral code points escape whole, as \u{…}: a tag, a selector.
    assert.equal(
      printable(`Reads a file.${tags("IGNORE")}`),
      "Reads a file.\\u{e0049}\\u{e0047}\\u{e004e}\\u{e004f}\\u{e0052}\\u{e0045}",
    );
    assert.equal(
      printable("x\ufe00\ufe0e\ufe0f\u{e0100}\u{e01ef}"),
      "x\\ufe00\\ufe0e\\ufe0f\\u{e0100}\\u{e01ef}",
    );
  });

  it("keeps joiners and the emoji selector that draw an emoji, and escapes one more", () => {
    const emoji = "👩‍💻 ❤️ 👋🏽 🏳️‍🌈 👩🏽‍💻";
    assert.equal(printable(emoji), emoji);
    // Data smuggled after an emoji in selectors, a joiner between letters.
    assert.equal(
      printable("❤️\ufe0f\ufe01 👋\u200d a\u200db"),
      "❤️\\ufe0f\\ufe01 👋\\u200d a\\u200db",
    );
  });
});

describe("printableText()", () => {
  it("keeps newlines and tabs, escapes carriage returns and invisible characters", () => {
    assert.equal(
      printableText(`line\tone\r\nline two\u200b${tags("X")} ❤️`),
      "line\tone\\x0d\nline two\\u200b\\u{e0058} ❤️",
    );
  });
});

describe("printableJson()", () => {
  it("escapes invisible characters as JSON escapes, so it parses to the same value", () => {
    const value = { name: "read\u200bfile", d: `a${tags("HI")}\u0085 ❤️\n` };
    const json = printableJson(value, 2);
    assert.equal(
      json,
      '{\n  "name": "read\\u200bfile",\n  "d": "a\\udb40\\udc48\\udb40\\udc49\\u0085 ❤️\\n"\n}',
    );
    assert.deepEqual(JSON.parse(json), value);
  });
});
