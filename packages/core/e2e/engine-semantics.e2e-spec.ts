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
