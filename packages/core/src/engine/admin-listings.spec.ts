import { afterEach, describe, expect, it } from '@jest/globals';
import { createTestingTimeouts, type TestingTimeouts } from '../testing/create-testing-timeouts.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { UnknownTopicError } from '../errors/unknown-topic.error.js';
import { slotOf } from '../store/slot-of.js';

const START = 1_800_000_000_000;
let testing: TestingTimeouts<'payment' | 'ride'>;

afterEach(async () => {
  await testing.timeouts.stop({ drainMs: 0 });
});

function open(): TestingTimeouts<'payment' | 'ride'> {
  testing = createTestingTimeouts({ topics: { payment: { slots: 8, maxAttempts: 1 }, ride: { slots: 1 } }, startAt: START });
  return testing;
}

describe('the listings an operator reads (topics, slotStats, listPending)', () => {
  it('names the configured topics in the order given', () => {
    expect(open().timeouts.topics).toEqual(['payment', 'ride']);
  });

  it('merges the slots of a topic into one list, earliest due first, and pages through it', async () => {
    const { timeouts } = open();
    const ids = Array.from({ length: 40 }, (_, n) => `order-${n}`);
    // Due times in reverse id order, with a tie, spread over the topic's 8 slots.
    for (const [n, id] of ids.entries()) await timeouts.schedule('payment', id, { at: START + 1_000 * (40 - n), payload: { n } });
    await timeouts.schedule('payment', 'order-tie', { at: START + 1_000, payload: null });
    expect(new Set(ids.map((id) => slotOf(id, 8))).size).toBeGreaterThan(1);

    const first = await timeouts.listPending('payment', { limit: 3 });
    expect(first.map((info) => info.id)).toEqual(['order-39', 'order-tie', 'order-38']);
    expect(first[0]).toMatchObject({ topic: 'payment', state: 'pending', dueAt: START + 1_000, attempt: 0, payload: { n: 39 } });
    const second = await timeouts.listPending('payment', { offset: 3, limit: 3 });
    expect(second.map((info) => info.id)).toEqual(['order-37', 'order-36', 'order-35']);
    expect((await timeouts.listPending('payment')).map((info) => info.id)).toHaveLength(41);
    expect(await timeouts.listPending('payment', { offset: 41 })).toEqual([]);
    expect(await timeouts.listPending('ride')).toEqual([]);
  });

  it('leaves out timeouts that fire or die, and shows retries with their last error', async () => {
    const { timeouts, advanceBy } = open();
    timeouts.handle('payment', (event) => {
      if (event.id === 'poison') throw new Error('card service down');
    });
    await timeouts.schedule('payment', 'poison', { at: START + 10 });
    await timeouts.schedule('payment', 'fine', { at: START + 10 });
    await timeouts.schedule('payment', 'later', { at: START + 60_000 });
    await advanceBy(10);
    expect((await timeouts.listPending('payment')).map((info) => info.id)).toEqual(['later']);
    expect((await timeouts.listDead('payment')).map((letter) => letter.id)).toEqual(['poison']);
  });

  it('counts every slot of a topic, with the age of its oldest overdue timeout', async () => {
    const { timeouts, clock } = open();
    await timeouts.schedule('payment', 'a', { at: START + 100 });
    await timeouts.schedule('payment', 'b', { at: START + 200 });
    await timeouts.schedule('payment', 'c', { at: START + 50_000 });
    clock.advanceBy(1_000);
    const slots = await timeouts.slotStats('payment');
    expect(slots).toHaveLength(8);
    expect(slots.map((slot) => slot.slot)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(slots.reduce((total, slot) => total + slot.pending, 0)).toBe(3);
    expect(slots[slotOf('a', 8)]!.oldestOverdueMs).toBe(900);
    expect(slots[slotOf('c', 8)]!.pending).toBeGreaterThanOrEqual(1);
    const totals = await timeouts.stats('payment');
    expect(Math.max(...slots.map((slot) => slot.oldestOverdueMs))).toBe(totals.oldestOverdueMs);
  });

  it('counts a slot as paused only when its store reports a pause time (a store written before pausedAt existed reads as not paused)', async () => {
    const { timeouts, store } = open();
    const stats = store.reads.stats.bind(store.reads);
    // A store that predates the field leaves it out.
    store.reads.stats = async (ref) => {
      const { pausedAt: _left, ...rest } = await stats(ref);
      return rest as Awaited<ReturnType<typeof stats>>;
    };
    expect((await timeouts.stats('payment')).paused).toBe(false);
    expect((await timeouts.slotStats('payment')).some((slot) => slot.paused)).toBe(false);
  });

  it('rejects unknown topics and pages out of range with typed errors', async () => {
    const { timeouts } = open();
    await expect(timeouts.listPending('parcel' as 'payment')).rejects.toBeInstanceOf(UnknownTopicError);
    await expect(timeouts.slotStats('parcel' as 'payment')).rejects.toBeInstanceOf(UnknownTopicError);
    await expect(timeouts.listPending('payment', { limit: 0 })).rejects.toThrow(/listPending limit/);
    await expect(timeouts.listPending('payment', { offset: 9_500, limit: 1_000 })).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});
