import { describe, expect, it } from '@jest/globals';
import { dueAt, idOf, lastDueAt, PAYLOAD_JSON_BYTES, planOf, standardWorkloads, timeoutId, uuidId, warmUpOf } from './workloads.js';

describe('standardWorkloads', () => {
  it('runs 200/s, 2,000/s and 10,000/s over 10 s and a 50,000 burst in full mode', () => {
    expect(standardWorkloads(false)).toEqual([
      { name: 'steady 200/s', kind: 'steady', count: 2_000, windowMs: 10_000 },
      { name: 'steady 2k/s', kind: 'steady', count: 20_000, windowMs: 10_000 },
      { name: 'steady 10k/s', kind: 'steady', count: 100_000, windowMs: 10_000 },
      { name: 'burst 50k', kind: 'burst', count: 50_000, windowMs: 0 },
    ]);
  });

  it('keeps the rates but shortens everything in quick mode', () => {
    const quick = standardWorkloads(true);
    expect(quick.map((w) => (w.count * 1000) / (w.windowMs || 1000))).toEqual([200, 2_000, 10_000, 10_000]);
    expect(quick.every((w) => w.windowMs <= 2_000)).toBe(true);
  });
});

describe('warmUpOf', () => {
  it('keeps the rate over a shorter window, smaller still with --quick', () => {
    const [, steady, , burst] = standardWorkloads(false);
    expect(warmUpOf(steady!, false)).toMatchObject({ kind: 'steady', count: 4_000, windowMs: 2_000 });
    expect(warmUpOf(steady!, true)).toMatchObject({ kind: 'steady', count: 500, windowMs: 250 });
    expect(warmUpOf(burst!, false)).toMatchObject({ kind: 'burst', count: 10_000 });
    expect(warmUpOf(burst!, true)).toMatchObject({ kind: 'burst', count: 1_000 });
  });

  it('is never larger than the workload', () => {
    const small = { name: 's', kind: 'burst', count: 300, windowMs: 0 } as const;
    expect(warmUpOf(small, false).count).toBe(300);
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
    const plan = planOf({ name: 's', kind: 'burst', count: 2, windowMs: 0 }, 0);
    expect(idOf(plan, 3)).toBe(timeoutId(3));
    expect(idOf(planOf({ name: 's', kind: 'burst', count: 2, windowMs: 0 }, 0, 'w'), 3)).toBe('w3');
  });

  it('gives a plan of UUID ids distinct 36-character ids in the form of a UUID', () => {
    const plan = { ...planOf({ name: 's', kind: 'burst', count: 100_000, windowMs: 0 }, 0), uuidIds: true };
    const ids = Array.from({ length: 100_000 }, (_, i) => idOf(plan, i));
    expect(new Set(ids).size).toBe(100_000);
    expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
    expect(idOf(plan, 99_999)).toBe(uuidId(99_999));
  });
});
