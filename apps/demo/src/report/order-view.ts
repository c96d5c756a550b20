/** Order statuses of the orders app that the demo counts. */
export const OrderStatus = {
  pending: 'PENDING_PAYMENT',
  confirmed: 'CONFIRMED',
  timedOut: 'PAYMENT_TIMEOUT',
} as const;

/** One status change of an order, as `GET /orders/:id` lists it. */
export interface OrderTransition {
  from: string;
  to: string;
  /** ISO date or epoch milliseconds. */
  at: string | number;
  /** Who made the change, e.g. `payment` or `timeout`. */
  by: string;
}

/** An order as `GET /orders/:id` returns it. */
export interface OrderView {
  id: string;
  status: string;
  createdAt: string | number;
  paymentDueAt: string | number;
  updatedAt?: string | number;
  transitions: OrderTransition[];
}

/** Epoch milliseconds of an ISO date or an epoch number; `undefined` when it is neither. */
export function toEpochMs(value: string | number | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value === '') return undefined;
  const asNumber = Number(value);
  if (Number.isFinite(asNumber)) return asNumber;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/**
 * Reads an untrusted `GET /orders/:id` body into an `OrderView`, or `undefined` when it does not
 * have the contract's shape (the demo then counts the order as unreadable instead of crashing).
 */
export function parseOrderView(body: unknown): OrderView | undefined {
  if (!isRecord(body)) return undefined;
  const { id, status, createdAt, paymentDueAt, updatedAt, transitions } = body;
  if (typeof id !== 'string' || typeof status !== 'string') return undefined;
  if (!isTime(createdAt) || !isTime(paymentDueAt)) return undefined;
  const list = Array.isArray(transitions) ? transitions : [];
  const parsed: OrderTransition[] = [];
  for (const item of list) {
    if (!isRecord(item)) return undefined;
    const { from, to, at, by } = item;
    if (typeof from !== 'string' || typeof to !== 'string' || !isTime(at)) return undefined;
    parsed.push({ from, to, at, by: typeof by === 'string' ? by : 'unknown' });
  }
  return {
    id,
    status,
    createdAt,
    paymentDueAt,
    ...(isTime(updatedAt) ? { updatedAt } : {}),
    transitions: parsed,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is string | number {
  return (typeof value === 'string' || typeof value === 'number') && toEpochMs(value) !== undefined;
}
