/**
 * The shapes of the OpenTelemetry objects the adapter talks to, written
 * out structurally so that no type of `@opentelemetry/api` reaches the
 * package's public API: a `TracerProvider` or `MeterProvider` of the
 * OpenTelemetry SDK fits them as it is.
 *
 * @module
 */

/** A span attribute's value. */
export type MCPAttributeValue = string | number | boolean;

/** Span or metric attributes. */
export type MCPAttributes = Record<string, MCPAttributeValue | undefined>;

/** What the adapter reads of a span's identity, to propagate it. */
export interface MCPSpanContext {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** W3C trace flags (1 = sampled). */
  traceFlags: number;
  /** The W3C `tracestate`, if any. */
  traceState?: { serialize(): string } | undefined;
}

/** The part of an OpenTelemetry `Span` the adapter uses. */
export interface MCPSpan {
  /** Sets one attribute. */
  setAttribute(key: string, value: MCPAttributeValue): unknown;
  /** Sets several attributes. */
  setAttributes(attributes: MCPAttributes): unknown;
  /** Sets the status (`code` 2 = ERROR). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span. */
  end(): void;
  /** The span's identity. */
  spanContext(): MCPSpanContext;
  /** Whether the span records anything. */
  isRecording(): boolean;
}

/** The part of an OpenTelemetry `Tracer` the adapter uses. */
export interface MCPTracer {
  /** Starts a span; `context` is an OpenTelemetry `Context`. */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: MCPAttributes },
    context?: unknown,
  ): MCPSpan;
}

/** An OpenTelemetry `TracerProvider`, as the adapter uses it. */
export interface MCPTracerProvider {
  /** A tracer for the instrumentation scope `name`. */
  getTracer(name: string, version?: string): MCPTracer;
}

/** A histogram instrument. */
export interface MCPHistogram {
  /** Records one value. */
  record(value: number, attributes?: MCPAttributes): void;
}

/** An OpenTelemetry `MeterProvider`, as the adapter uses it. */
export interface MCPMeterProvider {
  /** A meter for the instrumentation scope `name`. */
  getMeter(name: string, version?: string): {
    createHistogram(
      name: string,
      options?: {
        description?: string;
        unit?: string;
        advice?: { explicitBucketBoundaries?: number[] };
      },
    ): MCPHistogram;
  };
}

/**
 * OpenTelemetry settings of an adapter (`MCPToolAdapterOptions.telemetry`).
 * Without them, the providers registered with `@opentelemetry/api` are
 * used, and with none registered nothing is loaded at all.
 *
 * @example Record arguments and results (redacted of configured secrets)
 * ```ts
 * import type { MCPTelemetryOptions } from "@cleveragents/mcp-adapter";
 *
 * const telemetry: MCPTelemetryOptions = { recordArguments: true, recordResults: true };
 * ```
 */
export interface MCPTelemetryOptions {
  /** Spans go here instead of the globally registered tracer provider. */
  tracerProvider?: MCPTracerProvider;
  /** Metrics go here instead of the globally registered meter provider. */
  meterProvider?: MCPMeterProvider;
  /**
   * Record `gen_ai.tool.call.arguments` (opt-in in the conventions), as
   * JSON with the configured secrets masked. Default `false`.
   */
  recordArguments?: boolean;
  /** Record `gen_ai.tool.call.result` likewise. Default `false`. */
  recordResults?: boolean;
}
