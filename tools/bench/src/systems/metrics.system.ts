import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { registerTimeoutMetrics, registerTimeoutTracing } from '@durable-timeout/core/otel';
import { engineSystem, openEngineWorker } from './engine.system.js';
import type { BenchSystem } from './system.js';

/** How often the SDK run collects: every counter, histogram and gauge (one stats script per slot). */
export const METRICS_EXPORT_INTERVAL_MS = 1_000;

/** Takes the spans a batch processor hands over and keeps none: what is measured is the worker. */
const discardingExporter: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => undefined,
};

/**
 * The engine with its metrics and tracing in three settings, run one after the other on the same workload:
 * - `metricsOff`: no `registerTimeoutMetrics` nor `registerTimeoutTracing` (the engine row, again, beside the others);
 * - `metricsApi`: both registered with the bare `@opentelemetry/api`, no SDK (no-op meter, non-recording spans);
 * - `metricsSdk`: registered with OpenTelemetry SDK providers: a meter provider whose reader collects
 *   every second into memory, gauges included, and a tracer provider whose batch processor records
 *   a span per handler run (handed to an exporter that discards them).
 * The scheduling side is the plain engine in every case: what is compared is the firing worker.
 */
export function metricsSystem(key: 'metricsOff' | 'metricsApi' | 'metricsSdk'): BenchSystem {
  return {
    key,
    usesRedis: true,
    openScheduler: engineSystem.openScheduler,
    openWorker: (target, settings, sink) =>
      openEngineWorker(target, settings, sink, (timeouts) => {
        if (key === 'metricsOff') return async () => undefined;
        if (key === 'metricsApi') {
          const registration = registerTimeoutMetrics(timeouts);
          const tracing = registerTimeoutTracing(timeouts);
          return async () => {
            registration.stop();
            tracing.stop();
          };
        }
        const reader = new PeriodicExportingMetricReader({
          exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
          exportIntervalMillis: METRICS_EXPORT_INTERVAL_MS,
        });
        const provider = new MeterProvider({ readers: [reader] });
        const registration = registerTimeoutMetrics(timeouts, { meterProvider: provider });
        const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(discardingExporter)] });
        const tracing = registerTimeoutTracing(timeouts, { tracerProvider });
        return async () => {
          registration.stop();
          tracing.stop();
          await Promise.all([provider.shutdown(), tracerProvider.shutdown()]);
        };
      }),
  };
}
