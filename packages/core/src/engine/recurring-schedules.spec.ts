import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { TestingTimeoutsOptions } from '../testing/create-testing-timeouts.js';
import { stoppedAfterEach } from '../../test/testing-timeouts.js';
import { DurableTimeouts } from '../durable-timeouts.js';
import type { ScheduleOccurrence } from '../recurring-types.js';
import { DuplicateHandlerError } from '../errors/duplicate-handler.error.js';
import { InvalidScheduleError } from '../errors/invalid-schedule.error.js';
import { InvalidTimeoutIdError } from '../errors/invalid-timeout-id.error.js';
import { UnknownTopicError } from '../errors/unknown-topic.error.js';
import { aesGcmCodec } from '../support/aes-gcm-codec.js';

const MINUTE = 60_000;
/** A Monday, 00:00:30 UTC: minute-aligned schedules are half a minute away. */
const START = Date.UTC(2026, 0, 5, 0, 0, 30);

const createStoppedAfterEach = stoppedAfterEach();

function createTestingTimeouts(options: Partial<TestingTimeoutsOptions> = {}) {
  return createStoppedAfterEach({ topics: { schedules: { slots: 2 } }, startAt: START, ...options });
}

/** Runs fireDue until nothing more is due (catchUp 'all' writes due occurrences one after another). */
async function fireAllDue(timeouts: DurableTimeouts): Promise<number> {
  let total = 0;
  for (let ran = await timeouts.fireDue(); ran > 0; ran = await timeouts.fireDue()) total += ran;
  return total;
}

describe('timeouts.schedules on the in-memory store', () => {
  it('fires every occurrence once, each with its own occurrence time, and keeps the chain going', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts();
    const seen: ScheduleOccurrence<{ report: string }>[] = [];
    timeouts.schedules.handle<{ report: string }>('every-minute', (occurrence) => {
      seen.push(occurrence);
    });
    const created = await timeouts.schedules.upsert('every-minute', { cron: '* * * * *', payload: { report: 'x' } });
    expect(created).toEqual({ name: 'every-minute', outcome: 'created', nextAt: START + 30_000 });
    for (let i = 0; i < 5; i++) await advanceBy(MINUTE);
    expect(seen.map((o) => o.occurrenceAt)).toEqual([0, 1, 2, 3, 4].map((i) => START + 30_000 + i * MINUTE));
    expect(seen.every((o) => o.name === 'every-minute' && o.missed === 0 && o.attempt === 1 && o.payload?.report === 'x')).toBe(true);
    expect(await timeouts.schedules.list()).toEqual([
      { name: 'every-minute', cron: '* * * * *', catchUp: 'once', payload: { report: 'x' }, state: 'pending', nextAt: START + 30_000 + 5 * MINUTE, paused: false },
    ]);
  });

  it("with a payload codec, each next occurrence is stored encoded like a schedule's payload, and the chain goes on", async () => {
    const codec = aesGcmCodec({ keys: { a: Buffer.alloc(32, 7) }, currentKeyId: 'a' });
    const { timeouts, store, advanceBy } = createTestingTimeouts({ codec });
    const seen: unknown[] = [];
    timeouts.schedules.handle('secret', (occurrence) => void seen.push(occurrence.payload));
    await timeouts.schedules.upsert('secret', { everyMs: MINUTE, payload: { card: '4242' } });
    for (let i = 0; i < 3; i++) await advanceBy(MINUTE);
    expect(seen).toEqual([{ card: '4242' }, { card: '4242' }, { card: '4242' }]);
    const stored = (await Promise.all([0, 1].map((slot) => store.reads.get({ topic: 'schedules', slot }, 'secret')))).find(Boolean);
    expect(stored!.payload).not.toContain('4242');
  });

  it('upsert is idempotent with the same options and recomputes the next occurrence when they change', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts();
    await timeouts.schedules.upsert('tick', { everyMs: 10 * MINUTE });
    await advanceBy(2 * MINUTE);
    expect(await timeouts.schedules.upsert('tick', { everyMs: 10 * MINUTE })).toMatchObject({ outcome: 'unchanged', nextAt: Date.UTC(2026, 0, 5, 0, 10) });
    expect(await timeouts.schedules.upsert('tick', { everyMs: MINUTE })).toMatchObject({ outcome: 'updated', nextAt: Date.UTC(2026, 0, 5, 0, 3) });
    expect(await timeouts.schedules.upsert('tick', { everyMs: MINUTE, payload: 1 })).toMatchObject({ outcome: 'updated' });
  });

  it('two engines on one store: each occurrence runs once, on one of them', async () => {
    const { timeouts, store, clock } = createTestingTimeouts();
    const other = new DurableTimeouts({ topics: { schedules: { slots: 2 } }, store, logger: null });
    createStoppedAfterEach.track(other);
    const runs: string[] = [];
    timeouts.schedules.handle('shared', (o) => void runs.push(`a@${o.occurrenceAt}`));
    other.schedules.handle('shared', (o) => void runs.push(`b@${o.occurrenceAt}`));
    await timeouts.schedules.upsert('shared', { everyMs: MINUTE });
    await other.schedules.upsert('shared', { everyMs: MINUTE });
    for (let i = 0; i < 6; i++) {
      clock.advanceBy(MINUTE);
      await Promise.all([timeouts.fireDue(), other.fireDue()]);
    }
    const times = runs.map((run) => Number(run.slice(2)));
    expect(times).toEqual([1, 2, 3, 4, 5, 6].map((i) => Date.UTC(2026, 0, 5, 0, i)));
  });

  describe('catch-up after every instance was down across several occurrences', () => {
    async function afterGap(catchUp: 'skip' | 'once' | 'all') {
      const { timeouts, clock } = createTestingTimeouts();
      const seen: ScheduleOccurrence[] = [];
      timeouts.schedules.handle('minutely', (o) => void seen.push(o));
      await timeouts.schedules.upsert('minutely', { cron: '* * * * *', catchUp });
      // First occurrence 00:01, then nobody ran until 00:04:10 (00:02, 00:03 and 00:04 passed too).
      clock.set(Date.UTC(2026, 0, 5, 0, 4, 10));
      await fireAllDue(timeouts);
      const next = (await timeouts.schedules.list())[0]!.nextAt;
      return { seen: seen.map((o) => ({ at: new Date(o.occurrenceAt).toISOString().slice(11, 19), missed: o.missed })), next: new Date(next).toISOString().slice(11, 19) };
    }

    it("'all' fires each missed occurrence, in order", async () => {
      expect(await afterGap('all')).toEqual({
        seen: ['00:01:00', '00:02:00', '00:03:00', '00:04:00'].map((at) => ({ at, missed: 0 })),
        next: '00:05:00',
      });
    });

    it("'once' fires one occurrence for all of them, telling how many it stands for", async () => {
      expect(await afterGap('once')).toEqual({ seen: [{ at: '00:01:00', missed: 3 }], next: '00:05:00' });
    });

    it("'skip' fires none of them and waits for the next future one", async () => {
      expect(await afterGap('skip')).toEqual({ seen: [], next: '00:05:00' });
    });
  });

  it('a failing occurrence is retried like a timeout, with the same occurrence time, and the chain goes on after it', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts({ topics: { schedules: { backoff: { baseMs: 1_000, capMs: 1_000 } } } });
    const attempts: [number, number][] = [];
    timeouts.schedules.handle('flaky', (o) => {
      attempts.push([o.occurrenceAt, o.attempt]);
      if (o.attempt === 1) throw new Error('first attempt fails');
    });
    await timeouts.schedules.upsert('flaky', { everyMs: MINUTE });
    await advanceBy(30_000);
    await advanceBy(1_000);
    await advanceBy(MINUTE);
    await advanceBy(1_000);
    const first = Date.UTC(2026, 0, 5, 0, 1);
    expect(attempts).toEqual([[first, 1], [first, 2], [first + MINUTE, 1], [first + MINUTE, 2]]);
  });

  it('remove stops the chain, also while an occurrence runs (it writes no next one)', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts();
    let runs = 0;
    timeouts.schedules.handle('stoppable', async () => {
      runs++;
      if (runs === 1) expect(await timeouts.schedules.remove('stoppable')).toBe(true);
    });
    await timeouts.schedules.upsert('stoppable', { everyMs: MINUTE });
    await advanceBy(MINUTE);
    expect(runs).toBe(1);
    expect(await timeouts.schedules.list()).toEqual([]);
    await advanceBy(5 * MINUTE);
    expect(runs).toBe(1);
    expect(await timeouts.schedules.remove('stoppable')).toBe(false);
    await timeouts.schedules.upsert('pending-one', { everyMs: MINUTE });
    expect(await timeouts.schedules.remove('pending-one')).toBe(true);
    expect(await timeouts.get('schedules', 'pending-one')).toBeNull();
  });

  it('list shows an occurrence that runs now as firing, with its occurrence time', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts();
    let listed: unknown;
    timeouts.schedules.handle('b-listed', async () => {
      listed = await timeouts.schedules.list();
    });
    await timeouts.schedules.upsert('b-listed', { everyMs: MINUTE });
    await timeouts.schedules.upsert('a-other', { cron: '0 2 * * *', timeZone: 'Europe/Berlin', catchUp: 'skip', payload: [1] });
    await advanceBy(MINUTE);
    expect(listed).toEqual([
      { name: 'a-other', cron: '0 2 * * *', timeZone: 'Europe/Berlin', catchUp: 'skip', payload: [1], state: 'pending', nextAt: Date.UTC(2026, 0, 5, 1), paused: false },
      { name: 'b-listed', everyMs: MINUTE, catchUp: 'once', payload: undefined, state: 'firing', nextAt: Date.UTC(2026, 0, 5, 0, 1), paused: false },
    ]);
  });

  describe('pause and resume', () => {
    it('a paused schedule runs no handler, its chain goes on (listed as paused), and resume fires the first occurrence after now, not the skipped ones', async () => {
      const { timeouts, advanceBy } = createTestingTimeouts();
      const seen: number[] = [];
      timeouts.schedules.handle('minutely', (o) => void seen.push(o.occurrenceAt));
      await timeouts.schedules.upsert('minutely', { everyMs: MINUTE, catchUp: 'all' });
      await advanceBy(MINUTE);
      expect(seen).toEqual([Date.UTC(2026, 0, 5, 0, 1)]);
      expect(await timeouts.schedules.pause('minutely')).toBe(true);
      expect(await timeouts.schedules.pause('minutely')).toBe(true);
      for (let i = 0; i < 3; i++) await advanceBy(MINUTE);
      expect(seen).toHaveLength(1);
      // Each paused occurrence was claimed and skipped: the chain waits for the next one, still paused.
      expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ name: 'minutely', state: 'pending', nextAt: Date.UTC(2026, 0, 5, 0, 5), paused: true })]);
      await advanceBy(15_000);
      expect(await timeouts.schedules.resume('minutely')).toBe(true);
      expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ nextAt: Date.UTC(2026, 0, 5, 0, 5), paused: false })]);
      expect(await timeouts.schedules.resume('minutely')).toBe(true);
      await fireAllDue(timeouts);
      expect(seen).toHaveLength(1);
      await advanceBy(15_000);
      await advanceBy(MINUTE);
      expect(seen).toEqual([0, 4, 5].map((i) => Date.UTC(2026, 0, 5, 0, 1 + i)));
    });

    it('resume after a long pause skips every passed occurrence, whatever the catchUp', async () => {
      const { timeouts, clock } = createTestingTimeouts();
      const seen: ScheduleOccurrence[] = [];
      timeouts.schedules.handle('gap', (o) => void seen.push(o));
      await timeouts.schedules.upsert('gap', { cron: '* * * * *', catchUp: 'all' });
      await timeouts.schedules.pause('gap');
      // Nobody ran while four occurrences passed.
      clock.set(Date.UTC(2026, 0, 5, 0, 4, 10));
      expect(await timeouts.schedules.resume('gap')).toBe(true);
      expect(await fireAllDue(timeouts)).toBe(0);
      clock.set(Date.UTC(2026, 0, 5, 0, 5));
      await fireAllDue(timeouts);
      expect(seen.map((o) => [o.occurrenceAt, o.missed])).toEqual([[Date.UTC(2026, 0, 5, 0, 5), 0]]);
    });

    it('pausing while an occurrence runs: it runs to its end, its ack writes no next (un-paused) occurrence, the pause stands', async () => {
      const { timeouts, advanceBy } = createTestingTimeouts();
      let runs = 0;
      timeouts.schedules.handle('busy', async () => {
        runs++;
        if (runs === 1) expect(await timeouts.schedules.pause('busy')).toBe(true);
      });
      await timeouts.schedules.upsert('busy', { everyMs: MINUTE });
      await advanceBy(MINUTE);
      expect(runs).toBe(1);
      // The running delivery's ack was refused as stale: the paused entry of that occurrence stands.
      const [listed] = await timeouts.schedules.list();
      expect(listed).toMatchObject({ name: 'busy', paused: true });
      for (let i = 0; i < 4; i++) await advanceBy(MINUTE);
      expect(runs).toBe(1);
      expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ state: 'pending', paused: true, nextAt: Date.UTC(2026, 0, 5, 0, 6) })]);
    });

    it('upsert keeps a schedule paused, with the same options (unchanged) and with others (updated)', async () => {
      const { timeouts, advanceBy } = createTestingTimeouts();
      let runs = 0;
      timeouts.schedules.handle('kept', () => void runs++);
      await timeouts.schedules.upsert('kept', { everyMs: MINUTE });
      await timeouts.schedules.pause('kept');
      expect(await timeouts.schedules.upsert('kept', { everyMs: MINUTE })).toMatchObject({ outcome: 'unchanged' });
      expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ paused: true })]);
      expect(await timeouts.schedules.upsert('kept', { everyMs: 2 * MINUTE, payload: 1 })).toMatchObject({ outcome: 'updated', nextAt: Date.UTC(2026, 0, 5, 0, 2) });
      expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ everyMs: 2 * MINUTE, payload: 1, paused: true })]);
      for (let i = 0; i < 5; i++) await advanceBy(MINUTE);
      expect(runs).toBe(0);
      expect(await timeouts.schedules.resume('kept')).toBe(true);
      await advanceBy(2 * MINUTE);
      expect(runs).toBe(1);
    });

    it('an occurrence stored without the paused field (before pausing existed) reads as not paused and keeps running', async () => {
      const { timeouts, advanceBy } = createTestingTimeouts();
      let runs = 0;
      timeouts.schedules.handle('old', () => void runs++);
      const schedule = { everyMs: MINUTE, catchUp: 'once' };
      await timeouts.schedule('schedules', 'old', { at: Date.UTC(2026, 0, 5, 0, 1), payload: { schedule, at: Date.UTC(2026, 0, 5, 0, 1) } });
      expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ name: 'old', paused: false })]);
      expect(await timeouts.schedules.upsert('old', { everyMs: MINUTE })).toMatchObject({ outcome: 'unchanged' });
      await advanceBy(MINUTE);
      expect(runs).toBe(1);
      expect(await timeouts.schedules.pause('old')).toBe(true);
      await advanceBy(MINUTE);
      expect(runs).toBe(1);
    });

    it('pause and resume of an unknown schedule are false; a bad name is a typed error; they need the schedules topic', async () => {
      const { timeouts } = createTestingTimeouts();
      expect(await timeouts.schedules.pause('nope')).toBe(false);
      expect(await timeouts.schedules.resume('nope')).toBe(false);
      await expect(timeouts.schedules.pause('')).rejects.toThrow(InvalidTimeoutIdError);
      await expect(timeouts.schedules.resume('a'.repeat(10_000))).rejects.toThrow(InvalidTimeoutIdError);
      const without = createTestingTimeouts({ topics: { payment: {} } }).timeouts;
      await expect(without.schedules.pause('x')).rejects.toThrow(UnknownTopicError);
      await expect(without.schedules.resume('x')).rejects.toThrow(UnknownTopicError);
    });
  });

  it('over any sequence of clock jumps: all fires every occurrence once in order; once and skip never repeat one and always wait for a future one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'skip' | 'once' | 'all'>('skip', 'once', 'all'),
        fc.integer({ min: 1, max: 30 }).map((seconds) => seconds * 1_000),
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 12 }),
        async (catchUp, everyMs, jumps) => {
          const { timeouts, clock } = createTestingTimeouts();
          const fired: number[] = [];
          timeouts.schedules.handle('p', (occurrence) => void fired.push(occurrence.occurrenceAt));
          const { nextAt: first } = await timeouts.schedules.upsert('p', { everyMs, catchUp });
          let crossings = 0;
          for (const jump of jumps) {
            const before = fired.length;
            const pendingAt = (await timeouts.schedules.list())[0]!.nextAt;
            clock.advanceBy(jump);
            await fireAllDue(timeouts);
            const now = clock.now();
            const [schedule] = await timeouts.schedules.list();
            // The chain is never lost, and what it waits for is in the future.
            expect(schedule).toMatchObject({ name: 'p', state: 'pending' });
            expect(schedule!.nextAt).toBeGreaterThan(now);
            if (pendingAt <= now) {
              crossings++;
              // A jump past a due occurrence fires it, unless skip found it missed.
              if (catchUp !== 'skip') expect(fired.length).toBeGreaterThan(before);
            }
          }
          const now = clock.now();
          expect([...fired].sort((a, b) => a - b)).toEqual(fired);
          expect(new Set(fired).size).toBe(fired.length);
          expect(fired.every((at) => at % everyMs === 0 && at >= first && at <= now)).toBe(true);
          const all = first <= now ? Math.floor((now - first) / everyMs) + 1 : 0;
          if (catchUp === 'all') expect(fired.length).toBe(all);
          if (catchUp === 'once') expect(fired.length).toBe(crossings);
          await timeouts.stop({ drainMs: 0 });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses bad input with typed errors, and needs the schedules topic', async () => {
    const { timeouts } = createTestingTimeouts();
    await expect(timeouts.schedules.upsert('bad', { cron: 'every day' })).rejects.toThrow(InvalidScheduleError);
    await expect(timeouts.schedules.upsert('bad', { everyMs: 10 })).rejects.toThrow(/"everyMs" must be a whole number of ms from 1000/);
    expect(await timeouts.schedules.list()).toEqual([]);
    timeouts.schedules.handle('one', () => undefined);
    expect(() => timeouts.schedules.handle('one', () => undefined)).toThrow(DuplicateHandlerError);
    const without = createTestingTimeouts({ topics: { payment: {} } }).timeouts;
    await expect(without.schedules.upsert('x', { everyMs: MINUTE })).rejects.toThrow(UnknownTopicError);
    expect(() => without.schedules.handle('x', () => undefined)).toThrow(/topics: \{ schedules: \{\} \}/);
  });
});
