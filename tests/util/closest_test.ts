import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closest, didYouMean } from "../../src/util/closest.ts";

describe("closest(): the one did-you-mean policy", () => {
  it("ignores case and the separators - _ . and spaces", () => {
    assert.equal(closest("READ-ONLY", ["read_only", "writes"]), "read_only");
    assert.equal(closest("getSum", ["get-sum", "echo"]), "get-sum");
  });

  it("suggests within a third of the name's length, and never past 3 edits", () => {
    assert.equal(closest("cmd", ["cwd"]), "cwd"); // 1 edit of 3 letters
    assert.equal(closest("cmx", ["cwd"]), undefined); // 2 edits of 3 letters
    assert.equal(closest("timeot", ["timeout"]), "timeout");
    const long = "notifications_list";
    assert.equal(closest("notificatxxxxx_list", [long]), undefined);
  });

  it("compares the other forms a caller gives (a tool name without its namespace)", () => {
    const names = ["notes__get_note", "notes__delete_note"];
    assert.equal(closest("get_note", names), undefined);
    assert.equal(
      closest("get_note", names, {
        forms: (name) => [name.slice(name.indexOf("__") + 2)],
      }),
      "notes__get_note",
    );
  });

  it("words the hint, or says nothing", () => {
    assert.equal(
      didYouMean("comand", ["command"]),
      ' (did you mean "command"?)',
    );
    assert.equal(didYouMean("zzz", ["command"]), "");
  });
});
