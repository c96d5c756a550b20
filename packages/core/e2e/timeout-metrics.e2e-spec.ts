import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { RedisServer, waitUntil } from '@durable-timeout/redis-testing';
import { DurableTimeouts } from '../src/durable-timeouts.js';
import { InvalidOptionsError } from '../src/errors/invalid-options.error.js';
import { registerTimeoutMetrics, TIMEOUT_METRICS } from '../src/otel/index.js';

/** An OpenTelemetry SDK of its own (never the global one), read on demand through the in-memory exporter. */
function openSdk() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    /** Collects once and returns every metric by name. */
    async collect(): Promise<Map<string, MetricData>> {
      exporter.reset();
      await reader.forceFlush();
      const byName = new Map<string, MetricData>();
      for (const resource of exporter.getMetrics()) {
        for (const scope of resource.scopeMetrics) for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
      }
      return byName;
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The value of a counter or gauge data point whose attributes include `match`; undefined when there is none. */
function valueOf(metric: MetricData | undefined, match: Record<string, string>): number | undefined {
  const point = metric?.dataPoints.find((candidate) => Object.entries(match).every(([key, value]) => candidate.attributes[key] === value));
  return point === undefined ? undefined : (point.value as number);
}

/** The number of recordings of a histogram data point whose attributes include `match`. */
function countOf(metric: MetricData | undefined, match: Record<string, string>): number {
  const points = metric?.dataPoints.filter((candidate) => Object.entries(match).every(([key, value]) => candidate.attributes[key] === value)) ?? [];
  return points.reduce((total, point) => total + (point.value as { count: number }).count, 0);
}

const topicOf = (topic: string) => ({ 'messaging.destination.name': topic });

let server: RedisServer;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await RedisServer.start();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  await server?.stop();
});

describe('registerTimeoutMetrics against a real Redis, read by the OpenTelemetry SDK', () => {
  it('counts every outcome, records lateness and handler duration, and samples the gauges per topic', async () => {
    const sdk = openSdk();
    cleanups.push(() => sdk.shutdown());
    const timeouts = new DurableTimeouts({
      connection: server.url,
      prefix: `m${randomUUID().slice(0, 8)}`,
      topics: {
        work: { slots: 4, maxAttempts: 2, backoff: { baseMs: 0, capMs: 0 } },
        orphan: { slots: 2 },
        tardy: { slots: 1, late: { afterMs: 1_000, action: 'skip' } },
      },
      logger: null,
    });
    cleanups.push(() => timeouts.stop({ drainMs: 0 }));
    const registration = registerTimeoutMetrics(timeouts, { meterProvider: sdk.provider });
    expect(registration.enabled).toBe(true);

    const started = new Set<string>();
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    timeouts.handle('work', async (event) => {
      started.add(event.id);
      if (event.id === 'flaky' && event.attempt === 1) throw new TypeError('flaky once');
      if (event.id === 'poison') throw new RangeError('always');
      if (event.id === 'held') await gate;
      if (event.id === 'stuck' || event.id === 'doomed') await new Promise((resolve) => event.signal.addEventListener('abort', resolve));
    });
    const tardyRuns: string[] = [];
    timeouts.handle('tardy', (event) => {
      tardyRuns.push(event.id);
    });
    const seen = { fired: 0, dead: 0, stale: 0, skipped: 0 };
    timeouts.on('skipped', () => seen.skipped++);
    timeouts.on('fired', () => seen.fired++);
    timeouts.on('dead', () => seen.dead++);
    timeouts.on('stale', () => seen.stale++);
    await timeouts.start();

    const now = Date.now();
    for (const id of ['ok-1', 'ok-2', 'ok-3', 'flaky', 'poison']) await timeouts.schedule('work', id, { at: now });
    await waitUntil(() => seen.fired === 4 && seen.dead === 1, 10_000, 'four fired and one dead letter');

    // A stale ack: the timeout is scheduled again while its handler runs, then the handler returns.
    await timeouts.schedule('work', 'held', { at: Date.now() });
    await waitUntil(() => started.has('held'), 10_000, 'held to start');
    expect((await timeouts.schedule('work', 'held', { delayMs: 60_000 })).outcome).toBe('replaced_firing');
    openGate();
    await waitUntil(() => seen.stale === 1, 10_000, 'the stale ack');

    await timeouts.schedule('work', 'stuck', { at: Date.now() });
    await waitUntil(() => started.has('stuck'), 10_000, 'stuck to start');
    await timeouts.schedule('work', 'cancel-me', { delayMs: 60_000 });
    expect(await timeouts.cancel('work', 'cancel-me')).toBe('cancelled');
    // A cancel that hits a running handler counts too: the timeout is gone, its delivery told to stop.
    await timeouts.schedule('work', 'doomed', { at: Date.now() });
    await waitUntil(() => started.has('doomed'), 10_000, 'doomed to start');
    expect(await timeouts.cancel('work', 'doomed')).toBe('firing');
    await timeouts.schedule('orphan', 'late', { at: Date.now() - 5_000 });
    await timeouts.schedule('tardy', 'after-outage', { at: Date.now() - 5_000 });
    await waitUntil(() => seen.skipped === 1, 10_000, 'the late timeout to be skipped');

    await timeouts.pause('orphan');
    const live = await sdk.collect();
    const work = topicOf('work');
    expect(valueOf(live.get(TIMEOUT_METRICS.scheduled), { ...work, 'messaging.operation.name': 'schedule', 'messaging.system': 'durable_timeout' })).toBe(10);
    expect(valueOf(live.get(TIMEOUT_METRICS.fired), work)).toBe(4);
    expect(valueOf(live.get(TIMEOUT_METRICS.retried), work)).toBe(2);
    expect(valueOf(live.get(TIMEOUT_METRICS.deadLettered), work)).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.staleAcks), work)).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.cancelled), work)).toBe(2);
    expect(valueOf(live.get(TIMEOUT_METRICS.skipped), topicOf('tardy'))).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.skipped), work)).toBe(0);
    expect(tardyRuns).toEqual([]);
    // Every handler run that ended and was recorded: 4 fired, 2 retried, 1 dead-lettered.
    expect(countOf(live.get(TIMEOUT_METRICS.lateness), work)).toBe(7);
    const duration = live.get(TIMEOUT_METRICS.handlerDuration);
    expect(duration?.descriptor.unit).toBe('s');
    expect(countOf(duration, { ...work, 'messaging.operation.name': 'process' })).toBe(7);
    expect(countOf(duration, { ...work, 'error.type': 'TypeError' })).toBe(1);
    expect(countOf(duration, { ...work, 'error.type': 'RangeError' })).toBe(2);
    // Gauges, read from Redis: 'held' waits a minute, 'stuck' runs, 'poison' is dead; 'late' is 5 s overdue.
    expect(valueOf(live.get(TIMEOUT_METRICS.pending), work)).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.firing), work)).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.dead), work)).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.oldestOverdueAge), work)).toBe(0);
    expect(valueOf(live.get(TIMEOUT_METRICS.pending), topicOf('orphan'))).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.oldestOverdueAge), topicOf('orphan'))).toBeGreaterThanOrEqual(5);
    // 'orphan' is paused (every slot), the others are not; resumed, it reads 0 at the next collection.
    expect(valueOf(live.get(TIMEOUT_METRICS.paused), topicOf('orphan'))).toBe(1);
    expect(valueOf(live.get(TIMEOUT_METRICS.paused), work)).toBe(0);
    expect(valueOf(live.get(TIMEOUT_METRICS.paused), topicOf('tardy'))).toBe(0);
    await timeouts.resume('orphan');
    expect(valueOf((await sdk.collect()).get(TIMEOUT_METRICS.paused), topicOf('orphan'))).toBe(0);

    await timeouts.stop({ drainMs: 0 });
    // The engine is stopped: the gauges' callback cannot read Redis any more, and the collection still completes.
    const after = await sdk.collect();
    expect(valueOf(after.get(TIMEOUT_METRICS.released), work)).toBe(1);
  });

  it('reads one stats script per slot of each reported topic per collection, paused or not, and nothing else', async () => {
    const sdk = openSdk();
    cleanups.push(() => sdk.shutdown());
    const timeouts = new DurableTimeouts({
      connection: server.url,
      prefix: `m${randomUUID().slice(0, 8)}`,
      topics: { payment: { slots: 16 }, ride: { slots: 4 }, quiet: { slots: 8 } },
      logger: null,
    });
    cleanups.push(() => timeouts.stop({ drainMs: 0 }));
    registerTimeoutMetrics(timeouts, { meterProvider: sdk.provider, gauges: ['payment', 'ride'] });
    const admin = server.client();
    cleanups.push(() => admin.quit());
    await timeouts.pause('ride');
    await sdk.collect(); // connects, checks the server and loads the script
    const before = await commandCalls(admin);
    const collected = await sdk.collect();
    const after = await commandCalls(admin);
    expect(valueOf(collected.get(TIMEOUT_METRICS.pending), topicOf('payment'))).toBe(0);
    expect(valueOf(collected.get(TIMEOUT_METRICS.pending), topicOf('quiet'))).toBeUndefined();
    expect(valueOf(collected.get(TIMEOUT_METRICS.paused), topicOf('ride'))).toBe(1);
    expect(valueOf(collected.get(TIMEOUT_METRICS.paused), topicOf('payment'))).toBe(0);
    // 16 + 4 script calls, each running 3 ZCARD, one ZRANGE 0 0, TIME and the HGET of the pause
    // mark (Redis counts the commands inside scripts too); the INFO is our own reading.
    const changed = Object.fromEntries(
      [...after].filter(([command, calls]) => calls !== (before.get(command) ?? 0)).map(([command, calls]) => [command, calls - (before.get(command) ?? 0)]),
    );
    expect(changed).toEqual({ evalsha: 20, zcard: 60, zrange: 20, time: 20, hget: 20, info: 1 });
  });

  it('subscribes to nothing with the no-op meter of the bare API, and stops recording when stopped', async () => {
    const timeouts = new DurableTimeouts({ connection: server.url, prefix: `m${randomUUID().slice(0, 8)}`, topics: { work: {} }, logger: null });
    cleanups.push(() => timeouts.stop({ drainMs: 0 }));
    expect(registerTimeoutMetrics(timeouts).enabled).toBe(false);

    const sdk = openSdk();
    cleanups.push(() => sdk.shutdown());
    const registration = registerTimeoutMetrics(timeouts, { meterProvider: sdk.provider, gauges: false });
    expect(valueOf((await sdk.collect()).get(TIMEOUT_METRICS.fired), topicOf('work'))).toBe(0);
    await timeouts.schedule('work', 'one', { delayMs: 60_000 });
    const collected = await sdk.collect();
    expect(valueOf(collected.get(TIMEOUT_METRICS.scheduled), topicOf('work'))).toBe(1);
    expect(collected.get(TIMEOUT_METRICS.pending)).toBeUndefined();
    registration.stop();
    registration.stop();
    await timeouts.schedule('work', 'two', { delayMs: 60_000 });
    expect(valueOf((await sdk.collect()).get(TIMEOUT_METRICS.scheduled), topicOf('work'))).not.toBe(2);
  });

  it('rejects gauge topics the engine does not have', () => {
    const timeouts = new DurableTimeouts({ connection: server.url, topics: { work: {} }, logger: null });
    cleanups.push(() => timeouts.stop({ drainMs: 0 }));
    const sdk = openSdk();
    cleanups.push(() => sdk.shutdown());
    expect(() => registerTimeoutMetrics(timeouts, { meterProvider: sdk.provider, gauges: ['nope' as 'work'] })).toThrow(InvalidOptionsError);
    expect(() => registerTimeoutMetrics(timeouts, { meterProvider: sdk.provider, gauges: 'all' as unknown as boolean })).toThrow(/gauges/);
  });
});

describe('the @opentelemetry/api peer', () => {
  it('is imported only under src/otel, so the main entry point loads without it', () => {
    const src = new URL('../src/', import.meta.url);
    const importers = (readdirSync(src, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
      .filter((file) => /from ['"]@opentelemetry\//.test(readFileSync(new URL(file, src), 'utf8')));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith('otel/'))).toEqual([]);
  });
});

/** Calls per command since the server started (`INFO commandstats`). */
async function commandCalls(client: ReturnType<RedisServer['client']>): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const match of (await client.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
  return calls;
}
