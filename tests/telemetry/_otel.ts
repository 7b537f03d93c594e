/**
 * OpenTelemetry's own SDK, recording in memory: what the telemetry tests
 * read the adapter's spans and metrics from.
 *
 * @module
 */

import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";

/** A tracer and meter provider with in-memory exporters. */
export function recorder() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metrics,
    exportIntervalMillis: 2 ** 30,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    /** Adapter options that send the telemetry here. */
    options: { telemetry: { tracerProvider, meterProvider } },
    finished: (): ReadableSpan[] => spans.getFinishedSpans(),
    named: (name: string): ReadableSpan[] =>
      spans.getFinishedSpans().filter((span) => span.name === name),
    /** Histogram data points of `name`, after a collection. */
    async points(name: string) {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics
      ).find((metric) => metric.descriptor.name === name);
      return (metric?.dataPoints ?? []) as {
        attributes: Record<string, unknown>;
        value: { count: number; buckets: { boundaries: number[] } };
      }[];
    },
    close: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
