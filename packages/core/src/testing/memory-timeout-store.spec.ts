import { describe, expect, it } from '@jest/globals';
import { describeTimeoutStoreContract } from '../../test/timeout-store.contract.js';
import { StoreClosedError } from '../store/store-closed.error.js';
import type { SlotRef } from '../store/timeout-store.js';
import { ManualClock } from './manual-clock.js';
import { MemoryTimeoutStore } from './memory-timeout-store.js';

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
