import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bundleSize,
  closingSummary,
  conformanceScore,
  denoCounts,
  lastLines,
  nodeCounts,
  nodeSummaryLines,
  smokeCounts,
  stepFigures,
  tarballSize,
} from "../../scripts/_ci_report.ts";

/** The end of a real `deno test` run, colours included. */
const DENO_LOG = [
  "\x1b[0m\x1b[32mok\x1b[0m | 83 passed (482 steps) | 0 failed (45s)",
].join("\n");

/** The summary lines that close a `node --test` run. */
const NODE_SUMMARY = [
  "# tests 485",
  "# suites 85",
  "# pass 480",
  "# fail 1",
  "# cancelled 0",
  "# skipped 4",
  "# todo 0",
  "# duration_ms 312345.6",
];

/** The end of a real `node --test` run (TAP reporter), with the bundle line. */
const NODE_LOG = [
  "# bundle: root entry main chunk 70.8 KiB minified, 24.2 KiB gzip (72466 / 24758 bytes); lazy: deno.js 2.3 KiB",
  "ok 85 - secretsOf() and redact()",
  "1..85",
  ...NODE_SUMMARY,
  "",
].join("\n");

const NPM_PACK_LOG = [
  "npm notice Tarball Details",
  "npm notice package size: 162.2 kB",
  "npm notice unpacked size: 579.7 kB",
  "npm notice total files: 98",
].join("\n");

const CONFORMANCE_LOG = [
  "auth/resource-mismatch                     \x1b[31mFAIL\x1b[0m",
  "",
  "ours: 25/26 scenarios pass",
  "sdk : 26/26 scenarios pass",
  "took 15.3 s",
].join("\n");

describe("scripts/_ci_report.ts: the figures ci.ts prints", () => {
  it("reads deno test's closing line, colours and all", () => {
    assert.deepEqual(denoCounts(DENO_LOG), {
      passed: 83,
      failed: 0,
      steps: 482,
    });
    assert.deepEqual(
      denoCounts("FAILED | 10 passed (76 steps) | 3 failed (3 steps) (754ms)"),
      { passed: 10, failed: 3, steps: 76 },
    );
    assert.deepEqual(
      denoCounts(
        "ok | 87 passed (490 steps) | 0 failed | 0 ignored (1 step) (38s)",
      ),
      { passed: 87, failed: 0, steps: 490, ignored: 1 },
    );
    assert.equal(denoCounts("no summary"), undefined);
  });

  it("reads node --test's summary lines and counts", () => {
    assert.deepEqual(nodeSummaryLines(NODE_LOG), NODE_SUMMARY);
    assert.deepEqual(nodeCounts(NODE_LOG), {
      tests: 485,
      pass: 480,
      fail: 1,
      skipped: 4,
      cancelled: 0,
    });
    assert.deepEqual(nodeSummaryLines("ok 1 - x\n"), []);
  });

  it("reads smoke counts, bundle and tarball sizes", () => {
    assert.deepEqual(
      smokeCounts("ok - a\nsmoke-workerd: 3 passed, 0 failed\n"),
      { passed: 3, failed: 0 },
    );
    assert.equal(bundleSize(NODE_LOG), "70.8 KiB minified, 24.2 KiB gzip");
    assert.equal(
      tarballSize(NPM_PACK_LOG),
      "162.2 kB packed, 579.7 kB unpacked, 98 files",
    );
    assert.equal(
      stepFigures("test-node", NODE_LOG),
      "485 tests: 480 pass, 1 fail, 4 skipped; bundle 70.8 KiB minified, 24.2 KiB gzip",
    );
    assert.equal(stepFigures("fmt", "Checked 206 files"), "");
    assert.equal(
      stepFigures("conformance", CONFORMANCE_LOG),
      "MCP conformance client scenarios: ours 25/26, sdk 26/26",
    );
    assert.equal(conformanceScore("took 1 s"), undefined);
    assert.equal(
      conformanceScore(
        [
          "ours: 26/26 scenarios pass",
          "sdk v2: 25/26 scenarios pass",
          "took 24.2 s",
          "ours at 2025-11-25: 18/18 scored scenarios pass (0 expected failures); took 2.5 s",
          "sdk v2 at 2025-11-25: 18/18 scored scenarios pass; took 2.6 s (informative)",
          "ours at 2026-07-28: 11/32 scored scenarios pass (21 expected failures); took 2.4 s",
          "sdk v2 at 2026-07-28: no score (no result within 240000 ms)",
        ].join("\n"),
      ),
      "ours 26/26, sdk v2 25/26, ours at 2025-11-25 18/18 (0 expected failures) vs sdk v2 18/18, ours at 2026-07-28 11/32 (21 expected failures)",
    );
  });

  it("ends the closing summary with node's own summary lines", () => {
    const lines = closingSummary([
      { name: "test-deno", code: 0, seconds: 61.24, log: DENO_LOG },
      { name: "build-npm", code: 0, seconds: 12, log: NPM_PACK_LOG },
      {
        name: "smoke-bun",
        code: 0,
        seconds: 8.5,
        log: "smoke-bun: 3 passed, 0 failed",
      },
      { name: "test-node", code: 1, seconds: 312.3, log: NODE_LOG },
      { name: "conformance", code: 1, seconds: 15.25, log: CONFORMANCE_LOG },
    ], "/tmp/logs");
    assert.deepEqual(lines.slice(0, 8), [
      "",
      "== summary ==",
      "Deno     ok  83 passed (482 steps), 0 failed in 61.2 s",
      "Node     FAILED  485 tests: 480 pass, 1 fail, 4 skipped in 312.3 s",
      "Bun      ok  3 passed, 0 failed in 8.5 s",
      "bundle   root entry 70.8 KiB minified, 24.2 KiB gzip; npm tarball 162.2 kB packed, 579.7 kB unpacked, 98 files",
      "conform  FAILED  ours 25/26, sdk 26/26 client scenarios of the official suite in 15.3 s",
      "total    5 steps in 409.3 s; logs in /tmp/logs",
    ]);
    assert.deepEqual(lines.slice(8), nodeSummaryLines(NODE_LOG));
    assert.equal(lines.at(-1), "# duration_ms 312345.6");
  });

  it("gives each Node line its own row and the browser smoke one, and ends with the last Node line's summary", () => {
    const lines = closingSummary([
      {
        name: "smoke-browser",
        code: 0,
        seconds: 4.2,
        log: "smoke-browser: 5 passed, 0 failed",
      },
      { name: "test-node-22", code: 0, seconds: 80.1, log: NODE_LOG },
      { name: "test-node-26", code: 1, seconds: 90.4, log: NODE_LOG },
    ], "/tmp/logs");
    assert.deepEqual(lines.slice(2, 5), [
      "Node 22  ok  485 tests: 480 pass, 1 fail, 4 skipped in 80.1 s",
      "Node 26  FAILED  485 tests: 480 pass, 1 fail, 4 skipped in 90.4 s",
      "browser  ok  5 passed, 0 failed in 4.2 s",
    ]);
    assert.equal(
      stepFigures("test-node-24", NODE_LOG),
      stepFigures("test-node", NODE_LOG),
    );
    assert.equal(lines.at(-1), "# duration_ms 312345.6");
  });

  it("keeps the last lines of a log", () => {
    assert.deepEqual(lastLines("a\r\nb\nc\n", 2), ["b", "c"]);
  });
});

describe("scripts/ci.ts: runSteps()", () => {
  it("writes each step's output to its log, prints one line per step, and the end of a failed one", async () => {
    const logDir = await mkdtemp(join(tmpdir(), "mcp-adapter-ci-test-"));
    try {
      const module = new URL("../../scripts/ci.ts", import.meta.url).href;
      const program = `
        import { runSteps } from ${JSON.stringify(module)};
        const sh = (name, script) => ({ name, command: "sh", args: ["-c", script], timeoutMs: 30000 });
        Deno.exit(await runSteps([
          sh("smoke-ok", "echo hidden-detail; echo 'smoke-ok: 2 passed, 0 failed'"),
          sh("breaks", "seq 1 200; echo boom >&2; exit 3"),
          sh("never", "echo never"),
        ], ${JSON.stringify(logDir)}));
      `;
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["eval", program],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(60_000),
      }).output();
      const out = new TextDecoder().decode(stdout);
      const err = new TextDecoder().decode(stderr);
      assert.equal(code, 3);
      assert.match(
        out,
        /\[1\/3\] smoke-ok ok\s+[\d.]+ s {2}2 passed, 0 failed\n/,
      );
      assert.match(out, /\[2\/3\] breaks\s+FAILED\s+[\d.]+ s\n/);
      assert.doesNotMatch(out + err, /hidden-detail|never/);
      // The failed step's last 80 lines, not all 200.
      assert.match(err, /the last lines of .*02-breaks\.log:\n\n122\n/);
      assert.doesNotMatch(err, /\n121\n/);
      assert.match(err, /\nboom\n/);
      assert.match(
        err,
        /ci: step "breaks" failed \(exit 3\); its log: .*02-breaks\.log\n$/,
      );
      assert.deepEqual((await readdir(logDir)).sort(), [
        "01-smoke-ok.log",
        "02-breaks.log",
      ]);
      const first = await readFile(join(logDir, "01-smoke-ok.log"), "utf8");
      assert.match(first, /hidden-detail/);
    } finally {
      await rm(logDir, { recursive: true, force: true });
    }
  });
});
