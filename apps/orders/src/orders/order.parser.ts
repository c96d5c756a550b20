import { CorruptOrderError } from './errors/corrupt-order.error.js';
import { ORDER_STATUSES, type OrderItem, type OrderStatus, type OrderTransition, type OrderView } from './order.model.js';

/**
 * Turns what Redis holds for an order (its hash and its transitions list) into the API view.
 * Everything stored is parsed defensively: a field of the wrong shape throws `CorruptOrderError`
 * instead of leaking `undefined` or a half-parsed object to the client.
 */
export function parseOrder(id: string, fields: Record<string, string>, transitions: readonly string[]): OrderView {
  const corrupt = (detail: string) => new CorruptOrderError(id, detail);
  const details = parseJson(fields['details'], () => corrupt('details is not JSON'));
  if (!isRecord(details) || !Array.isArray(details['items']) || !isPositiveInteger(details['amountCents'])) {
    throw corrupt('details has no items or amountCents');
  }
  const items: OrderItem[] = details['items'].map((item) => {
    if (!isRecord(item) || typeof item['sku'] !== 'string' || !isPositiveInteger(item['qty'])) throw corrupt('bad item');
    return { sku: item['sku'], qty: item['qty'] };
  });
  const view: OrderView = {
    id,
    status: parseStatus(fields['status'], () => corrupt('unknown status')),
    createdAt: parseTime(fields['createdAt'], () => corrupt('bad createdAt')),
    paymentDueAt: parseTime(fields['paymentDueAt'], () => corrupt('bad paymentDueAt')),
    updatedAt: parseTime(fields['updatedAt'], () => corrupt('bad updatedAt')),
    items,
    amountCents: details['amountCents'],
    transitions: transitions.map((text) => parseTransition(text, () => corrupt('bad transition'))),
  };
  if (typeof details['customerId'] === 'string') view.customerId = details['customerId'];
  return view;
}

function parseTransition(text: string, fail: () => Error): OrderTransition {
  const raw = parseJson(text, fail);
  if (!isRecord(raw) || (raw['by'] !== 'payment' && raw['by'] !== 'timeout')) throw fail();
  const transition: OrderTransition = {
    from: parseStatus(raw['from'], fail),
    to: parseStatus(raw['to'], fail),
    at: parseTime(raw['at'], fail),
    by: raw['by'],
  };
  if (isPositiveInteger(raw['fencingToken'])) transition.fencingToken = raw['fencingToken'];
  if (isPositiveInteger(raw['attempt'])) transition.attempt = raw['attempt'];
  if (typeof raw['instance'] === 'string') transition.instance = raw['instance'];
  return transition;
}

/** Parses a status as stored, or throws what `fail` builds. */
export function parseStatus(value: unknown, fail: () => Error): OrderStatus {
  const found = ORDER_STATUSES.find((status) => status === value);
  if (found === undefined) throw fail();
  return found;
}

function parseTime(value: unknown, fail: () => Error): string {
  const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) throw fail();
  return new Date(ms).toISOString();
}

function parseJson(text: string | undefined, fail: () => Error): unknown {
  if (text === undefined) throw fail();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fail();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
