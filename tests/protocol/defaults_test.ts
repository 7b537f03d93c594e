/**
 * A required property that declares a `default` may be left out: the
 * server applies its default (Playwright's `browser_take_screenshot` lists
 * `type` and `scale` as required, each with a default, and accepts `{}`).
 * And the escape hatch: `validateArguments: false` sends what the schema
 * would refuse, so the server alone judges it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseConfig } from "@cleveragents/mcp-adapter/config";
import { type RawPeer, rawToolsPeer } from "./_raw_tools.ts";

/** `browser_take_screenshot` as Playwright MCP lists it (abridged). */
const SCREENSHOT = {
  name: "browser_take_screenshot",
  inputSchema: {
    type: "object",
    properties: {
      type: {
        type: "string",
        enum: ["png", "jpeg"],
        default: "png",
        description: "Image format for the screenshot.",
      },
      filename: { type: "string" },
      scale: {
        type: "string",
        enum: ["css", "device"],
        default: "css",
      },
    },
    required: ["type", "scale"],
    additionalProperties: false,
    $schema: "http://json-schema.org/draft-07/schema#",
  },
};

const NESTED = {
  name: "export",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string" },
      options: {
        type: "object",
        properties: {
          quality: { type: "number", minimum: 1, default: 80 },
          format: { type: "string" },
        },
        required: ["quality", "format"],
      },
    },
    required: ["path", "options"],
  },
};

const STRICT = {
  name: "add",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
};

describe("a required property that declares a default", () => {
  let peer: RawPeer;
  before(async () => {
    peer = await rawToolsPeer([SCREENSHOT, NESTED, STRICT]);
  });
  after(() => peer.adapter.disconnect());

  it("may be left out: the call reaches the server, which applies its default", async () => {
    peer.calls.length = 0;
    const result = await peer.adapter.invoke("browser_take_screenshot", {});
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(peer.calls, [{}]);
  });

  it("is still checked when given, and so is everything else", async () => {
    peer.calls.length = 0;
    const wrong = await peer.adapter.invoke("browser_take_screenshot", {
      scale: "tiny",
    });
    assert.equal(wrong.errorKind, "validation");
    assert.match(wrong.error!, /\/scale:/);
    const unknown = await peer.adapter.invoke("browser_take_screenshot", {
      sacle: "css",
    });
    assert.equal(unknown.errorKind, "validation");
    assert.match(
      unknown.error!,
      /unknown argument "sacle" \(did you mean "scale"\?\)/,
    );
    assert.deepEqual(peer.calls, []);
  });

  it("a required property without a default is still required, nested ones too", async () => {
    peer.calls.length = 0;
    const missing = await peer.adapter.invoke("export", { options: {} });
    assert.equal(missing.errorKind, "validation");
    assert.match(missing.error!, /required property "path"/);
    assert.match(missing.error!, /required property "format"/);
    assert.doesNotMatch(missing.error!, /"quality"/);
    const ok = await peer.adapter.invoke("export", {
      path: "/tmp/x",
      options: { format: "png" },
    });
    assert.equal(ok.success, true, ok.error ?? "");
    const none = await peer.adapter.invoke("add", { a: 1 });
    assert.match(none.error!, /required property "b"/);
    assert.equal(peer.calls.length, 1);
  });
});

describe("validateArguments: false", () => {
  let peer: RawPeer;
  before(async () => {
    peer = await rawToolsPeer([STRICT], { validateArguments: false });
  });
  after(() => peer.adapter.disconnect());

  it("sends what the schema refuses; the server judges it", async () => {
    const result = await peer.adapter.invoke("add", { a: "one" });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(peer.calls, [{ a: "one" }]);
  });

  it("still refuses what JSON cannot carry", async () => {
    const result = await peer.adapter.invoke("add", { a: Number.NaN });
    assert.equal(result.errorKind, "validation");
    assert.match(result.error!, /NaN/);
    assert.equal(peer.calls.length, 1);
  });

  it("is a per-server field of a config file", () => {
    const { servers } = parseConfig(
      [
        "servers:",
        "  - name: playwright",
        "    transport: stdio",
        "    command: npx",
        "    validateArguments: false",
        "  - name: checked",
        "    transport: stdio",
        "    command: npx",
      ].join("\n"),
      "yaml",
    );
    assert.equal(servers[0]?.validateArguments, false);
    assert.equal(servers[1]?.validateArguments, undefined);
  });
});
