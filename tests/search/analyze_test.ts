/**
 * The lexical ranker's text analysis: how tool text and queries become terms.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { analyse, terms } from "../../src/search/_analyze.ts";
import { stem } from "../../src/search/_stem.ts";
import { phraseOf } from "../../src/search/_vocabulary.ts";

describe("terms()", () => {
  it("splits identifiers at snake_case, kebab-case, camelCase, acronyms and digits", () => {
    assert.deepEqual(terms("list_allowed_directories", 100, 100), [
      "list",
      "allow",
      "directori",
    ]);
    assert.deepEqual(terms("get-flag-status", 100, 100), [
      "get",
      "flag",
      "statu",
    ]);
    // A camelCase word gives its parts, then itself whole.
    assert.deepEqual(terms("createCollection", 100, 100), [
      "creat",
      "collection",
      "createcollection",
    ]);
    assert.deepEqual(terms("HTTPServer", 100, 100), [
      "http",
      "server",
      "httpserver",
    ]);
    assert.deepEqual(terms("fetchSelfHealedSelectors", 100, 100).slice(0, 4), [
      "fetch",
      "self",
      "heal",
      "selector",
    ]);
    assert.deepEqual(terms("k8s v2Api", 100, 100), ["k8s", "api", "v2api"]);
    // An acronym's plural stays one word.
    assert.deepEqual(terms("PRs IDs", 100, 100), ["pr", "id"]);
  });

  it("drops function words, single characters and runs too long to be words", () => {
    assert.deepEqual(terms("Show me a list of the files", 100, 100), [
      "show",
      "list",
      "file",
    ]);
    assert.deepEqual(terms(`x ${"a".repeat(41)} ok`, 200, 100), ["ok"]);
  });

  it("folds accents and compatibility forms, and treats other symbols as spaces", () => {
    assert.deepEqual(terms("Café ＲＥＳＵＭＥ naïve", 100, 100), [
      "cafe",
      "resum",
      "naiv",
    ]);
    assert.deepEqual(terms("💡 TIP: deploy→branch\u200b", 100, 100), [
      "tip",
      "deploi",
      "branch",
    ]);
    // A lone surrogate is a separator, not a crash.
    assert.deepEqual(terms("repo\ud800name", 100, 100), ["repo", "name"]);
  });

  it("reads at most maxChars characters and returns at most maxTerms terms", () => {
    assert.deepEqual(terms("alpha beta gamma", 10, 100), ["alpha", "beta"]);
    assert.deepEqual(terms("alpha beta gamma delta", 100, 2), [
      "alpha",
      "beta",
    ]);
  });
});

describe("analyse()", () => {
  it("keeps a query's words apart, each with its parts and whole form", () => {
    assert.deepEqual(analyse("Which OneDrive files?", 100, 10), [
      { parts: ["which"] },
      { parts: ["on", "drive"], whole: "onedriv" },
      { parts: ["file"] },
    ]);
    assert.equal(analyse("one two three four", 100, 2).length, 2);
  });
});

describe("stem()", () => {
  it("conflates the inflections users and authors mix", () => {
    for (
      const [a, b] of <[string, string][]> [
        ["branches", "branch"],
        ["deploys", "deployed"],
        ["creating", "create"],
        ["queries", "query"],
        ["notebooks", "notebook"],
        ["stopped", "stop"],
        ["saving", "save"],
      ]
    ) assert.equal(stem(a), stem(b), `${a} and ${b}`);
  });

  it("leaves apart words that only look alike", () => {
    assert.notEqual(stem("note"), stem("not"));
    assert.notEqual(stem("generic"), stem("generate"));
    assert.notEqual(stem("organization"), stem("organ"));
    assert.equal(stem("k8s"), "k8s");
  });
});

describe("phraseOf()", () => {
  it("reads phrasal verbs as the verbs tools use", () => {
    assert.deepEqual(phraseOf("turn", "on"), ["enable"]);
    assert.deepEqual(phraseOf("tear", "down"), ["delete", "stop"]);
    assert.equal(phraseOf("turnstile", "on"), undefined);
    assert.equal(phraseOf("on", "turn"), undefined);
  });
});
