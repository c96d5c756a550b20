/**
 * `@durable-timeout/core/otel`: the engine's metrics and traces through the OpenTelemetry API, an optional peer
 * dependency that the main entry point never loads.
 */
export {
  registerTimeoutMetrics,
  TIMEOUT_HISTOGRAM_BOUNDARIES,
  TIMEOUT_METER_NAME,
  type TimeoutMetrics,
  type TimeoutMetricsOptions,
} from './timeout-metrics.js';
export { MESSAGING_SYSTEM, TIMEOUT_METRIC_ATTRIBUTES, TIMEOUT_METRICS } from './metric-names.js';
export {
  registerTimeoutTracing,
  spanContextOf,
  traceparentOf,
  TIMEOUT_SPAN_ATTRIBUTES,
  TIMEOUT_TRACER_NAME,
  type TimeoutTracing,
  type TimeoutTracingOptions,
} from './timeout-tracing.js';
