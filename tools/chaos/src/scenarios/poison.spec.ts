import { describe, expect, it } from '@jest/globals';
import { backoffCeiling, backoffMargins, deliveriesOf } from './poison.js';

const backoff = { baseMs: 200, capMs: 800 };

describe('backoff bounds', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffCeiling(attempt, backoff))).toEqual([200, 400, 800, 800, 800]);
  });

  it('measures each retry from the failure before it against that attempt window [d/2, d]', () => {
    const log = [
      { kind: 'start', at: 0 },
      { kind: 'fail', at: 10 },
      { kind: 'stored', at: 12 },
      { kind: 'start', at: 150 },
      { kind: 'fail', at: 160 },
      { kind: 'stored', at: 161 },
      { kind: 'start', at: 760 },
      { kind: 'fail', at: 770 },
    ] as const;
    // first retry 140 ms after (window 100..200: +40 above d/2, -60 past d), second 600 ms after (200..400: +400, +200)
    expect(backoffMargins(log, backoff)).toEqual({ early: 40, late: 200, unstored: 0 });
  });

  it('reports a retry that came before half its delay as a negative margin', () => {
    const log = [
      { kind: 'fail', at: 0 },
      { kind: 'stored', at: 1 },
      { kind: 'start', at: 60 },
    ] as const;
    expect(backoffMargins(log, backoff).early).toBe(-40);
  });

  it('leaves out a failure the library never stored (its worker exited): retried at the lease end', () => {
    const log = [
      { kind: 'fail', at: 0 },
      { kind: 'stored', at: 2 },
      { kind: 'start', at: 150 },
      { kind: 'fail', at: 160 },
      { kind: 'start', at: 3_161 },
    ] as const;
    expect(backoffMargins(log, backoff)).toEqual({ early: 50, late: -50, unstored: 1 });
  });

  it('is null when nothing was retried', () => {
    expect(backoffMargins([{ kind: 'start', at: 0 }], backoff)).toEqual({ early: null, late: null, unstored: 0 });
  });
});

describe('deliveries of a dead-lettered id', () => {
  it('counts every start, and an attempt number no start carries (its worker exited before the start was recorded)', () => {
    const log = [
      { kind: 'start', attempt: 1 },
      { kind: 'fail' },
      { kind: 'start', attempt: 2 },
      { kind: 'start', attempt: 4 },
      { kind: 'fail' },
    ] as const;
    expect(deliveriesOf(log, 4)).toEqual({ starts: 3, unstarted: 1 });
  });

  it('counts a start beyond one per attempt as a delivery too, and a lost last attempt', () => {
    const log = [
      { kind: 'start', attempt: 1 },
      { kind: 'start', attempt: 1 },
      { kind: 'start', attempt: 2 },
    ] as const;
    expect(deliveriesOf(log, 3)).toEqual({ starts: 3, unstarted: 1 });
  });
});

describe('backoff margins with a retry lost with an exiting worker', () => {
  it('does not measure a retry whose delivery never started (the next start is a later attempt)', () => {
    const log = [
      { kind: 'start', at: 0, attempt: 1 },
      { kind: 'fail', at: 10 },
      { kind: 'stored', at: 12 },
      { kind: 'start', at: 5_000, attempt: 3 },
      { kind: 'fail', at: 5_010 },
      { kind: 'stored', at: 5_011 },
      { kind: 'start', at: 5_600, attempt: 4 },
    ] as const;
    // attempt 3's retry: 590 ms after (window 400..800); attempt 1's is not measured
    expect(backoffMargins(log, backoff)).toEqual({ early: 190, late: -210, unstored: 1 });
  });
});
