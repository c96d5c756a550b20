import { describe, expect, it } from '@jest/globals';
import { describeTimeoutStoreContract } from '../../test/timeout-store.contract.js';
import { StoreClosedError } from '../store/store-closed.error.js';
import type { SlotRef } from '../store/timeout-store.js';
import { ManualClock } from './manual-clock.js';
import { MemoryTimeoutStore } from './memory-timeout-store.js';
import { DurableTimeouts } from '../durable-timeouts.js';
import { TimeoutCancelledError } from '../errors/timeout-cancelled.error.js';

describeTimeoutStoreContract('memory, manual clock', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const store = new MemoryTimeoutStore(clock);
  return {
    store,
    openPeer: async () => store,
    advance: async (ms) => {
      clock.advanceBy(ms);
    },
    dispose: () => store.close(),
  };
});

/** Lets queued microtasks (wake-up deliveries) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('MemoryTimeoutStore', () => {
  const slot: SlotRef = { topic: 'payment', slot: 2 };

  it('uses the manual clock for delays and due times', async () => {
    const clock = new ManualClock(1_000_000);
    const store = new MemoryTimeoutStore(clock);
    const { dueAt } = await store.writes.schedule(slot, 'order-1', { delayMs: 60_000, payload: '{"amount":42}' });
    expect(dueAt).toBe(1_060_000);
    clock.advanceBy(59_999);
    expect((await store.deliveries.claim(slot, 10, 1_000)).claimed).toEqual([]);
    clock.advanceBy(1);
    const { claimed, now } = await store.deliveries.claim(slot, 10, 1_000);
    expect(now).toBe(1_060_000);
    // Fencing tokens start above the clock in 1/1024 ms, as in the Redis store.
    expect(claimed).toEqual([{ id: 'order-1', dueAt, scheduledAt: 1_000_000, attempt: 1, fencingToken: 1_060_000 * 1024 + 1, payload: '{"amount":42}' }]);
  });

  it('wakes subscribers when the clock moves past a due time or a lease expiry', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryTimeoutStore(clock);
    const wakes: Array<[SlotRef, number]> = [];
    await store.writes.schedule(slot, 'later', { delayMs: 5_000, payload: 'null' });
    const unsubscribe = await store.subscribe(['payment'], (woken, dueAt) => wakes.push([woken, dueAt]), () => undefined);
    clock.advanceBy(4_999);
    await settle();
    expect(wakes).toEqual([]);
    clock.advanceBy(1);
    await settle();
    expect(wakes).toEqual([[slot, 5_000]]);
    await store.deliveries.claim(slot, 10, 1_000);
    wakes.length = 0;
    clock.advanceBy(999);
    await settle();
    expect(wakes).toEqual([]);
    clock.advanceBy(1);
    await settle();
    expect(wakes).toEqual([[slot, 6_000]]);
    await unsubscribe();
    clock.advanceBy(1);
    await settle();
    expect(wakes).toHaveLength(1);
    await store.close();
  });

  it('shares its state between engines given the same instance', async () => {
    const store = new MemoryTimeoutStore(new ManualClock(0));
    await store.writes.schedule(slot, 'shared', { at: 0, payload: '"x"' });
    const first = await store.deliveries.claim(slot, 10, 1_000);
    const second = await store.deliveries.claim(slot, 10, 1_000);
    expect(first.claimed.map((entry) => entry.id)).toEqual(['shared']);
    expect(second.claimed).toEqual([]);
  });

  it('carries a cancel of a firing timeout from one engine to the handler another engine runs, as Redis does', async () => {
    const store = new MemoryTimeoutStore(new ManualClock(0));
    const topics = { payment: { leaseMs: 10_000 } };
    const a = new DurableTimeouts({ store, topics, logger: null });
    const b = new DurableTimeouts({ store, topics, logger: null });
    const seen: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    a.handle('payment', async (event) => {
      seen.push(`start ${event.id}`);
      const aborted = new Promise<void>((resolve) => event.signal.addEventListener('abort', () => resolve(), { once: true }));
      started();
      await aborted;
      seen.push(`aborted ${event.id} ${event.signal.reason instanceof TimeoutCancelledError}`);
      ended();
      throw event.signal.reason;
    });
    a.on('retried', (event) => seen.push(`retried ${event.id}`));
    a.on('dead', (event) => seen.push(`dead ${event.id}`));
    a.on('stale', (event) => seen.push(`stale ${event.id}`));
    try {
      await a.start();
      await b.schedule('payment', 'order-1', { delayMs: 0, payload: null });
      await running;
      expect(await b.cancel('payment', 'order-1')).toBe('firing');
      await done;
      await settle();
      expect(seen).toEqual(['start order-1', 'aborted order-1 true']);
      expect(await b.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
    } finally {
      await Promise.all([a.stop({ drainMs: 0 }), b.stop({ drainMs: 0 })]);
    }
  });

  it('refuses calls after close', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryTimeoutStore(clock);
    await store.close();
    await store.close();
    await expect(store.reads.get(slot, 'x')).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.writes.schedule(slot, 'x', { delayMs: 1, payload: 'null' })).rejects.toBeInstanceOf(StoreClosedError);
    expect(() => clock.advanceBy(10)).not.toThrow();
  });
});
