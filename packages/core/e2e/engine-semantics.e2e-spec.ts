import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { InvalidOptionsError } from '../src/errors/invalid-options.error.js';
import type { DurableTimeoutsOptions, TimeoutEvent } from '../src/types.js';
import { EngineRig, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

// Deadline modes (`ifExists`) through the engine, on one server and on a 3-master cluster.

let server: RedisServer;
let cluster: RedisCluster;
const rig = new EngineRig();

beforeAll(async () => {
  [server, cluster] = await Promise.all([RedisServer.start(), RedisCluster.start()]);
}, 120_000);

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await Promise.all([server?.stop(), cluster?.stop()]);
});

const setups: [string, () => DurableTimeoutsOptions<'payment'>['connection']][] = [
  ['one server', () => server.url],
  ['a 3-master cluster', () => ({ cluster: cluster.startupNodes })],
];

describe.each(setups)('deadline modes on %s', (_name, connection) => {
  const open = () => rig.open({ connection: connection(), prefix: uniquePrefix(), topics: { payment: { slots: 4, leaseMs: 10_000 } } });

  it('keep: a producer retry does not move the deadline nor change the payload; it fires once with the first', async () => {
    const timeouts = open();
    const fired: TimeoutEvent[] = [];
    timeouts.handle('payment', (event) => void fired.push(event));
    const first = await timeouts.schedule('payment', 'order-1', { delayMs: 300, payload: { try: 1 }, ifExists: 'keep' });
    const retry = await timeouts.schedule('payment', 'order-1', { delayMs: 5_000, payload: { try: 2 }, ifExists: 'keep' });
    expect(first.outcome).toBe('created');
    expect(retry).toEqual({ topic: 'payment', id: 'order-1', outcome: 'kept', dueAt: first.dueAt });
    await timeouts.start();
    await waitUntil(() => fired.length === 1, 5_000, 'the delivery');
    expect(fired[0]).toMatchObject({ id: 'order-1', payload: { try: 1 }, dueAt: first.dueAt });
  });

  it('later and earlier: the deadline moves one way only, and the winning call sets the payload', async () => {
    const timeouts = open();
    const base = await timeouts.schedule('payment', 'ride-1', { delayMs: 60_000, payload: 'base' });
    expect((await timeouts.schedule('payment', 'ride-1', { delayMs: 1_000, payload: 'shorter', ifExists: 'later' })).outcome).toBe('kept');
    const extended = await timeouts.schedule('payment', 'ride-1', { delayMs: 120_000, payload: 'extended', ifExists: 'later' });
    expect(extended.outcome).toBe('replaced');
    expect(extended.dueAt).toBeGreaterThan(base.dueAt);
    expect((await timeouts.schedule('payment', 'ride-1', { delayMs: 180_000, payload: 'no', ifExists: 'earlier' })).outcome).toBe('kept');
    const sooner = await timeouts.schedule('payment', 'ride-1', { delayMs: 30_000, payload: 'sooner', ifExists: 'earlier' });
    expect(sooner.outcome).toBe('replaced');
    expect(await timeouts.get('payment', 'ride-1')).toMatchObject({ state: 'pending', dueAt: sooner.dueAt, payload: 'sooner' });
  });

  it('keep while the handler runs: kept_firing, the running delivery acks, nothing fires again; no scheduled event for a kept call', async () => {
    const timeouts = open();
    const scheduledOutcomes: string[] = [];
    timeouts.on('scheduled', ({ outcome }) => void scheduledOutcomes.push(outcome));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    let fired = 0;
    timeouts.on('fired', () => void (fired += 1));
    timeouts.handle('payment', async () => {
      runs += 1;
      await gate;
    });
    await timeouts.schedule('payment', 'order-2', { delayMs: 0 });
    await timeouts.start();
    await waitUntil(() => runs === 1, 5_000, 'the handler to start');
    const kept = await timeouts.schedule('payment', 'order-2', { delayMs: 0, payload: 'again', ifExists: 'keep' });
    expect(kept.outcome).toBe('kept_firing');
    release();
    await waitUntil(() => fired === 1, 5_000, 'the ack');
    expect(await timeouts.get('payment', 'order-2')).toBeNull();
    expect(runs).toBe(1);
    expect(scheduledOutcomes).toEqual(['created']);
  });

  it('refuses an unknown mode with a typed error and stores nothing', async () => {
    const timeouts = open();
    await expect(timeouts.schedule('payment', 'bad', { delayMs: 10, ifExists: 'newer' as never })).rejects.toThrow(InvalidOptionsError);
    await expect(timeouts.schedule('payment', 'bad', { delayMs: 10, ifExists: 'newer' as never })).rejects.toThrow(/ifExists = "newer".*'replace', 'keep', 'earlier', 'later'/);
    expect(await timeouts.get('payment', 'bad')).toBeNull();
  });
});

describe.each(setups)('bulk calls on %s', (_name, connection) => {
  const open = () => rig.open({ connection: connection(), prefix: uniquePrefix(), topics: { payment: { slots: 16 } } });

  it('scheduleMany: bad items refused with their typed error, every other one stored across the slots and fired once', async () => {
    const timeouts = open();
    const fired = new Map<string, unknown>();
    timeouts.handle('payment', (event) => void fired.set(event.id, event.payload));
    const items = Array.from({ length: 300 }, (_, i) => ({ id: `order:{${i}}`, delayMs: 200, payload: { n: i } }));
    const results = await timeouts.scheduleMany('payment', [
      ...items.slice(0, 100),
      { id: '', delayMs: 10 },
      { id: 'negative', delayMs: -1 },
      { id: 'date', delayMs: 10, payload: { at: new Date() } as never },
      { id: 'mode', delayMs: 10, ifExists: 'sometimes' as never },
      ...items.slice(100),
    ]);
    expect(results).toHaveLength(304);
    expect(results.slice(100, 104).map((result) => (result.ok ? 'ok' : result.error.name))).toEqual([
      'InvalidTimeoutIdError',
      'InvalidDelayError',
      'InvalidPayloadError',
      'InvalidOptionsError',
    ]);
    const stored = results.filter((result) => result.ok);
    expect(stored.map((result) => result.id)).toEqual(items.map((item) => item.id));
    expect(stored.every((result) => result.ok && result.outcome === 'created')).toBe(true);
    for (const id of ['negative', 'date', 'mode']) expect(await timeouts.get('payment', id)).toBeNull();
    expect((await timeouts.stats('payment')).pending).toBe(300);
    await timeouts.start();
    await waitUntil(() => fired.size === 300, 10_000, 'every delivery');
    expect(fired.get('order:{299}')).toEqual({ n: 299 });
  });

  it('cancelMany: one result per id in order, the cancelled ones never fire', async () => {
    const timeouts = open();
    const ids = Array.from({ length: 50 }, (_, i) => `ride-${i}`);
    await timeouts.scheduleMany('payment', ids.map((id) => ({ id, delayMs: 60_000 })));
    const results = await timeouts.cancelMany('payment', [...ids.slice(0, 40), 'unknown', '']);
    expect(results.map((result) => (result.ok ? result.result : result.error.name))).toEqual([
      ...ids.slice(0, 40).map(() => 'cancelled'),
      'not_found',
      'InvalidTimeoutIdError',
    ]);
    expect((await timeouts.stats('payment')).pending).toBe(10);
    expect(await timeouts.get('payment', 'ride-45')).toMatchObject({ state: 'pending' });
  });

  it('refuses a call that is not an array or is over 10,000 items before anything is sent', async () => {
    const timeouts = open();
    await expect(timeouts.scheduleMany('payment', 'nope' as never)).rejects.toThrow(InvalidOptionsError);
    const many = Array.from({ length: 10_001 }, (_, i) => ({ id: `x${i}`, delayMs: 10 }));
    await expect(timeouts.scheduleMany('payment', many)).rejects.toThrow(/10001 items, the limit is 10000/);
    await expect(timeouts.cancelMany('payment', many.map(({ id }) => id))).rejects.toThrow(InvalidOptionsError);
    expect((await timeouts.stats('payment')).pending).toBe(0);
  });
});

describe.each(setups)('lease renewal on %s', (_name, connection) => {
  const LEASE_MS = 300;
  const optionsFor = (prefix: string, maxRunMs?: number) => ({
    connection: connection(),
    prefix,
    sweepIntervalMs: 1_000,
    topics: { payment: { slots: 4, leaseMs: LEASE_MS, backoff: { baseMs: 10, capMs: 10 }, ...(maxRunMs === undefined ? {} : { maxRunMs }) } },
  });

  it('a handler running 5 x leaseMs keeps its timeout: no other instance runs it, its ack is accepted', async () => {
    const prefix = uniquePrefix();
    const [first, second] = [rig.open(optionsFor(prefix)), rig.open(optionsFor(prefix))];
    const starts: number[] = [];
    const outcomes: string[] = [];
    for (const timeouts of [first!, second!]) {
      timeouts.handle('payment', async (event) => {
        starts.push(event.attempt);
        await new Promise((resolve) => setTimeout(resolve, 5 * LEASE_MS));
        if (event.signal.aborted) throw new Error('the signal was aborted');
      });
      timeouts.on('fired', () => void outcomes.push('fired'));
      timeouts.on('retried', ({ reason }) => void outcomes.push(`retried ${reason}`));
      timeouts.on('stale', () => void outcomes.push('stale'));
      await timeouts.start();
    }
    await first!.schedule('payment', 'long', { delayMs: 0 });
    await waitUntil(() => outcomes.length > 0, 10_000, 'the end of the delivery');
    // Leave the other instance time to claim an expired lease, if the renewal had failed.
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    expect(outcomes).toEqual(['fired']);
    expect(starts).toEqual([1]);
    expect(await first!.get('payment', 'long')).toBeNull();
  });

  it('extendLease(ms) makes the lease last at least ms from now; a renewal refused as stale aborts the signal with LeaseLostError', async () => {
    const timeouts = rig.open(optionsFor(uniquePrefix()));
    let extendedTo = 0;
    let reason: unknown;
    timeouts.handle('payment', async (event) => {
      if (event.payload === 'extend') {
        extendedTo = await event.extendLease(60_000);
        return;
      }
      await new Promise((resolve) => event.signal.addEventListener('abort', resolve));
      reason = event.signal.reason;
    });
    await timeouts.start();
    const { dueAt } = await timeouts.schedule('payment', 'ext', { delayMs: 0, payload: 'extend' });
    await waitUntil(() => extendedTo > 0, 5_000, 'the extension');
    expect(extendedTo).toBeGreaterThanOrEqual(dueAt + 60_000);

    await timeouts.schedule('payment', 'replaced', { delayMs: 0, payload: 'wait' });
    await waitUntil(async () => (await timeouts.get('payment', 'replaced'))?.state === 'firing', 5_000, 'the handler to start');
    expect((await timeouts.schedule('payment', 'replaced', { delayMs: 60_000, payload: 'new' })).outcome).toBe('replaced_firing');
    await waitUntil(() => reason !== undefined, 5_000, 'the abort');
    expect(reason).toMatchObject({ name: 'LeaseLostError', message: expect.stringMatching(/newer delivery or schedule owns/) });
    expect(await timeouts.get('payment', 'replaced')).toMatchObject({ state: 'pending', payload: 'new' });
  });

  it('past maxRunMs the delivery counts as failed: signal aborted with HandlerTimeoutError, retried, and the next attempt acks', async () => {
    const timeouts = rig.open(optionsFor(uniquePrefix(), 600));
    const reasons: unknown[] = [];
    const retried: string[] = [];
    let fired = 0;
    timeouts.on('retried', ({ attempt, reason, error }) => void retried.push(`${attempt} ${reason} ${error.name}`));
    timeouts.on('fired', () => void (fired += 1));
    timeouts.handle('payment', async (event) => {
      if (event.attempt > 1) return;
      await new Promise((resolve) => event.signal.addEventListener('abort', resolve));
      reasons.push(event.signal.reason);
    });
    await timeouts.start();
    await timeouts.schedule('payment', 'hang', { delayMs: 0 });
    await waitUntil(() => fired === 1, 10_000, 'the second attempt');
    expect(reasons).toEqual([expect.objectContaining({ name: 'HandlerTimeoutError' })]);
    expect(retried).toEqual(['1 handler HandlerTimeoutError']);
    expect(await timeouts.get('payment', 'hang')).toBeNull();
  });
});
