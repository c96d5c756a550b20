/// <reference types="jest" />
import { bucketOf } from '../src/store/slot-of.js';
import type { SlotRef, StoreScheduleItem, TimeoutStore } from '../src/store/timeout-store.js';
import { storeContractFrame } from './contract-frame.js';
import type { StoreContractContext } from './timeout-store.contract.js';

const LONG = 60_000;

/** `count` ids of distinct data buckets. */
function idsInDistinctBuckets(count: number, prefix: string): string[] {
  const byBucket = new Map<number, string>();
  for (let i = 0; byBucket.size < count; i++) {
    const id = `${prefix}-${i}`;
    if (!byBucket.has(bucketOf(id))) byBucket.set(bucketOf(id), id);
  }
  return [...byBucket.values()];
}

/**
 * `scheduleMany` and `cancelMany` of one slot, as every `TimeoutStore` must implement them.
 * Declared by `describeTimeoutStoreContract`, so every store that runs the contract runs this too.
 */
export function describeBulkCallsContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describe(`TimeoutStore contract, bulk calls: ${name}`, () => {
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'payment', slot: 9 };

    storeContractFrame(makeContext, (made) => (store = made.store));

    it('schedules many in order, one result per item, an id given twice seen by its later item', async () => {
      const now = await store.now();
      const items: StoreScheduleItem[] = [
        { id: 'a', entry: { at: now + LONG, payload: '"a1"' } },
        { id: 'b', entry: { delayMs: LONG, payload: '"b"', ifExists: 'keep' } },
        { id: 'a', entry: { at: now + 2 * LONG, payload: '"a2"', ifExists: 'earlier' } },
        { id: 'a', entry: { at: now + 2 * LONG, payload: '"a3"', ifExists: 'later' } },
      ];
      const results = await store.writes.scheduleMany(slot, items);
      expect(results.map((result) => (result instanceof Error ? result.name : result.outcome))).toEqual(['created', 'created', 'kept', 'replaced']);
      expect(results[2]).toEqual({ outcome: 'kept', dueAt: now + LONG });
      expect(await store.reads.get(slot, 'a')).toMatchObject({ state: 'pending', dueAt: now + 2 * LONG, payload: '"a3"' });
      expect(await store.reads.get(slot, 'b')).toMatchObject({ state: 'pending', payload: '"b"' });
      expect(await store.writes.scheduleMany(slot, [])).toEqual([]);
    });

    it('keeps the order with single schedules of the same tick, and takes more items than one coalesced batch', async () => {
      const single = store.writes.schedule(slot, 'first', { delayMs: LONG, payload: '"single"' });
      const many = store.writes.scheduleMany(slot, [
        { id: 'first', entry: { delayMs: LONG, payload: '"bulk"', ifExists: 'keep' } },
        ...Array.from({ length: 450 }, (_, i) => ({ id: `n-${i}`, entry: { delayMs: LONG + i, payload: String(i) } })),
      ]);
      expect((await single).outcome).toBe('created');
      const results = await many;
      expect(results).toHaveLength(451);
      expect(results[0]).toMatchObject({ outcome: 'kept' });
      expect(results.slice(1).every((result) => !(result instanceof Error) && result.outcome === 'created')).toBe(true);
      expect((await store.reads.stats(slot)).pending).toBe(451);
      expect(await store.reads.get(slot, 'n-449')).toMatchObject({ payload: '449' });
    });

    it('cancels many: pending ones cancelled (data gone), firing ones removed too (firing), unknown and dead ones not found', async () => {
      const ids = idsInDistinctBuckets(12, 'c');
      await store.writes.scheduleMany(slot, ids.map((id) => ({ id, entry: { delayMs: LONG, payload: '"x"' } })));
      const now = await store.now();
      await store.writes.schedule(slot, 'running', { at: now - 5, payload: 'null' });
      await store.writes.schedule(slot, 'buried', { at: now - 5, payload: 'null' });
      const claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed;
      const buried = claimed.find((entry) => entry.id === 'buried')!;
      await store.deliveries.fail(slot, 'buried', buried.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 });
      // Twelve data buckets take the every-bucket path, three the few-bucket one.
      const many = await store.writes.cancelMany(slot, [...ids, 'running', 'buried', 'unknown', ids[0]!]);
      expect(many).toEqual([...ids.map(() => 'cancelled'), 'firing', 'not_found', 'not_found', 'not_found']);
      for (const id of [...ids, 'running']) {
        expect(await store.reads.get(slot, id)).toBeNull();
        expect(await store.layout.bucketIds(slot, bucketOf(id))).not.toContain(id);
      }
      await store.writes.scheduleMany(slot, ids.slice(0, 3).map((id) => ({ id, entry: { delayMs: LONG, payload: 'null' } })));
      expect(await store.writes.cancelMany(slot, ids.slice(0, 3))).toEqual(['cancelled', 'cancelled', 'cancelled']);
      expect(await store.writes.cancelMany(slot, [])).toEqual([]);
      expect(await store.reads.stats(slot)).toMatchObject({ pending: 0, firing: 0 });
    });

    it('refuses only the items whose data bucket a slot migration is moving, and applies the others', async () => {
      const routed: SlotRef = { ...slot, slots: 16 };
      const [moving, other] = idsInDistinctBuckets(2, 'mv');
      await store.layout.markSlot(slot, { slots: 32, movingBucket: bucketOf(moving!) });
      const scheduled = await store.writes.scheduleMany(routed, [
        { id: moving!, entry: { delayMs: LONG, payload: '1' } },
        { id: other!, entry: { delayMs: LONG, payload: '2' } },
      ]);
      expect(scheduled[0]).toMatchObject({ name: 'SlotLockedError', slots: 32 });
      expect(scheduled[1]).toMatchObject({ outcome: 'created' });
      const cancelled = await store.writes.cancelMany(routed, [moving!, other!]);
      expect(cancelled[0]).toMatchObject({ name: 'SlotLockedError', slots: 32 });
      expect(cancelled[1]).toBe('cancelled');
      await store.layout.markSlot(slot, null);
      expect(await store.reads.get(routed, moving!)).toBeNull();
    });
  });
}
