import { describe, expect, it } from '@jest/globals';
import { backoffCeiling, worstBackoffOvershoot } from './poison.js';

const backoff = { baseMs: 200, capMs: 800 };

describe('backoff bounds', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffCeiling(attempt, backoff))).toEqual([200, 400, 800, 800, 800]);
  });

  it('measures each retry from the failure before it against that attempt ceiling', () => {
    const log = [
      { kind: 'start', at: 0 },
      { kind: 'fail', at: 10 },
      { kind: 'start', at: 150 },
      { kind: 'fail', at: 160 },
      { kind: 'start', at: 760 },
      { kind: 'fail', at: 770 },
    ] as const;
    // first retry 140 ms after (ceiling 200 -> -60), second 600 ms after (ceiling 400 -> +200)
    expect(worstBackoffOvershoot(log, backoff)).toBe(200);
  });

  it('is -Infinity when nothing was retried', () => {
    expect(worstBackoffOvershoot([{ kind: 'start', at: 0 }], backoff)).toBe(Number.NEGATIVE_INFINITY);
  });
});
