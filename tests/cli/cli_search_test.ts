/**
 * `mcp-adapter search`, run as a subprocess against the SDK test server of
 * a config file: the table with scores, `--json`, `--k`, a request nothing
 * matches, and a server that cannot be reached (exit 3, the others still
 * searched).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cliWorkspace } from "./_run.ts";

const TEST_TIMEOUT_MS = 90_000;

describe("mcp-adapter search", () => {
  const ws = cliWorkspace();
  const { cli } = ws;

  it("prints the tools that best match, with scores; --json and --k", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const text = await cli([
      "search",
      "a tiny picture with a caption",
      "--config",
      ws.config,
    ]);
    assert.equal(text.code, 0, text.stderr);
    const [header, first] = text.stdout.trimEnd().split("\n");
    assert.match(header!, /^SCORE\s+TOOL\s+SERVER\s+DESCRIPTION$/);
    assert.match(first!, /^\d+\.\d\d\s+sdk\/picture\s+sdk\s+A tiny PNG/);
    const json = await cli([
      "search",
      "ask the user for a colour",
      "--json",
      "--k",
      "1",
      "--config",
      ws.config,
    ]);
    assert.equal(json.code, 0, json.stderr);
    const [hit, ...rest] = JSON.parse(json.stdout);
    assert.deepEqual(rest, []);
    assert.deepEqual({ ...hit, score: typeof hit.score }, {
      name: "sdk/ask",
      alias: "sdk__ask",
      server: "sdk",
      namespace: "sdk",
      score: "number",
      readOnly: false,
      writes: false,
      description: "Asks the user for a colour (elicitation)",
    });
    const two = await cli([
      "search",
      "a picture, or nested options",
      "--json",
      "--k",
      "2",
      "--config",
      ws.config,
    ]);
    const scores = JSON.parse(two.stdout).map((h: { score: number }) =>
      h.score
    );
    assert.equal(scores.length, 2, two.stdout);
    assert.ok(scores[0] >= scores[1]);
  });

  it("says when nothing matches, and exits 3 when a server is down", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const none = await cli(["search", "qqqq zzzz", "--config", ws.config]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'No tool matches "qqqq zzzz".\n');
    const broken = await cli([
      "search",
      "a tiny picture",
      "--config",
      ws.brokenConfig,
    ]);
    assert.equal(broken.code, 3);
    assert.match(broken.stderr, /server "ghost" failed/);
    assert.match(broken.stdout, /sdk\/picture/);
  });
});
