import { describe, expect, it } from '@jest/globals';
import { stoppedAfterEach } from '../../test/testing-timeouts.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { UnknownTopicError } from '../errors/unknown-topic.error.js';

const createTestingTimeouts = stoppedAfterEach();

describe('pause and resume of a topic', () => {
  it('fires nothing of a paused topic, keeps accepting schedules and cancels, then fires what fell due on resume', async () => {
    const { timeouts, clock, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 4 }, ride: { slots: 2 } } });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    timeouts.handle('ride', (event) => {
      fired.push(event.id);
    });
    await timeouts.schedule('payment', 'before', { delayMs: 1_000 });
    const paused = await timeouts.pause('payment');
    expect(paused).toEqual({ topic: 'payment', paused: true, pausedAt: clock.now() });
    expect(await timeouts.paused('payment')).toBe(true);
    expect(await timeouts.paused('ride')).toBe(false);
    await timeouts.schedule('payment', 'during', { delayMs: 500 });
    await timeouts.schedule('payment', 'cancelled', { delayMs: 500 });
    expect(await timeouts.cancel('payment', 'cancelled')).toBe('cancelled');
    await timeouts.schedule('ride', 'other-topic', { delayMs: 500 });
    expect(await advanceBy(5_000)).toBe(1);
    expect(fired).toEqual(['other-topic']);
    expect(await timeouts.stats('payment')).toMatchObject({ pending: 2, firing: 0 });
    expect((await timeouts.health()).pausedTopics).toEqual(['payment']);

    expect(await timeouts.resume('payment')).toEqual({ topic: 'payment', resumed: true, pausedMs: 5_000, shifted: 0 });
    expect(await timeouts.paused('payment')).toBe(false);
    expect(await advanceBy(0)).toBe(2);
    expect(fired.sort()).toEqual(['before', 'during', 'other-topic']);
    expect((await timeouts.health()).pausedTopics).toEqual([]);
    expect(await timeouts.resume('payment')).toEqual({ topic: 'payment', resumed: false, pausedMs: 0, shifted: 0 });
  });

  it('moves every pending due time later by the pause with shift: true', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 2 } } });
    const fired: [string, number][] = [];
    timeouts.handle('payment', (event) => {
      fired.push([event.id, event.dueAt]);
    });
    const soon = await timeouts.schedule('payment', 'soon', { delayMs: 1_000 });
    const later = await timeouts.schedule('payment', 'later', { delayMs: 60_000 });
    await timeouts.pause('payment');
    await advanceBy(10_000);
    expect(await timeouts.resume('payment', { shift: true })).toEqual({ topic: 'payment', resumed: true, pausedMs: 10_000, shifted: 2 });
    expect(await timeouts.get('payment', 'soon')).toMatchObject({ dueAt: soon.dueAt + 10_000, scheduledAt: soon.dueAt - 1_000 });
    expect(await advanceBy(0)).toBe(0);
    expect(await advanceBy(1_000)).toBe(1);
    expect(await advanceBy(59_000)).toBe(1);
    expect(fired).toEqual([
      ['soon', soon.dueAt + 10_000],
      ['later', later.dueAt + 10_000],
    ]);
  });

  it('keeps the first pause time when paused twice, and reports it', async () => {
    const { timeouts, clock } = createTestingTimeouts({ topics: { payment: {} } });
    const first = await timeouts.pause('payment');
    clock.advanceBy(3_000);
    expect(await timeouts.pause('payment')).toEqual(first);
    expect(await timeouts.pauseState('payment')).toEqual(first);
    expect((await timeouts.resume('payment')).pausedMs).toBe(3_000);
  });

  it('refuses an unknown topic and bad resume options', async () => {
    const { timeouts } = createTestingTimeouts<{ payment: null }>({ topics: { payment: {} } });
    await expect(timeouts.pause('nope' as 'payment')).rejects.toThrow(UnknownTopicError);
    await expect(timeouts.resume('payment', { shift: 'yes' as unknown as boolean })).rejects.toThrow(InvalidOptionsError);
    await expect(timeouts.resume('payment', { shift: 'yes' as unknown as boolean })).rejects.toThrow(/resume options = .*: use \{ shift\?: boolean \}/);
  });
});

describe('rate limit of a topic', () => {
  it('starts at most the burst, then perSecond, over the whole topic (split over its slots), in due order per slot', async () => {
    const { timeouts, clock, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 2, rateLimit: { perSecond: 4, burst: 2 } } } });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    await timeouts.scheduleMany(
      'payment',
      Array.from({ length: 12 }, (_, i) => ({ id: `p-${i}`, at: clock.now() - 100 })),
    );
    // A burst of 2 over 2 slots: one each.
    expect(await advanceBy(0)).toBe(2);
    // 4 a second over 2 slots: 2 a second each; half a second later one more in each.
    expect(await advanceBy(500)).toBe(2);
    expect(await advanceBy(1_000)).toBe(2);
    expect(await advanceBy(100_000)).toBe(2);
    expect(fired).toHaveLength(8);
    expect(await timeouts.stats('payment')).toMatchObject({ pending: 4 });
  });

  it('refuses a bad rateLimit option, naming the field', () => {
    expect(() => createTestingTimeouts({ topics: { payment: { rateLimit: { perSecond: 0 } } } })).toThrow(/topics\.payment\.rateLimit\.perSecond = 0: use a number from 0\.001/);
    expect(() => createTestingTimeouts({ topics: { payment: { rateLimit: { perSecond: 5, burst: 0.5 } } } })).toThrow(/topics\.payment\.rateLimit\.burst = 0\.5/);
    expect(() => createTestingTimeouts({ topics: { payment: { rateLimit: { perSecond: 5, bust: 2 } as never } } })).toThrow(/Unknown option topics\.payment\.rateLimit\.bust/);
    expect(() => createTestingTimeouts({ topics: { payment: { rateLimit: 5 as never } } })).toThrow(InvalidOptionsError);
    expect(createTestingTimeouts({ topics: { payment: { rateLimit: { perSecond: 2.5 } } } }).timeouts.settings.topics['payment']!.rateLimit).toEqual({ perSecond: 2.5, burst: 3 });
  });
});
