import {
  createNoopMeter,
  metrics,
  ValueType,
  type Attributes,
  type BatchObservableCallback,
  type Histogram,
  type Meter,
  type MeterProvider,
  type ObservableCounter,
  type ObservableGauge,
} from '@opentelemetry/api';
import type { DurableTimeouts } from '../durable-timeouts.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import type { TopicStats } from '../types.js';
import type { TopicName } from '../typed-topics.js';
import { MESSAGING_SYSTEM, TIMEOUT_METRIC_ATTRIBUTES as ATTR, TIMEOUT_METRICS as NAME } from './metric-names.js';

/** Name of the meter the metrics are recorded under. */
export const TIMEOUT_METER_NAME = '@durable-timeout/core';

/**
 * Bucket boundaries (seconds) of both histograms: from a millisecond (a timeout fired on time, a
 * quick handler) to five minutes (a backlog, a handler stuck on a slow dependency). The SDK's
 * default boundaries are meant for milliseconds and would put every run in the first bucket.
 */
export const TIMEOUT_HISTOGRAM_BOUNDARIES: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

/** Options of `registerTimeoutMetrics`. */
export interface TimeoutMetricsOptions<TTopics extends string = string> {
  /**
   * Where to record. Default: the global provider (`metrics.getMeterProvider()`), which is the SDK
   * registered before this call, or the API's no-op provider when none was.
   */
  meterProvider?: MeterProvider;
  /**
   * Which topics the observable gauges (pending, firing, dead, oldest overdue age, paused) report:
   * `true` (default) every topic of the engine, a list for some, `false` for none. Each collection
   * reads one `stats` script per slot of every reported topic, for all five gauges. Every instance reads the same figures
   * from Redis: aggregate them with `max`, not `sum`, or report them from one instance only.
   */
  gauges?: boolean | readonly TTopics[];
}

/** What `registerTimeoutMetrics` returns. */
export interface TimeoutMetrics {
  /** False when the meter is the API's no-op one (no SDK registered): then nothing listens or records. */
  readonly enabled: boolean;
  /** Stops recording: unsubscribes from the engine's events and removes the gauges' callback. Idempotent. */
  stop(): void;
}

/** The outcomes counted per topic. */
const COUNTED = ['scheduled', 'fired', 'retried', 'deadLettered', 'staleAcks', 'released', 'cancelled', 'skipped'] as const;
type Counted = (typeof COUNTED)[number];

/** The histograms, recorded synchronously for every handler run. */
interface Histograms {
  lateness: Histogram;
  handlerDuration: Histogram;
}

/**
 * Records the engine's metrics through the OpenTelemetry API (an optional peer dependency: install
 * `@opentelemetry/api` and an SDK to use this entry point). Counters and histograms are driven by
 * the engine's typed events (the counters count in plain numbers and are observed when a reader
 * collects); the gauges are sampled from Redis when a reader collects.
 *
 * ```ts
 * import { registerTimeoutMetrics } from '@durable-timeout/core/otel';
 * // after the OpenTelemetry SDK is registered (a meter taken before that stays no-op for good):
 * const timeoutMetrics = registerTimeoutMetrics(timeouts);
 * ```
 *
 * With no SDK registered the API hands out a no-op meter: then this subscribes to nothing and
 * costs nothing per timeout (`enabled` is false). Names and attributes: `TIMEOUT_METRICS`,
 * `TIMEOUT_METRIC_ATTRIBUTES`; the topic is the attribute `messaging.destination.name`.
 */
export function registerTimeoutMetrics<TTopics>(
  timeouts: DurableTimeouts<TTopics>,
  options: TimeoutMetricsOptions<TopicName<TTopics>> = {},
): TimeoutMetrics {
  const gaugeTopics = gaugeTopicsOf(timeouts, options.gauges);
  const provider = options.meterProvider ?? metrics.getMeterProvider();
  const meter = provider.getMeter(TIMEOUT_METER_NAME);
  if (meter === createNoopMeter()) return { enabled: false, stop: () => undefined };

  const attributes = new TopicAttributes();
  const counts = new OutcomeCounts(timeouts.topics);
  const histograms = createHistograms(meter);
  const unsubscribers = subscribe(timeouts, counts, histograms, attributes);
  const removers = [observeCounts(meter, counts, attributes)];
  if (gaugeTopics.length > 0) removers.push(observeGauges(meter, timeouts, gaugeTopics, attributes));
  let stopped = false;
  return {
    enabled: true,
    stop: () => {
      if (stopped) return;
      stopped = true;
      for (const unsubscribe of unsubscribers) unsubscribe();
      for (const remove of removers) remove();
    },
  };
}

function gaugeTopicsOf(timeouts: DurableTimeouts, gauges: boolean | readonly string[] | undefined): string[] {
  if (gauges === undefined || gauges === true) return timeouts.topics;
  if (gauges === false) return [];
  if (!Array.isArray(gauges)) {
    throw new InvalidOptionsError(errorMessages.invalidOption('gauges', gauges, 'use true, false or an array of topic names'));
  }
  const known = new Set<string>(timeouts.topics);
  for (const topic of gauges) {
    if (!known.has(topic)) {
      throw new InvalidOptionsError(errorMessages.invalidOption('gauges', topic, `use topics the engine was configured with (${[...known].join(', ')})`));
    }
  }
  return [...new Set(gauges)];
}

function createHistograms(meter: Meter): Histograms {
  const histogram = (name: string, description: string): Histogram =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: [...TIMEOUT_HISTOGRAM_BOUNDARIES] } });
  return {
    lateness: histogram(NAME.lateness, 'Handler start minus due time (Redis server clock).'),
    handlerDuration: histogram(NAME.handlerDuration, 'How long timeout handlers ran.'),
  };
}

/**
 * Outcome counts per topic, kept as plain numbers and reported by observable counters when a reader
 * collects. A synchronous counter costs about a microsecond per `add` in the SDK (it hashes the
 * attributes every time); an increment here costs next to nothing, and the cumulative sums the
 * reader sees are the same.
 */
class OutcomeCounts {
  readonly byTopic = new Map<string, Record<Counted, number>>();
  /** Store failures by topic (or none) and operation. */
  readonly errors = new Map<string, { topic: string | undefined; operation: string; count: number }>();

  constructor(topics: readonly string[]) {
    // Every topic reports from the first collection on, at 0: a rate needs its starting point.
    for (const topic of topics) this.of(topic);
  }

  add(topic: string, outcome: Counted, value = 1): void {
    this.of(topic)[outcome] += value;
  }

  addError(topic: string | undefined, operation: string): void {
    const key = `${topic ?? ''}\u0000${operation}`;
    const entry = this.errors.get(key);
    if (entry) entry.count += 1;
    else this.errors.set(key, { topic, operation, count: 1 });
  }

  private of(topic: string): Record<Counted, number> {
    let counts = this.byTopic.get(topic);
    if (!counts) {
      counts = { scheduled: 0, fired: 0, retried: 0, deadLettered: 0, staleAcks: 0, released: 0, cancelled: 0, skipped: 0 };
      this.byTopic.set(topic, counts);
    }
    return counts;
  }
}

const COUNTER_DESCRIPTIONS: Record<Counted, string> = {
  scheduled: 'Timeouts scheduled (created or replaced) by this instance.',
  fired: 'Handler runs that returned and whose ack was accepted.',
  retried: 'Handler runs that threw and were scheduled again with backoff.',
  deadLettered: 'Handler runs that threw on their last attempt and moved to the dead letters.',
  staleAcks: 'Acks or failure records refused: the lease had passed to a newer delivery.',
  released: 'Timeouts handed back as due now on shutdown, without spending an attempt.',
  cancelled: 'Timeouts cancelled by this instance: pending ones, and running ones (their handler told to stop).',
  skipped: "Late timeouts dropped by the topic's late policy (skip), no handler run.",
};

/** The counters, observed together from `OutcomeCounts`. Returns a function that removes the callback. */
function observeCounts(meter: Meter, counts: OutcomeCounts, attributes: TopicAttributes): () => void {
  const counters = new Map<Counted, ObservableCounter>(
    COUNTED.map((outcome) => [outcome, meter.createObservableCounter(NAME[outcome], { description: COUNTER_DESCRIPTIONS[outcome], unit: '{timeout}', valueType: ValueType.INT })]),
  );
  const errors = meter.createObservableCounter(NAME.errors, {
    description: 'Store failures outside handlers (Redis unreachable, a script error).',
    unit: '{error}',
    valueType: ValueType.INT,
  });
  const observables = [...counters.values(), errors];
  const callback: BatchObservableCallback = (result) => {
    for (const [topic, topicCounts] of counts.byTopic) {
      for (const outcome of COUNTED) {
        result.observe(counters.get(outcome)!, topicCounts[outcome], outcome === 'scheduled' ? attributes.schedule(topic) : attributes.base(topic));
      }
    }
    for (const { topic, operation, count } of counts.errors.values()) {
      const where = topic === undefined ? {} : attributes.base(topic);
      result.observe(errors, count, { ...where, [ATTR.engineOperation]: operation });
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}

/** Attribute sets per topic, made once: the event listeners run for every timeout and allocate nothing. */
class TopicAttributes {
  private readonly byTopic = new Map<string, { base: Attributes; schedule: Attributes; process: Attributes }>();
  private readonly failed = new Map<string, Attributes>();

  base(topic: string): Attributes {
    return this.of(topic).base;
  }

  schedule(topic: string): Attributes {
    return this.of(topic).schedule;
  }

  process(topic: string): Attributes {
    return this.of(topic).process;
  }

  /** The process attributes with `error.type` (per topic and error class; both sets are small). */
  processFailed(topic: string, error: Error): Attributes {
    const errorType = error.name || 'Error';
    const key = `${topic}\u0000${errorType}`;
    let attributes = this.failed.get(key);
    if (!attributes) {
      attributes = { ...this.process(topic), [ATTR.errorType]: errorType };
      this.failed.set(key, attributes);
    }
    return attributes;
  }

  private of(topic: string): { base: Attributes; schedule: Attributes; process: Attributes } {
    let sets = this.byTopic.get(topic);
    if (!sets) {
      const base = { [ATTR.system]: MESSAGING_SYSTEM, [ATTR.topic]: topic };
      sets = { base, schedule: { ...base, [ATTR.operation]: 'schedule' }, process: { ...base, [ATTR.operation]: 'process' } };
      this.byTopic.set(topic, sets);
    }
    return sets;
  }
}

function subscribe(timeouts: DurableTimeouts, counts: OutcomeCounts, histograms: Histograms, attributes: TopicAttributes): (() => void)[] {
  const recordRun = (topic: string, latenessMs: number | undefined, durationMs: number | undefined, runAttributes: Attributes): void => {
    if (latenessMs !== undefined) histograms.lateness.record(latenessMs / 1000, attributes.base(topic));
    if (durationMs !== undefined) histograms.handlerDuration.record(durationMs / 1000, runAttributes);
  };
  return [
    timeouts.on('scheduled', ({ topic }) => counts.add(topic, 'scheduled')),
    timeouts.on('cancelled', ({ topic }) => counts.add(topic, 'cancelled')),
    timeouts.on('fired', ({ topic, latenessMs, durationMs }) => {
      counts.add(topic, 'fired');
      recordRun(topic, latenessMs, durationMs, attributes.process(topic));
    }),
    timeouts.on('retried', ({ topic, error, latenessMs, durationMs }) => {
      counts.add(topic, 'retried');
      recordRun(topic, latenessMs, durationMs, attributes.processFailed(topic, error));
    }),
    timeouts.on('dead', ({ topic, error, latenessMs, durationMs }) => {
      counts.add(topic, 'deadLettered');
      recordRun(topic, latenessMs, durationMs, attributes.processFailed(topic, error));
    }),
    timeouts.on('skipped', ({ topic }) => counts.add(topic, 'skipped')),
    timeouts.on('stale', ({ topic }) => counts.add(topic, 'staleAcks')),
    timeouts.on('released', ({ topic, count }) => counts.add(topic, 'released', count)),
    timeouts.on('error', ({ topic, operation }) => counts.addError(topic, operation)),
  ];
}

/**
 * The five gauges, observed together by one batch callback: one `stats` per topic per collection
 * (a `stats` script per slot, which reads the slot's pause mark too), never one per gauge. A topic whose figures cannot be read (Redis
 * down, engine stopped) is left out of that collection. Returns a function that removes the callback.
 */
function observeGauges(meter: Meter, timeouts: DurableTimeouts, topics: readonly string[], attributes: TopicAttributes): () => void {
  const gauge = (name: string, description: string, unit: string, valueType: ValueType): ObservableGauge =>
    meter.createObservableGauge(name, { description, unit, valueType });
  const pending = gauge(NAME.pending, 'Pending timeouts of the topic (read from Redis: every instance reports the same value).', '{timeout}', ValueType.INT);
  const firing = gauge(NAME.firing, 'Timeouts of the topic claimed by a worker now.', '{timeout}', ValueType.INT);
  const dead = gauge(NAME.dead, 'Dead letters of the topic.', '{timeout}', ValueType.INT);
  const oldestOverdue = gauge(NAME.oldestOverdueAge, "Age of the topic's oldest overdue pending timeout; 0 when none is overdue.", 's', ValueType.DOUBLE);
  const paused = gauge(NAME.paused, 'Whether the topic is paused: 1 while no instance fires its timeouts, 0 otherwise.', '1', ValueType.INT);
  const observables = [pending, firing, dead, oldestOverdue, paused];
  const callback: BatchObservableCallback = async (result) => {
    const read = await Promise.all(topics.map((topic) => timeouts.stats(topic).catch((): TopicStats | null => null)));
    for (const stats of read) {
      if (stats === null) continue;
      const topicAttributes = attributes.base(stats.topic);
      result.observe(pending, stats.pending, topicAttributes);
      result.observe(firing, stats.firing, topicAttributes);
      result.observe(dead, stats.dead, topicAttributes);
      result.observe(oldestOverdue, stats.oldestOverdueMs / 1000, topicAttributes);
      result.observe(paused, stats.paused ? 1 : 0, topicAttributes);
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
