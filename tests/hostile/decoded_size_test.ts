/**
 * Decompression bombs: a server answers with ~256 KB of
 * `Content-Encoding: gzip` that inflates to 256 MiB, 16 times
 * `maxMessageBytes`. The limit bounds the decoded bytes on every HTTP read
 * path, a declared length is never trusted, and what is held while reading
 * stays near the limit. Each case runs in its own process
 * (tests/fixtures/gzip_bomb), so that its resident memory can be measured
 * and a failure cannot take the runner down.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { exec, fixturePath, runtimeCommand } from "../_helpers.ts";

const MiB = 1024 * 1024;
/** The fixture's `maxMessageBytes`, in MiB. */
const LIMIT_MIB = 16;
/**
 * The most resident memory a bomb may add while it is read: the limit's
 * worth of text, plus the runtime's own churn (V8's young generation alone
 * can grow by 32 MiB); measured 3–62 MiB on Deno 2.9 and Node 20. Reading
 * the whole body adds over 500 MiB; keeping the decoder's chunks (4 KiB
 * views into 64 KiB buffers on Deno) about 200 MiB.
 */
const MAX_GROWTH = 8 * LIMIT_MIB * MiB;
const RUN_TIMEOUT_MS = 60_000;

interface Outcome {
  success: boolean;
  errorKind?: string;
  error?: string;
}

interface BombRun {
  first: Outcome;
  second: Outcome;
  errors: string[];
  peakGrowth: number;
  how: string;
}

/** Runs the fixture for `mode` in a process of its own (killed with its group past the bound). */
async function bomb(mode: string): Promise<BombRun> {
  const { command, args } = runtimeCommand(fixturePath(
    `gzip_bomb${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  ));
  const run = await exec(
    command,
    [...args, mode, "256", String(LIMIT_MIB)],
    process.cwd(),
    {},
    RUN_TIMEOUT_MS,
  );
  assert.equal(
    run.code,
    0,
    `the ${mode} bomb's process failed:\n${run.stderr}`,
  );
  return JSON.parse(run.stdout) as BombRun;
}

const SIZE_ERROR =
  /larger than maxMessageBytes \(16,777,216 (bytes|characters)\)/;

/** The bomb failed with the size error, memory stayed near the limit, and the next call worked. */
function assertContained(run: BombRun, error: RegExp = SIZE_ERROR): void {
  assert.equal(run.first.success, false);
  assert.match(run.first.error ?? "", error);
  assert.ok(
    run.peakGrowth < MAX_GROWTH,
    `reading the bomb added ${
      (run.peakGrowth / MiB).toFixed(0)
    } MiB of resident memory (${run.how}); at most ${
      MAX_GROWTH / MiB
    } MiB expected`,
  );
  assert.equal(run.second.success, true, run.second.error ?? "");
}

describe("hostile HTTP servers: compressed bodies are counted decoded", () => {
  it("a gzip JSON answer whose Content-Length is within the limit fails the call with the size error; memory stays near the limit", async () => {
    const run = await bomb("json");
    assertContained(run);
    assert.equal(run.first.errorKind, "connection");
  });

  it("a chunked gzip JSON answer fails at the limit without holding the decoder's buffers", async () => {
    const run = await bomb("json-chunked");
    assertContained(run);
    assert.equal(run.first.errorKind, "connection");
  });

  it("a gzip SSE answer whose Content-Length is within the limit loses the call with the size error; memory stays near the limit", async () => {
    const run = await bomb("sse");
    assertContained(run);
    assert.match(run.first.error!, /may or may not have run/);
  });

  it("a gzip GET stream with one endless event is closed with the size error; calls go on", async () => {
    const run = await bomb("get");
    assertContained(run);
    assert.match(run.first.error!, /its GET stream was closed/);
  });

  it("a gzip error body is read only for its excerpt", async () => {
    const run = await bomb("error");
    assertContained(run, /HTTP 500/);
  });

  it("a gzip legacy SSE stream fails connect() with the size error; the next connect works", async () => {
    const run = await bomb("legacy");
    assertContained(run);
    assert.match(run.first.error!, /the connection was closed/);
  });
});
