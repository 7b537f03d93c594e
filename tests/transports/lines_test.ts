import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter, LineTooLongError } from "../../src/transports/_lines.ts";

const encoder = new TextEncoder();

function split(
  chunks: (string | Uint8Array)[],
  maxLineBytes = 1024,
  overflow: "throw" | "split" = "throw",
): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), {
    maxLineBytes,
    overflow,
  });
  for (const chunk of chunks) {
    splitter.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  }
  splitter.end();
  return lines;
}

describe("LineSplitter", () => {
  it("splits on newlines, strips a trailing CR, skips empty lines and keeps the last unterminated line", () => {
    assert.deepEqual(split(["a\r\nb\n\n\nc"]), ["a", "b", "c"]);
  });

  it("hands on the same lines however the bytes are cut into chunks", () => {
    // CRLF, empty lines, multi-byte characters, a byte order mark opening a
    // line, an invalid byte and a line left unterminated.
    const bytes = Uint8Array.from([
      ...encoder.encode('{"a":"é✓"}\r\n\n\ufeff{"b":1}\n'),
      0xff,
      ...encoder.encode("x\n\r\n" + "z".repeat(20) + "\nend"),
    ]);
    // Each line decoded alone: what the splitter promises.
    const expected: string[] = [];
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 10) continue;
      let end = i;
      if (end > start && bytes[end - 1] === 13) end--;
      if (end > start) {
        expected.push(new TextDecoder().decode(bytes.subarray(start, end)));
      }
      start = i + 1;
    }
    assert.equal(expected.length, 5);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const max of [1024, 24]) {
        assert.deepEqual(
          split([bytes.subarray(0, cut), bytes.subarray(cut)], max),
          expected,
          `cut at ${cut}, limit ${max}`,
        );
      }
    }
    assert.deepEqual(
      split([...bytes].map((byte) => Uint8Array.of(byte))),
      expected,
    );
  });

  it("joins a line that spans chunks", () => {
    assert.deepEqual(split(['{"a":', "1", "}\n{", "}\n"]), [
      '{"a":1}',
      "{}",
    ]);
  });

  it("decodes a UTF-8 character cut between chunks", () => {
    const bytes = encoder.encode("héllo ✓\n");
    assert.deepEqual(
      split([bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)]),
      [
        "héllo ✓",
      ],
    );
  });

  it("throws LineTooLongError once a line passes the limit, in one chunk or many", () => {
    assert.throws(() => split(["x".repeat(11) + "\n"], 10), LineTooLongError);
    assert.throws(() => split(["xxxxxx", "xxxxxx"], 10), LineTooLongError);
    assert.deepEqual(split(["x".repeat(10) + "\n"], 10), ["x".repeat(10)]);
  });

  it("hands a line past the limit on in pieces when told to split", () => {
    const lines = split(["a".repeat(6), "a".repeat(6), "b\n"], 10, "split");
    assert.deepEqual(lines, ["a".repeat(12), "b"]);
  });

  it("takes a 64 MiB line in 64 KiB chunks (linear work: no re-scan, one join)", () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), {
      maxLineBytes: 64 * 1024 * 1024,
      overflow: "throw",
    });
    for (let i = 0; i < 1024; i++) splitter.push(chunk);
    splitter.push(encoder.encode("\n"));
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.length, 64 * 1024 * 1024);
  });
});
