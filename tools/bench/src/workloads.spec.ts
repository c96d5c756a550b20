import { describe, expect, it } from '@jest/globals';
import { dueAt, lastDueAt, PAYLOAD_JSON_BYTES, planOf, standardWorkloads, timeoutId } from './workloads.js';

describe('standardWorkloads', () => {
  it('runs 2,000/s and 10,000/s over 10 s and a 50,000 burst in full mode', () => {
    expect(standardWorkloads(false)).toEqual([
      { name: 'steady 2k/s', kind: 'steady', count: 20_000, windowMs: 10_000 },
      { name: 'steady 10k/s', kind: 'steady', count: 100_000, windowMs: 10_000 },
      { name: 'burst 50k', kind: 'burst', count: 50_000, windowMs: 0 },
    ]);
  });

  it('keeps the rates but shortens everything in quick mode', () => {
    const quick = standardWorkloads(true);
    expect(quick.map((w) => (w.count * 1000) / (w.windowMs || 1000))).toEqual([2_000, 10_000, 10_000]);
    expect(quick.every((w) => w.windowMs <= 2_000)).toBe(true);
  });
});

describe('dueAt', () => {
  it('spreads a steady plan evenly over its window', () => {
    const plan = planOf({ name: 's', kind: 'steady', count: 4, windowMs: 1_000 }, 10_000);
    expect([0, 1, 2, 3].map((i) => dueAt(plan, i))).toEqual([10_000, 10_250, 10_500, 10_750]);
    expect(lastDueAt(plan)).toBe(10_750);
  });

  it('puts a whole burst on one instant', () => {
    const plan = planOf({ name: 'b', kind: 'burst', count: 3, windowMs: 0 }, 5_000);
    expect([0, 1, 2].map((i) => dueAt(plan, i))).toEqual([5_000, 5_000, 5_000]);
  });
});

describe('payload and ids', () => {
  it('uses a 20-byte JSON payload and distinct ids', () => {
    expect(PAYLOAD_JSON_BYTES).toBe(20);
    expect(new Set([0, 1, 10, 11].map(timeoutId)).size).toBe(4);
  });
});
