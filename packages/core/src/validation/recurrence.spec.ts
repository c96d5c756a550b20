import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidScheduleError } from '../errors/invalid-schedule.error.js';
import { MAX_COUNTED_MISSED, nextOccurrence, planOccurrence, resolveRecurrence, type CatchUpPolicy, type Recurrence } from './recurrence.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const from2026 = Date.UTC(2026, 0, 1);
const time = fc.integer({ min: from2026, max: from2026 + 2 * 365 * DAY });
const policy = fc.constantFrom<CatchUpPolicy>('skip', 'once', 'all');

/** Every occurrence in (after, until], walked one by one: the reference the plan is held to. */
function occurrencesBetween(recurrence: Recurrence, after: number, until: number): number[] {
  const found: number[] = [];
  for (let at = nextOccurrence(recurrence, after); at <= until; at = nextOccurrence(recurrence, at)) found.push(at);
  return found;
}

describe('resolveRecurrence', () => {
  it('accepts a cron expression (with a time zone) or an interval, catchUp defaulting to once', () => {
    expect(resolveRecurrence('n', { cron: '0 2 * * *', timeZone: 'Europe/Berlin' })).toEqual({ cron: '0 2 * * *', timeZone: 'Europe/Berlin', catchUp: 'once' });
    expect(resolveRecurrence('n', { everyMs: 1_000, catchUp: 'all' })).toEqual({ everyMs: 1_000, catchUp: 'all' });
    expect(resolveRecurrence('n', { cron: '*/5 * * * * *', catchUp: 'skip' })).toEqual({ cron: '*/5 * * * * *', catchUp: 'skip' });
  });

  it.each([
    [{}, /give "cron".*or "everyMs"/],
    [{ cron: '* * * * *', everyMs: 1_000 }, /not both/],
    [{ cron: '61 * * * *' }, /'61 \* \* \* \*' is not a valid cron expression/],
    [{ cron: '' }, /"cron" must be a cron expression/],
    [{ cron: 5 }, /"cron" must be a cron expression/],
    [{ cron: '0 0 30 2 *' }, /never fires/],
    [{ cron: '0 2 * * *', timeZone: 'Mars/Olympus' }, /IANA time zone.*Mars\/Olympus/],
    [{ everyMs: 999 }, /"everyMs" must be a whole number of ms from 1000/],
    [{ everyMs: 1_500.5 }, /"everyMs" must be a whole number/],
    [{ everyMs: '1000' }, /"everyMs" must be a whole number/],
    [{ everyMs: 60_000, timeZone: 'UTC' }, /"timeZone" applies to "cron" only/],
    [{ everyMs: 60_000, catchUp: 'some' }, /"catchUp" must be one of 'skip', 'once', 'all'/],
  ])('refuses %j with InvalidScheduleError naming the schedule and the problem', (options, problem) => {
    const thrown = (() => {
      try {
        resolveRecurrence('nightly', options);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(InvalidScheduleError);
    expect((thrown as InvalidScheduleError).schedule).toBe('nightly');
    expect((thrown as InvalidScheduleError).message).toMatch(/^Recurring schedule "nightly": /);
    expect((thrown as InvalidScheduleError).problem).toMatch(problem);
  });
});

describe('nextOccurrence', () => {
  it('an interval: the next whole multiple of everyMs strictly after the time', () => {
    fc.assert(
      fc.property(time, fc.integer({ min: 1_000, max: 7 * DAY }), (after, everyMs) => {
        const next = nextOccurrence({ everyMs, catchUp: 'once' }, after);
        expect(next % everyMs).toBe(0);
        expect(next).toBeGreaterThan(after);
        expect(next - everyMs).toBeLessThanOrEqual(after);
      }),
    );
  });

  it('a cron expression: strictly after the time, on a whole second, and no occurrence is jumped over', () => {
    const hourly: Recurrence = { cron: '15 * * * *', timeZone: 'Europe/Berlin', catchUp: 'once' };
    fc.assert(
      fc.property(time, (after) => {
        const next = nextOccurrence(hourly, after);
        expect(next).toBeGreaterThan(after);
        expect(next % 1_000).toBe(0);
        expect(new Date(next).getUTCMinutes()).toBe(15);
        // Any time between the two finds the same next occurrence.
        expect(nextOccurrence(hourly, Math.floor((after + next) / 2))).toBe(next === Math.floor((after + next) / 2) ? nextOccurrence(hourly, next) : next);
        expect(next - after).toBeLessThanOrEqual(HOUR);
      }),
    );
  });

  it('02:00 in Europe/Berlin: 01:00 UTC in winter, 00:00 UTC in summer; the spring-forward day fires at 03:00 CEST', () => {
    const nightly: Recurrence = { cron: '0 2 * * *', timeZone: 'Europe/Berlin', catchUp: 'once' };
    expect(new Date(nextOccurrence(nightly, Date.UTC(2026, 2, 27, 12))).toISOString()).toBe('2026-03-28T01:00:00.000Z');
    // 2026-03-29: clocks jump from 02:00 to 03:00; 02:00 does not exist that day.
    expect(new Date(nextOccurrence(nightly, Date.UTC(2026, 2, 28, 12))).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(new Date(nextOccurrence(nightly, Date.UTC(2026, 2, 29, 12))).toISOString()).toBe('2026-03-30T00:00:00.000Z');
  });

  it('02:30 in Europe/Berlin on the fall-back day (02:30 happens twice) fires once', () => {
    const nightly: Recurrence = { cron: '30 2 * * *', timeZone: 'Europe/Berlin', catchUp: 'once' };
    const fired = occurrencesBetween(nightly, Date.UTC(2026, 9, 24, 12), Date.UTC(2026, 9, 26, 12)).map((at) => new Date(at).toISOString());
    expect(fired).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('an hourly cron in Europe/Berlin fires every real hour across both DST changes: 23 and 25 occurrences on those days', () => {
    const hourly: Recurrence = { cron: '0 * * * *', timeZone: 'Europe/Berlin', catchUp: 'once' };
    // Local days: 2026-03-29 00:00 CET = 03-28T23:00Z to 03-29T22:00Z (23 h); 2026-10-25 00:00 CEST = 10-24T22:00Z to 10-25T23:00Z (25 h).
    expect(occurrencesBetween(hourly, Date.UTC(2026, 2, 28, 23) - 1, Date.UTC(2026, 2, 29, 22) - 1)).toHaveLength(23);
    expect(occurrencesBetween(hourly, Date.UTC(2026, 9, 24, 22) - 1, Date.UTC(2026, 9, 25, 23) - 1)).toHaveLength(25);
  });
});

describe('planOccurrence', () => {
  const recurrences = fc.oneof(
    fc.record({ everyMs: fc.integer({ min: 1_000, max: DAY }) }),
    fc.record({ cron: fc.constantFrom('*/7 * * * *', '0 2 * * *', '30 */3 * * 1-5', '10 */20 * * * *'), timeZone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York') }),
  );

  it('matches the reference: an occurrence on time runs and names its successor; a missed one follows catchUp', () => {
    fc.assert(
      fc.property(recurrences, policy, time, fc.oneof(fc.integer({ min: 0, max: 2 * HOUR }), fc.integer({ min: 0, max: DAY })), (timing, catchUp, from, lateBy) => {
        const recurrence: Recurrence = { ...timing, catchUp };
        const at = nextOccurrence(recurrence, from);
        const now = at + lateBy;
        const plan = planOccurrence(recurrence, at, now);
        const passed = occurrencesBetween(recurrence, at, now);
        if (passed.length === 0 || catchUp === 'all') {
          expect(plan).toEqual({ run: true, missed: 0, nextAt: nextOccurrence(recurrence, at) });
        } else {
          expect(plan).toEqual({ run: catchUp === 'once', missed: Math.min(passed.length, MAX_COUNTED_MISSED), nextAt: nextOccurrence(recurrence, now) });
          expect(plan.nextAt).toBeGreaterThan(now);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a chain from any start fires every occurrence once under all, in order, however late it runs; once and skip end in the future', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000, max: HOUR }), policy, time, fc.integer({ min: 0, max: 50 }), (everyMs, catchUp, start, gapCount) => {
        const recurrence: Recurrence = { everyMs, catchUp };
        const first = nextOccurrence(recurrence, start);
        const now = first + gapCount * everyMs + Math.floor(everyMs / 2);
        const ran: number[] = [];
        let at = first;
        for (let steps = 0; at <= now && steps < 100; steps++) {
          const plan = planOccurrence(recurrence, at, now);
          if (plan.run) ran.push(at);
          at = plan.nextAt;
        }
        const due = occurrencesBetween(recurrence, first - 1, now);
        if (catchUp === 'all') expect(ran).toEqual(due);
        else expect(ran).toEqual(catchUp === 'once' || due.length === 1 ? [first] : []);
        expect(at).toBe(nextOccurrence(recurrence, now));
      }),
    );
  });
});
