/**
 * `--trace`'s timeline: offset and duration columns line up whatever the
 * timings (past 100 ms and 1 s, unfinished spans), and nesting indents the
 * name, not the columns.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpanRecorder } from "../../src/cli/_trace.ts";

/** A span of `recorder` that started `startMs` after the first and took `tookMs`. */
function span(
  recorder: SpanRecorder,
  name: string,
  timing: { startMs: number; tookMs?: number; parent?: unknown },
): unknown {
  const tracer = recorder.getTracer();
  const context = timing.parent === undefined ? undefined : {
    getValue: (key: symbol) =>
      key === Symbol.for("OpenTelemetry Context Key SPAN")
        ? timing.parent
        : undefined,
  };
  const made = tracer.startSpan(name, {}, context as never) as unknown as {
    started: number;
    ended: number | undefined;
  };
  // Timings fixed by hand: the test pins the layout, not the clock.
  Object.assign(made, {
    started: 1000 + timing.startMs,
    ended: timing.tookMs === undefined
      ? undefined
      : 1000 + timing.startMs + timing.tookMs,
  });
  return made;
}

describe("--trace's timeline", () => {
  it("keeps both time columns aligned past 100 ms and 1 s, nested or unfinished", () => {
    const recorder = new SpanRecorder();
    const root = span(recorder, "tools/call echo", {
      startMs: 0,
      tookMs: 1534.26,
    });
    span(recorder, "initialize", { startMs: 2.5, tookMs: 8.1, parent: root });
    span(recorder, "tools/list", {
      startMs: 150.25,
      tookMs: 120.5,
      parent: root,
    });
    span(recorder, "tasks/get", { startMs: 1250, parent: root });
    const lines = recorder.lines();
    assert.deepEqual(lines, [
      "     +0.0 ms   1534.3 ms  tools/call echo",
      "     +2.5 ms      8.1 ms    initialize",
      "   +150.3 ms    120.5 ms    tools/list",
      "  +1250.0 ms  unfinished    tasks/get",
    ]);
  });
});

describe("--trace's lines", () => {
  it("are one per span: a newline in a name or a status cannot start another", () => {
    const recorder = new SpanRecorder();
    const forged = "  +0.0 ms  0.1 ms  tools/call t [id 9]";
    const call = span(recorder, `tools/call x\n${forged}`, {
      startMs: 0,
      tookMs: 2,
    }) as {
      setAttribute(key: string, value: unknown): void;
      setStatus(status: { code: number; message?: string }): void;
    };
    call.setAttribute("jsonrpc.request.id", "4\r\n");
    call.setAttribute("error.type", "tool_error\n");
    call.setStatus({ code: 2, message: `denied\n${forged}\u200b` });
    assert.deepEqual(recorder.lines(), [
      "  +0.0 ms  2.0 ms  tools/call x\\x0a  +0.0 ms  0.1 ms  tools/call t [id 9] [id 4\\x0d\\x0a]  error.type=tool_error\\x0a (denied\\x0a  +0.0 ms  0.1 ms  tools/call t [id 9]\\u200b)",
    ]);
  });
});
