/**
 * `--trace`: a tiny span recorder behind the same telemetry hooks as an
 * OpenTelemetry tracer provider, so the command line can print a call's
 * trace with its timings to stderr without the OpenTelemetry SDK or a
 * collector. Internal.
 *
 * @module
 */

import type {
  MCPAttributes,
  MCPAttributeValue,
  MCPSpan,
  MCPSpanContext,
  MCPTracer,
  MCPTracerProvider,
} from "../telemetry/types.ts";
import { printable, printableText } from "../util/terminal.ts";

const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

function hex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (b) => b.toString(16).padStart(2, "0")).join("");
}

class RecordedSpan implements MCPSpan {
  readonly attributes: MCPAttributes = {};
  readonly started = performance.now();
  ended: number | undefined;
  status: { code: number; message?: string } = { code: 0 };
  readonly #context: MCPSpanContext;

  constructor(
    readonly name: string,
    readonly parent: RecordedSpan | undefined,
    attributes: MCPAttributes | undefined,
  ) {
    this.#context = {
      traceId: parent?.spanContext().traceId ?? hex(16),
      spanId: hex(8),
      traceFlags: 1,
    };
    if (attributes) this.setAttributes(attributes);
  }
  setAttribute(key: string, value: MCPAttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: MCPAttributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  setStatus(status: { code: number; message?: string }): this {
    this.status = status;
    return this;
  }
  end(): void {
    this.ended ??= performance.now();
  }
  spanContext(): MCPSpanContext {
    return this.#context;
  }
  isRecording(): boolean {
    return this.ended === undefined;
  }
}

/** Records spans in memory and prints them as an indented timeline. */
export class SpanRecorder implements MCPTracerProvider {
  readonly #spans: RecordedSpan[] = [];

  getTracer(): MCPTracer {
    return {
      startSpan: (name, options, context) => {
        const parent = (context as { getValue?(key: symbol): unknown })
          ?.getValue?.(SPAN_KEY);
        const span = new RecordedSpan(
          name,
          parent instanceof RecordedSpan ? parent : undefined,
          options?.attributes,
        );
        this.#spans.push(span);
        return span;
      },
    };
  }

  /**
   * The recorded spans as lines: offset, duration, name, outcome. The two
   * time columns are as wide as their widest value, and the nesting indents
   * the name, so the columns line up whatever the timings.
   */
  lines(): string[] {
    const first = this.#spans[0]?.started ?? 0;
    const depth = (span: RecordedSpan): number =>
      span.parent === undefined ? 0 : depth(span.parent) + 1;
    const ordered: RecordedSpan[] = [];
    const visit = (parent: RecordedSpan | undefined) => {
      for (const span of this.#spans) {
        if (span.parent === parent) {
          ordered.push(span);
          visit(span);
        }
      }
    };
    visit(undefined);
    const offsets = ordered.map((span) =>
      `+${(span.started - first).toFixed(1)} ms`
    );
    const tooks = ordered.map((span) =>
      span.ended === undefined
        ? "unfinished"
        : `${(span.ended - span.started).toFixed(1)} ms`
    );
    const widest = (texts: string[]) =>
      Math.max(0, ...texts.map((text) => text.length));
    const [offsetWidth, tookWidth] = [widest(offsets), widest(tooks)];
    return ordered.map((span, index) => {
      const id = span.attributes["jsonrpc.request.id"];
      const error = span.attributes["error.type"];
      // A cancel the client asked for, an era probe: said, not an error.
      const expected = span.attributes["mcp.adapter.outcome"];
      // One line per span: a newline in a name or a server's error message
      // is escaped, so it cannot start a line that looks like a span.
      const outcome = error === undefined
        ? expected === undefined ? "" : `  ${printable(String(expected))}`
        : `  error.type=${printable(String(error))}${
          span.status.message ? ` (${printable(span.status.message)})` : ""
        }`;
      return `  ${offsets[index]!.padStart(offsetWidth)}  ${
        tooks[index]!.padStart(tookWidth)
      }  ${"  ".repeat(depth(span))}${printable(span.name)}${
        id === undefined ? "" : ` [id ${printable(String(id))}]`
      }${outcome}`;
    });
  }

  /** Writes the trace to `out` (stderr), made safe for a terminal. */
  print(out: { write(text: string): unknown }): void {
    if (this.#spans.length === 0) return;
    const traceId = this.#spans[0]!.spanContext().traceId;
    out.write(
      printableText(`trace ${traceId}\n${this.lines().join("\n")}\n`),
    );
  }
}
