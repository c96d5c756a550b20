import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { DurableTimeouts } from '../src/durable-timeouts.js';
import { uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

/** Let this long pass after everything fell due: far more than a claim needs to fire it. */
const SETTLE_MS = 800;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('pause and resume of a topic, two instances on one Redis server', () => {
  it('fires nothing on any instance while paused, survives a restart, and both instances resume', async () => {
    const prefix = uniquePrefix();
    const fired = new Map<string, string[]>();
    const open = (name: string): DurableTimeouts => {
      const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 4 }, ride: { slots: 1 } }, logger: null });
      for (const topic of ['payment', 'ride']) {
        timeouts.handle(topic, (event) => {
          fired.set(event.id, [...(fired.get(event.id) ?? []), name]);
        });
      }
      return timeouts;
    };
    const a = open('a');
    const b = open('b');
    await a.start();
    await b.start();

    expect((await a.pause('payment')).paused).toBe(true);
    const ids = Array.from({ length: 24 }, (_, i) => `order-${i}`);
    for (const [i, id] of ids.entries()) await (i % 2 ? a : b).schedule('payment', id, { delayMs: 50 });
    await b.schedule('payment', 'cancelled', { delayMs: 50 });
    expect(await a.cancel('payment', 'cancelled')).toBe('cancelled');
    await a.schedule('ride', 'not-paused', { delayMs: 50 });
    await waitUntil(() => fired.has('not-paused'), 10_000, 'the timeout of the other topic to fire');
    await sleep(SETTLE_MS);
    expect([...fired.keys()]).toEqual(['not-paused']);
    expect(await b.paused('payment')).toBe(true);
    expect(await b.stats('payment')).toMatchObject({ pending: 24, firing: 0 });
    // Each instance's pollers met the pause in their claims (woken by the schedules).
    expect((await a.health()).pausedTopics).toEqual(['payment']);
    expect((await b.health()).pausedTopics).toEqual(['payment']);

    // A restart keeps the pause: it lives in Redis.
    await b.stop();
    const c = open('c');
    await c.start();
    expect(await c.paused('payment')).toBe(true);
    await sleep(SETTLE_MS);
    expect([...fired.keys()]).toEqual(['not-paused']);

    const resumed = await c.resume('payment');
    expect(resumed).toMatchObject({ topic: 'payment', resumed: true, shifted: 0 });
    expect(resumed.pausedMs).toBeGreaterThanOrEqual(2 * SETTLE_MS);
    await waitUntil(() => ids.every((id) => fired.has(id)), 10_000, 'every paused timeout to fire after resume');
    for (const id of ids) expect({ id, firedBy: fired.get(id)!.length }).toEqual({ id, firedBy: 1 });
    expect(fired.has('cancelled')).toBe(false);
    // Both running instances claim again (the resume woke every instance's pollers).
    await waitUntil(async () => (await a.health()).pausedTopics.length === 0 && (await c.health()).pausedTopics.length === 0, 10_000, 'both instances to claim unpaused');
    expect(await a.paused('payment')).toBe(false);
    // And both fire what comes due next: a timeout for each slot, fired by whichever claims first.
    const next = Array.from({ length: 8 }, (_, i) => `after-${i}`);
    for (const id of next) await a.schedule('payment', id, { delayMs: 20 });
    await waitUntil(() => next.every((id) => fired.has(id)), 10_000, 'timeouts scheduled after the resume to fire');
  });

  it('keeps a topic paused through a change of its slot count, on the slots it gains too, until one resume fires everything', async () => {
    const prefix = uniquePrefix();
    const fired = new Map<string, number>();
    const open = (slots: number): DurableTimeouts => {
      const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots } }, logger: null });
      timeouts.handle('payment', (event) => {
        fired.set(event.id, (fired.get(event.id) ?? 0) + 1);
      });
      return timeouts;
    };
    const before = open(2);
    await before.start();
    await before.pause('payment');
    const ids = Array.from({ length: 40 }, (_, i) => `order-${i}`);
    for (const id of ids) await before.schedule('payment', id, { delayMs: 50 });

    await before.migrateSlots('payment', 8);
    // An instance of the new count polls all eight slots; the one of the old count follows the layout.
    const after = open(8);
    await after.start();
    for (const id of ids.slice(0, 8)) await after.schedule('payment', `${id}-new`, { delayMs: 20 });
    await sleep(SETTLE_MS);
    expect([...fired.keys()]).toEqual([]);
    expect(await after.paused('payment')).toBe(true);
    expect(await after.stats('payment')).toMatchObject({ pending: 48, firing: 0 });

    expect(await after.resume('payment')).toMatchObject({ resumed: true });
    const all = [...ids, ...ids.slice(0, 8).map((id) => `${id}-new`)];
    await waitUntil(() => all.every((id) => fired.has(id)), 10_000, 'every paused timeout to fire after resume');
    for (const id of all) expect({ id, fired: fired.get(id) }).toEqual({ id, fired: 1 });
    expect(await before.paused('payment')).toBe(false);
  });

  it('moves pending due times later by the pause with shift: true', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 2 } }, logger: null });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    await timeouts.start();
    const scheduled = await timeouts.schedule('payment', 'shifted', { delayMs: 300 });
    await timeouts.pause('payment');
    await sleep(500);
    const resumed = await timeouts.resume('payment', { shift: true });
    expect(resumed).toMatchObject({ resumed: true, shifted: 1 });
    const info = await timeouts.get('payment', 'shifted');
    expect(info).toMatchObject({ state: 'pending', dueAt: scheduled.dueAt + resumed.pausedMs });
    expect(info!.scheduledAt).toBe(scheduled.dueAt - 300);
    await waitUntil(() => fired.length === 1, 10_000, 'the shifted timeout to fire');
    expect(fired).toEqual(['shifted']);
  });
});

describe('rate limit of a topic, two instances on one Redis server', () => {
  it('shares one budget between the instances: never more than the burst plus perSecond per second elapsed, and everything fires', async () => {
    const prefix = uniquePrefix();
    const perSecond = 20;
    const burst = 4;
    const fired: number[] = [];
    const open = () => {
      const timeouts = rig.open({ connection: server.url, prefix, topics: { mail: { slots: 2, rateLimit: { perSecond, burst } } }, logger: null });
      timeouts.handle('mail', () => {
        fired.push(Date.now());
      });
      return timeouts;
    };
    const a = open();
    const b = open();
    const count = 30;
    await a.scheduleMany('mail', Array.from({ length: count }, (_, i) => ({ id: `m-${i}`, at: Date.now() - 10 })));
    const startedAt = Date.now();
    await a.start();
    await b.start();
    await waitUntil(() => fired.length === count, 20_000, 'every rate-limited timeout to fire');
    // At any moment, what fired is bounded by the bucket: burst + perSecond x elapsed (+1 per slot for rounding).
    for (const [i, at] of fired.entries()) {
      const bound = burst + (perSecond * Math.max(0, at - startedAt)) / 1000 + 2;
      expect({ fired: i + 1, withinBound: i + 1 <= bound }).toEqual({ fired: i + 1, withinBound: true });
    }
    expect(fired[count - 1]! - startedAt).toBeGreaterThanOrEqual(((count - burst - 2) / perSecond) * 1000 - 50);
  });
});
