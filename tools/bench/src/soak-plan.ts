// The orders of a soak (`--soak MINUTES`), mixed like the orders sample app: every order schedules
// a payment timeout; most are paid in time (the timeout is cancelled), some are moved to a later
// due time (scheduled again under the same id), the rest are never paid and fire.

/** What happens to one order's payment timeout. */
export type OrderFate = 'paid' | 'replaced' | 'fires';

/** Out of every 10 orders: 6 paid in time (cancelled), 1 replaced by a later due time (then fires), 3 fire as first scheduled. */
export const SOAK_MIX: Readonly<Record<OrderFate, number>> = { paid: 6, replaced: 1, fires: 3 };

/** Orders per turn of the mix. */
const MIX_SIZE = SOAK_MIX.paid + SOAK_MIX.replaced + SOAK_MIX.fires;

/** Timeouts fired per second once the soak runs at its rate. */
export const SOAK_FIRED_PER_SEC = 2_000;

/** Orders placed per second so that `SOAK_FIRED_PER_SEC` fire: 5,000 (4 in 10 fire). */
export const SOAK_ORDERS_PER_SEC = (SOAK_FIRED_PER_SEC * MIX_SIZE) / (SOAK_MIX.replaced + SOAK_MIX.fires);

/** The payment timeout of an order, from its placing. */
export const PAYMENT_DELAY_MS = 5_000;

/** A paid order's cancel, and a replaced order's new schedule, come this long after the order is placed. */
export const ACT_AFTER_MS = 2_500;

/** A replaced order's new due time is this much later than its first one. */
export const REPLACE_EXTRA_MS = 5_000;

/** From the first order to the first moment every fate fires at its rate: the unmeasured lead-in. */
export const SOAK_LEAD_MS = PAYMENT_DELAY_MS + REPLACE_EXTRA_MS;

/** The orders of one soak. Sent as is to the worker process. */
export interface SoakPlan {
  /** When order 0 is placed, ms since the epoch. */
  startAt: number;
  /** The measured window: from the end of the lead-in, `minutes` long. Orders are placed until its end. */
  windowStartAt: number;
  windowEndAt: number;
  ordersPerSec: number;
  /** Orders placed over lead-in and window. */
  count: number;
  /** What every timeout id starts with (the order index follows). */
  idPrefix: string;
}

/** The soak plan of `minutes` measured minutes whose first order is placed at `startAt`. */
export function soakPlanOf(minutes: number, startAt: number, ordersPerSec = SOAK_ORDERS_PER_SEC): SoakPlan {
  const windowStartAt = startAt + SOAK_LEAD_MS;
  const windowEndAt = windowStartAt + minutes * 60_000;
  return { startAt, windowStartAt, windowEndAt, ordersPerSec, count: Math.ceil(((windowEndAt - startAt) * ordersPerSec) / 1000), idPrefix: 'o' };
}

/** The fate of order `index`: the mix repeats every 10 orders (paid first, then replaced, then fires). */
export function fateOf(index: number): OrderFate {
  const turn = index % MIX_SIZE;
  if (turn < SOAK_MIX.paid) return 'paid';
  return turn < SOAK_MIX.paid + SOAK_MIX.replaced ? 'replaced' : 'fires';
}

/** When order `index` is placed (its timeout first scheduled), whole ms. */
export function placedAt(plan: SoakPlan, index: number): number {
  return plan.startAt + Math.floor((index * 1000) / plan.ordersPerSec);
}

/** The due time the order's timeout has at the end: the replaced one's later time, else the first one. */
export function finalDueAt(plan: SoakPlan, index: number): number {
  return placedAt(plan, index) + PAYMENT_DELAY_MS + (fateOf(index) === 'replaced' ? REPLACE_EXTRA_MS : 0);
}

/** Id of order `index`'s timeout. */
export function orderId(plan: SoakPlan, index: number): string {
  return `${plan.idPrefix}${index}`;
}

/** Index of order id `id` of the plan, or undefined when the id is not one of its orders. */
export function orderIndexOf(plan: SoakPlan, id: string): number | undefined {
  if (!id.startsWith(plan.idPrefix)) return undefined;
  const index = Number(id.slice(plan.idPrefix.length));
  return Number.isInteger(index) && index >= 0 && index < plan.count ? index : undefined;
}

/** One timeout to schedule: its id and due time. */
export interface SoakTimeout {
  id: string;
  at: number;
}

/** What the soak sends to the system under test for the instants in [from, to). */
export interface SoakActions {
  /** New orders' timeouts, due `PAYMENT_DELAY_MS` after placing. */
  schedules: SoakTimeout[];
  /** Paid orders' timeouts, cancelled `ACT_AFTER_MS` after placing. */
  cancels: string[];
  /** Replaced orders' timeouts, scheduled again `ACT_AFTER_MS` after placing with their later due time. */
  replaces: SoakTimeout[];
}

/** First order index placed at or after `at` (clamped to the plan). */
function firstPlacedFrom(plan: SoakPlan, at: number): number {
  return Math.min(plan.count, Math.max(0, Math.ceil(((at - plan.startAt) * plan.ordersPerSec) / 1000)));
}

/** The actions whose instant falls in [from, to), in order; `from` and `to` whole ms. */
export function actionsBetween(plan: SoakPlan, from: number, to: number): SoakActions {
  const actions: SoakActions = { schedules: [], cancels: [], replaces: [] };
  for (let i = firstPlacedFrom(plan, from); i < firstPlacedFrom(plan, to); i++) {
    actions.schedules.push({ id: orderId(plan, i), at: placedAt(plan, i) + PAYMENT_DELAY_MS });
  }
  for (let i = firstPlacedFrom(plan, from - ACT_AFTER_MS); i < firstPlacedFrom(plan, to - ACT_AFTER_MS); i++) {
    const fate = fateOf(i);
    if (fate === 'paid') actions.cancels.push(orderId(plan, i));
    else if (fate === 'replaced') actions.replaces.push({ id: orderId(plan, i), at: finalDueAt(plan, i) });
  }
  return actions;
}
