import { describe, expect, it } from '@jest/globals';
import {
  actionsBetween,
  fateOf,
  finalDueAt,
  orderIndexOf,
  PAYMENT_DELAY_MS,
  placedAt,
  REPLACE_EXTRA_MS,
  SOAK_LEAD_MS,
  SOAK_ORDERS_PER_SEC,
  soakPlanOf,
} from './soak-plan.js';

describe('the soak mix', () => {
  it('has 6 paid, 1 replaced and 3 firing orders in every 10, so 5,000 orders/s fire 2,000/s', () => {
    const fates = Array.from({ length: 1_000 }, (_, i) => fateOf(i));
    expect(fates.filter((f) => f === 'paid')).toHaveLength(600);
    expect(fates.filter((f) => f === 'replaced')).toHaveLength(100);
    expect(fates.filter((f) => f === 'fires')).toHaveLength(300);
    expect(SOAK_ORDERS_PER_SEC).toBe(5_000);
  });

  it('measures `minutes` after a lead-in long enough for replaced orders to fire', () => {
    const plan = soakPlanOf(2, 1_000_000);
    expect(plan.windowStartAt).toBe(1_000_000 + SOAK_LEAD_MS);
    expect(plan.windowEndAt).toBe(plan.windowStartAt + 120_000);
    expect(plan.count).toBe(((SOAK_LEAD_MS + 120_000) * 5_000) / 1000);
    expect(SOAK_LEAD_MS).toBe(PAYMENT_DELAY_MS + REPLACE_EXTRA_MS);
  });

  it('dues an order 5 s after it is placed, a replaced one 5 s later still', () => {
    const plan = soakPlanOf(1, 0);
    expect(placedAt(plan, 5_000)).toBe(1_000);
    expect(finalDueAt(plan, 5_000)).toBe(6_000); // fateOf(5000) is paid: its first due time
    expect(finalDueAt(plan, 5_007)).toBe(placedAt(plan, 5_007) + 5_000); // fires
    expect(finalDueAt(plan, 5_006)).toBe(placedAt(plan, 5_006) + 10_000); // replaced
  });

  it('reads an order index back from its id, and nothing else', () => {
    const plan = soakPlanOf(1, 0);
    expect(orderIndexOf(plan, 'o42')).toBe(42);
    expect(orderIndexOf(plan, 't42')).toBeUndefined();
    expect(orderIndexOf(plan, `o${plan.count}`)).toBeUndefined();
    expect(orderIndexOf(plan, 'o1.5')).toBeUndefined();
  });
});

describe('actionsBetween', () => {
  const plan = soakPlanOf(1, 10_000);

  it('schedules each order once however the time is cut, in order', () => {
    const cuts = [0, 10_000, 10_001, 10_017, 10_500, 13_333, 20_000, 80_000, 90_000];
    const ids = cuts.slice(1).flatMap((to, i) => actionsBetween(plan, cuts[i]!, to).schedules.map((s) => s.id));
    expect(ids).toEqual(Array.from({ length: plan.count }, (_, i) => `o${i}`));
  });

  it('cancels paid orders and replaces replaced ones 2.5 s after placing, with the later due time', () => {
    const all = actionsBetween(plan, 0, 100_000);
    expect(all.cancels).toHaveLength(plan.count * 0.6);
    expect(all.replaces).toHaveLength(plan.count * 0.1);
    const first = actionsBetween(plan, 10_000, 12_500);
    expect(first.cancels).toEqual([]);
    expect(first.replaces).toEqual([]);
    const next = actionsBetween(plan, 12_500, 12_501);
    expect(next.cancels).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
    expect(next.replaces).toEqual([]);
    expect(actionsBetween(plan, 12_501, 12_502).replaces).toEqual([{ id: 'o6', at: 10_001 + 10_000 }]);
  });

  it('dues every schedule 5 s after its order is placed', () => {
    const { schedules } = actionsBetween(plan, 10_000, 10_010);
    expect(schedules).toHaveLength(50);
    for (const { id, at } of schedules) expect(at).toBe(placedAt(plan, orderIndexOf(plan, id)!) + 5_000);
  });
});
