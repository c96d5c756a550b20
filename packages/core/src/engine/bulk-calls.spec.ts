import { afterEach, describe, expect, it } from '@jest/globals';
import { DurableTimeouts } from '../durable-timeouts.js';
import { ManualClock } from '../testing/manual-clock.js';
import { MemoryTimeoutStore } from '../testing/memory-timeout-store.js';
import { RedisUnavailableError } from '../store/redis-unavailable.error.js';
import { slotOf } from '../store/slot-of.js';
import type { SlotRef, StoreScheduleItem, StoreScheduleOutcome } from '../store/timeout-store.js';

/** A memory store whose bulk calls on one slot fail as a Redis outage would. */
class OneSlotDownStore extends MemoryTimeoutStore {
  constructor(downSlot: number) {
    super(new ManualClock());
    const scheduleMany = this.writes.scheduleMany.bind(this.writes);
    this.writes.scheduleMany = (slot: SlotRef, items: readonly StoreScheduleItem[]): Promise<(StoreScheduleOutcome | Error)[]> => {
      if (slot.slot === downSlot) return Promise.reject(new RedisUnavailableError('scheduleMany did not complete within 1000 ms', 'scheduleMany'));
      return scheduleMany(slot, items);
    };
  }
}

const opened: DurableTimeouts[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((timeouts) => timeouts.stop({ drainMs: 0 })));
});

describe('scheduleMany when the call of one slot fails', () => {
  it('reports the error on the items of that slot only; the other slots are stored', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `order-${i}`);
    const downSlot = slotOf(ids[0]!, 8);
    const timeouts = new DurableTimeouts({ store: new OneSlotDownStore(downSlot), logger: null, topics: { payment: { slots: 8 } } });
    opened.push(timeouts);
    const results = await timeouts.scheduleMany('payment', ids.map((id) => ({ id, delayMs: 1_000 })));
    for (const [i, result] of results.entries()) {
      if (slotOf(ids[i]!, 8) === downSlot) expect(result).toMatchObject({ ok: false, id: ids[i], error: { name: 'RedisUnavailableError' } });
      else expect(result).toMatchObject({ ok: true, id: ids[i], outcome: 'created' });
    }
    const down = ids.filter((id) => slotOf(id, 8) === downSlot);
    expect(down.length).toBeGreaterThan(0);
    expect((await timeouts.stats('payment')).pending).toBe(ids.length - down.length);
  });
});
