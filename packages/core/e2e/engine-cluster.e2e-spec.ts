import { describe, expect, it } from '@jest/globals';
import { RedisCluster } from '@durable-timeout/redis-testing';
import { uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';
import { slotOf } from '../src/store/slot-of.js';
import { TimeoutCancelledError } from '../src/errors/timeout-cancelled.error.js';

let cluster: RedisCluster;
const rig = engineSuite(() => RedisCluster.start(), (started) => (cluster = started));

/** Far enough ahead that the cancels below land first even on a loaded machine (60 schedules go first). */
const CANCELLED_DELAY_MS = 3_000;

describe('DurableTimeouts on a 3-master Redis Cluster', () => {
  it('schedules, fires and cancels across every slot with two instances, ids with {, } and : included', async () => {
    const prefix = uniquePrefix();
    const options = { connection: { cluster: cluster.startupNodes }, prefix, topics: { payment: { slots: 16 }, ride: { slots: 8 } } };
    const fired = new Map<string, number>();
    const instances = [rig.open(options), rig.open(options)];
    for (const timeouts of instances) {
      for (const topic of ['payment', 'ride'] as const) {
        timeouts.handle(topic, (event) => {
          const key = `${topic}/${event.id}`;
          fired.set(key, (fired.get(key) ?? 0) + 1);
        });
      }
      await timeouts.start();
    }
    const ids = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? `order:{${i}}` : i % 3 === 1 ? `{ride}:${i}:}` : `plain-${i}`));
    const cancelled = new Set(ids.filter((_, i) => i % 5 === 0));
    const [first, second] = instances as [(typeof instances)[0], (typeof instances)[0]];
    for (const [i, id] of ids.entries()) {
      const topic = i % 2 === 0 ? 'payment' : 'ride';
      await (i % 2 === 0 ? first : second).schedule(topic, id, { delayMs: cancelled.has(id) ? CANCELLED_DELAY_MS : 100, payload: { id } });
    }
    for (const [i, id] of ids.entries()) {
      if (cancelled.has(id)) expect(await second.cancel(i % 2 === 0 ? 'payment' : 'ride', id)).toBe('cancelled');
    }
    const expected = ids.filter((id) => !cancelled.has(id)).map((id) => `${ids.indexOf(id) % 2 === 0 ? 'payment' : 'ride'}/${id}`);
    await waitUntil(() => expected.every((key) => fired.has(key)), 15_000, 'every timeout fired');
    // Everything is settled: nothing pending (the cancelled ones are gone), nothing firing.
    await waitUntil(async () => {
      const [payment, ride] = await Promise.all([first.stats('payment'), first.stats('ride')]);
      return payment.pending + payment.firing + ride.pending + ride.firing === 0;
    });
    const sentinel = `sentinel-${prefix}`;
    // Due after the cancelled ones: once it fired, a cancelled one that was going to fire would have.
    await first.schedule('payment', sentinel, { delayMs: CANCELLED_DELAY_MS + 500 });
    await waitUntil(() => fired.has(`payment/${sentinel}`), 10_000, 'sentinel fired');
    expect([...fired.keys()].sort()).toEqual([...expected, `payment/${sentinel}`].sort());
    expect([...fired.values()].every((count) => count === 1)).toBe(true);
  });

  it('a cancel from one instance aborts the handlers another runs, whichever master holds their slots', async () => {
    const prefix = uniquePrefix();
    const options = { connection: { cluster: cluster.startupNodes }, prefix, topics: { payment: { slots: 16, leaseMs: 30_000 } } };
    const a = rig.open(options);
    const b = rig.open(options);
    // One id in each of the 16 slots: the slots spread over the three masters, and the notice of a
    // cancel is published on the master of its slot while `a` listens on one of them only.
    const ids: string[] = [];
    const taken = new Set<number>();
    for (let i = 0; ids.length < 16; i++) {
      if (taken.has(slotOf(`run-${i}`, 16))) continue;
      taken.add(slotOf(`run-${i}`, 16));
      ids.push(`run-${i}`);
    }
    const started = new Set<string>();
    const reasons = new Map<string, unknown>();
    const after: string[] = [];
    for (const name of ['fired', 'retried', 'dead', 'stale'] as const) a.on(name, (event) => after.push(`${name} ${event.id}`));
    a.handle('payment', async (event) => {
      await new Promise<void>((resolve) => {
        event.signal.addEventListener('abort', () => resolve(), { once: true });
        started.add(event.id);
      });
      reasons.set(event.id, event.signal.reason);
      throw event.signal.reason;
    });
    await a.start();
    await b.scheduleMany('payment', ids.map((id) => ({ id, delayMs: 0, payload: null })));
    await waitUntil(() => started.size === ids.length, 10_000, 'every handler started');
    const results = await b.cancelMany('payment', ids);
    expect(results.map((item) => (item.ok ? item.result : item.error))).toEqual(ids.map(() => 'firing'));
    await waitUntil(() => reasons.size === ids.length, 10_000, 'every handler aborted');
    expect([...reasons.values()].every((reason) => reason instanceof TimeoutCancelledError)).toBe(true);
    expect(await b.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
    expect(after).toEqual([]);
  });
});
