/**
 * Names of the metrics `registerTimeoutMetrics` records, for dashboards and alerts. OpenTelemetry's
 * messaging semantic conventions name two of them (`messaging.client.sent.messages`,
 * `messaging.process.duration`); the others have no convention and live under `durable_timeout.`.
 * OpenTelemetry's Prometheus exporter turns dots into underscores and adds `_total` to counters
 * (`durable_timeout_fired_total`); durations are in seconds (unit `s`, given on the `# UNIT` line).
 */
export const TIMEOUT_METRICS = {
  /** Counter: timeouts scheduled by this instance (attribute `messaging.operation.name` = `schedule`). */
  scheduled: 'messaging.client.sent.messages',
  /** Counter: handler runs that returned and whose ack was accepted. */
  fired: 'durable_timeout.fired',
  /** Counter: handler runs that threw and were scheduled again with backoff. */
  retried: 'durable_timeout.retried',
  /** Counter: handler runs that threw on their last attempt: moved to the dead letters. */
  deadLettered: 'durable_timeout.dead_lettered',
  /** Counter: acks (or failure records) refused because the lease had passed to a newer delivery. */
  staleAcks: 'durable_timeout.stale_acks',
  /** Counter: timeouts handed back as due now on shutdown, no attempt spent. */
  released: 'durable_timeout.released',
  /** Counter: timeouts cancelled by this instance, pending ones and those a handler was running (`cancel` returned `firing`). */
  cancelled: 'durable_timeout.cancelled',
  /** Counter: late timeouts dropped by the topic's `late` policy (`action: 'skip'`), no handler run. */
  skipped: 'durable_timeout.skipped',
  /** Counter: store failures outside handlers (Redis down, a script error), attribute `durable_timeout.operation`. */
  errors: 'durable_timeout.errors',
  /** Histogram (s): handler start minus due time, for every handler run. */
  lateness: 'durable_timeout.lateness',
  /** Histogram (s): how long handlers ran; `error.type` is set on runs that threw. */
  handlerDuration: 'messaging.process.duration',
  /** Gauge: pending timeouts of a topic (all instances, read from Redis). */
  pending: 'durable_timeout.pending',
  /** Gauge: timeouts of a topic claimed by a worker now. */
  firing: 'durable_timeout.firing',
  /** Gauge: dead letters of a topic. */
  dead: 'durable_timeout.dead',
  /** Gauge (s): age of a topic's oldest overdue pending timeout; 0 when none is overdue. */
  oldestOverdueAge: 'durable_timeout.oldest_overdue.age',
  /** Gauge: 1 while a topic is paused (`pause`, any of its slots), 0 otherwise. */
  paused: 'durable_timeout.paused',
} as const;

/** Attribute names the metrics carry. */
export const TIMEOUT_METRIC_ATTRIBUTES = {
  /** Always `durable_timeout`. */
  system: 'messaging.system',
  /** The topic. */
  topic: 'messaging.destination.name',
  /** `schedule` on the scheduled counter, `process` on the handler histograms. */
  operation: 'messaging.operation.name',
  /** The error's class name (e.g. `Error`, `TypeError`) on handler runs that threw. */
  errorType: 'error.type',
  /** The engine operation that failed, on `durable_timeout.errors`. */
  engineOperation: 'durable_timeout.operation',
} as const;

/** Value of `messaging.system`. */
export const MESSAGING_SYSTEM = 'durable_timeout';
