import { describe, expect, it } from '@jest/globals';
import { computeModeFigures, emptyTally, type ModeRunRecord } from './mode-figures.js';
import type { OrderTransition, OrderView } from './order-view.js';

const DUE = Date.UTC(2026, 0, 1, 0, 0, 4);

function order(id: string, status: string, transitions: OrderTransition[]): OrderView {
  return { id, status, createdAt: DUE - 4000, paymentDueAt: new Date(DUE).toISOString(), transitions };
}

function timeout(lateByMs: number): OrderTransition {
  return { from: 'PENDING_PAYMENT', to: 'PAYMENT_TIMEOUT', at: new Date(DUE + lateByMs).toISOString(), by: 'timeout' };
}

const payment: OrderTransition = { from: 'PENDING_PAYMENT', to: 'CONFIRMED', at: DUE - 2000, by: 'payment' };

function record(finalViews: (OrderView | undefined)[]): ModeRunRecord {
  return {
    mode: 'durable',
    ordersRequested: 10,
    finalViews,
    createFailures: 1,
    onTimePayments: { attempted: 2, confirmed: 2, refused: 0, failed: 0 },
    latePayments: { attempted: 3, confirmed: 0, refused: 2, failed: 1 },
    sigterms: 2,
    sigkills: 1,
    forcedKills: 1,
    durationMs: 12_345,
  };
}

describe('computeModeFigures', () => {
  it('counts statuses, unreadable orders and carries the run counters', () => {
    const figures = computeModeFigures(
      record([
        order('a', 'CONFIRMED', [payment]),
        order('b', 'PAYMENT_TIMEOUT', [timeout(10)]),
        order('c', 'PENDING_PAYMENT', []),
        order('d', 'PENDING_PAYMENT', []),
        order('e', 'REFUNDED', [payment]),
        undefined,
      ]),
    );
    expect(figures).toMatchObject({
      mode: 'durable',
      ordersRequested: 10,
      created: 6,
      createFailures: 1,
      paid: 1,
      timedOut: 1,
      stuck: 2,
      otherStatus: 1,
      unreadable: 1,
      duplicateTransitions: 0,
      ordersWithDuplicates: 0,
      sigterms: 2,
      sigkills: 1,
      forcedKills: 1,
      durationMs: 12_345,
    });
    expect(figures.latePayments).toEqual({ attempted: 3, confirmed: 0, refused: 2, failed: 1 });
  });

  it('counts every transition out of PENDING_PAYMENT beyond the first as a duplicate', () => {
    const figures = computeModeFigures(
      record([
        order('a', 'PAYMENT_TIMEOUT', [timeout(5), timeout(900)]),
        order('b', 'CONFIRMED', [payment, timeout(20), timeout(30)]),
        order('c', 'PAYMENT_TIMEOUT', [timeout(1)]),
      ]),
    );
    expect(figures.duplicateTransitions).toBe(3);
    expect(figures.ordersWithDuplicates).toBe(2);
  });

  it('measures lateness of timeout transitions only: worst, median and smallest', () => {
    const figures = computeModeFigures(
      record([
        order('a', 'PAYMENT_TIMEOUT', [timeout(40)]),
        order('b', 'PAYMENT_TIMEOUT', [timeout(-3)]),
        order('c', 'PAYMENT_TIMEOUT', [timeout(2500)]),
        order('d', 'PAYMENT_TIMEOUT', [timeout(12)]),
        order('e', 'CONFIRMED', [{ ...payment, at: DUE + 60_000 }]),
      ]),
    );
    expect(figures.worstLatenessMs).toBe(2500);
    expect(figures.medianLatenessMs).toBe(26);
    expect(figures.minLatenessMs).toBe(-3);
  });

  it('has no lateness when nothing timed out, and copes with no orders at all', () => {
    const figures = computeModeFigures(record([]));
    expect(figures.created).toBe(0);
    expect(figures.worstLatenessMs).toBeNull();
    expect(figures.medianLatenessMs).toBeNull();
    expect(figures.otherStatus).toBe(0);
  });

  it('copies the tallies instead of sharing them', () => {
    const input = record([]);
    const figures = computeModeFigures(input);
    input.latePayments.refused = 99;
    expect(figures.latePayments.refused).toBe(2);
    expect(emptyTally()).toEqual({ attempted: 0, confirmed: 0, refused: 0, failed: 0 });
  });
});
