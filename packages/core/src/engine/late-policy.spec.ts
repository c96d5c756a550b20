import { describe, expect, it } from '@jest/globals';
import { stoppedAfterEach } from '../../test/testing-timeouts.js';
import type { DurableTimeoutsEvents, TimeoutLogger } from '../types.js';
import { LATE_ERROR } from '../store/stored-error.js';

const createTestingTimeouts = stoppedAfterEach();

/** A logger that keeps its warnings. */
function keptLogger(): TimeoutLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, log: () => undefined, warn: (message) => warnings.push(message), error: () => undefined };
}

describe('lateness and the late policy', () => {
  it('tells handlers and fired events how late each delivery was claimed, on the store clock', async () => {
    const { timeouts, clock, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 1 } } });
    const handled: [string, number][] = [];
    const fired: [string, number][] = [];
    timeouts.handle('payment', (event) => {
      handled.push([event.id, event.lateByMs]);
    });
    timeouts.on('fired', (event) => fired.push([event.id, event.lateByMs]));
    await timeouts.schedule('payment', 'on-time', { delayMs: 1_000 });
    await timeouts.schedule('payment', 'overdue', { at: clock.now() - 2_500 });
    await advanceBy(1_000);
    expect(handled.sort()).toEqual([
      ['on-time', 0],
      ['overdue', 3_500],
    ]);
    expect(fired.sort()).toEqual(handled);
  });

  it('fires late timeouts with no policy and with the fire action', async () => {
    for (const late of [undefined, { afterMs: 100, action: 'fire' as const }]) {
      const { timeouts, clock, advanceBy } = createTestingTimeouts({ topics: { payment: late ? { late } : {} }, logger: null });
      const handled: string[] = [];
      timeouts.handle('payment', (event) => {
        handled.push(event.id);
      });
      await timeouts.schedule('payment', 'overdue', { at: clock.now() - 60_000 });
      await advanceBy(0);
      expect(handled).toEqual(['overdue']);
    }
  });

  it('dead-letters timeouts claimed past afterMs with reason late, runs no handler for them, and replays them on demand', async () => {
    const logger = keptLogger();
    const { timeouts, clock, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 1, late: { afterMs: 1_000, action: 'dead-letter' } } }, logger });
    const handled: string[] = [];
    const dead: DurableTimeoutsEvents['dead'][] = [];
    timeouts.handle('payment', (event) => {
      handled.push(event.id);
    });
    timeouts.on('dead', (event) => dead.push(event));
    await timeouts.schedule('payment', 'stale-payment', { at: clock.now() - 5_000, payload: { amount: 1 } });
    await timeouts.schedule('payment', 'fresh-payment', { at: clock.now() - 500 });
    await advanceBy(0);
    expect(handled).toEqual(['fresh-payment']);
    expect(dead).toEqual([{ topic: 'payment', id: 'stale-payment', attempts: 0, error: new Error(LATE_ERROR), reason: 'late', lateByMs: 5_000 }]);
    expect(logger.warnings).toEqual([expect.stringMatching(/1 timeout\(s\) of topic "payment" were claimed more than 1000 ms past their due time; moved to the dead letters/)]);
    expect(await timeouts.listDead('payment')).toEqual([expect.objectContaining({ id: 'stale-payment', lastError: LATE_ERROR, payload: { amount: 1 } })]);
    // Replayed, it is due now: not late, so it fires.
    expect(await timeouts.replayDead('payment', ['stale-payment'])).toBe(1);
    await advanceBy(0);
    expect(handled).toEqual(['fresh-payment', 'stale-payment']);
  });

  it('drops timeouts claimed past afterMs with the skip action: a skipped event, no handler, nothing stored', async () => {
    const { timeouts, clock, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 1, late: { afterMs: 0, action: 'skip' } } }, logger: null });
    const handled: string[] = [];
    const skipped: DurableTimeoutsEvents['skipped'][] = [];
    timeouts.handle('payment', (event) => {
      handled.push(event.id);
    });
    timeouts.on('skipped', (event) => skipped.push(event));
    const dueAt = clock.now() - 20_000;
    await timeouts.schedule('payment', 'overdue', { at: dueAt });
    await timeouts.schedule('payment', 'exactly-due', { delayMs: 10 });
    await advanceBy(10);
    expect(handled).toEqual(['exactly-due']);
    expect(skipped).toEqual([{ topic: 'payment', id: 'overdue', attempts: 0, dueAt, lateByMs: 20_010 }]);
    expect(await timeouts.get('payment', 'overdue')).toBeNull();
    expect(await timeouts.stats('payment')).toMatchObject({ pending: 0, dead: 0 });
  });

  it('goes through a backlog larger than a batch when the policy refuses all of it', async () => {
    const { timeouts, clock, advanceBy } = createTestingTimeouts({
      topics: { payment: { slots: 1, batchSize: 10, late: { afterMs: 1_000, action: 'skip' } } },
      logger: null,
    });
    const handled: string[] = [];
    let skipped = 0;
    timeouts.handle('payment', (event) => {
      handled.push(event.id);
    });
    timeouts.on('skipped', () => skipped++);
    const long = clock.now() - 60_000;
    await timeouts.scheduleMany('payment', Array.from({ length: 35 }, (_, i) => ({ id: `old-${i}`, at: long })));
    await timeouts.schedule('payment', 'new', { at: clock.now() });
    await advanceBy(0);
    expect(skipped).toBe(35);
    expect(handled).toEqual(['new']);
  });
});
