import { describe, expect, it } from '@jest/globals';
import { ScheduleCoalescer, type PendingSchedule } from './schedule-coalescer.js';
import { SlotMovedError } from './slot-moved.error.js';
import type { SlotRef, StoreScheduleEntry, StoreScheduleItem } from './timeout-store.js';

const SLOT: SlotRef = { topic: 'payment', slot: 3 };
const entry = (delayMs: number) => ({ delayMs, payload: 'null' });
const items = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `order-${i}`, entry: entry(i) }));

/**
 * A coalescer and a store's use of it, as `RedisWrites` does: what waits is taken at the end of the
 * tick, or at once by `flushSlot`; each taken call is recorded and settled by `settle` (by default
 * every entry is `created`, due at its delay); a call that throws fails each of its entries.
 */
function coalescer(maxPerCall: number, settle: (entries: readonly PendingSchedule[]) => void = createdAll) {
  const calls: string[][] = [];
  const batching = new ScheduleCoalescer(maxPerCall);
  const send = (taken: readonly PendingSchedule[][]) => {
    for (const entries of taken) {
      calls.push(entries.map(({ id }) => id));
      try {
        settle(entries);
      } catch (error) {
        for (const pending of entries) pending.reject(error);
      }
    }
  };
  let queued = false;
  const atEndOfTick = <T>(result: T): T => {
    if (!queued) {
      queued = true;
      process.nextTick(() => {
        queued = false;
        for (const { calls: taken } of batching.takeAll()) send(taken);
      });
    }
    return result;
  };
  const schedules = {
    add: (slot: SlotRef, id: string, scheduled: StoreScheduleEntry) => atEndOfTick(batching.add(slot, id, scheduled)),
    addUnit: (slot: SlotRef, unitItems: readonly StoreScheduleItem[]) => atEndOfTick(batching.addUnit(slot, unitItems)),
    flushSlot: (slot: SlotRef) => send(batching.take(slot)),
  };
  return { schedules, calls };
}

function createdAll(entries: readonly PendingSchedule[]): void {
  for (const pending of entries) pending.resolve({ outcome: 'created', dueAt: pending.entry.delayMs! });
}

describe('ScheduleCoalescer', () => {
  it('sends the schedules of one tick in calls of at most maxPerCall, never splitting the items of one unit', async () => {
    const { schedules, calls } = coalescer(4);
    const singles = [0, 1, 2].map((i) => schedules.add(SLOT, `single-${i}`, entry(i)));
    const unit = schedules.addUnit(SLOT, items(6));
    const last = schedules.add(SLOT, 'single-3', entry(3));
    await Promise.all([...singles, unit, last]);
    expect(calls.map((ids) => ids.length)).toEqual([9, 1]);
    expect(calls.flat()).toEqual(['single-0', 'single-1', 'single-2', ...items(6).map(({ id }) => id), 'single-3']);
  });

  it('settles a unit once, with each item result in order; a slot migration refusing one item is that item result', async () => {
    const moved = new SlotMovedError('moved', 16);
    const { schedules } = coalescer(200, (entries) =>
      // Settled out of order, as nothing forces a store to settle in order.
      [...entries].reverse().forEach((pending, i) => (i === 1 ? pending.reject(moved) : pending.resolve({ outcome: 'replaced', dueAt: pending.entry.delayMs! }))),
    );
    const results = await schedules.addUnit(SLOT, items(3));
    expect(results).toEqual([{ outcome: 'replaced', dueAt: 0 }, moved, { outcome: 'replaced', dueAt: 2 }]);
  });

  it('fails the whole unit when its call fails, and with the first item failure in item order that is not a refusal', async () => {
    const down = new Error('connection lost');
    const failing = coalescer(200, () => {
      throw down;
    });
    await expect(failing.schedules.addUnit(SLOT, items(3))).rejects.toBe(down);

    const first = new Error('first');
    const second = new Error('second');
    const mixed = coalescer(200, (entries) => {
      entries[2]!.reject(second);
      entries[0]!.resolve({ outcome: 'created', dueAt: 0 });
      entries[1]!.reject(first);
    });
    await expect(mixed.schedules.addUnit(SLOT, items(3))).rejects.toBe(first);
  });

  it('sends what waits for a slot at once on flushSlot, so a later call on the slot cannot overtake it', async () => {
    const { schedules, calls } = coalescer(200);
    const scheduled = schedules.add(SLOT, 'order-1', entry(1));
    schedules.flushSlot(SLOT);
    expect(calls).toEqual([['order-1']]);
    await expect(scheduled).resolves.toEqual({ outcome: 'created', dueAt: 1 });
  });
});
