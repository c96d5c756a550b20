import type { RecordTransition } from '@durable-timeout/sample-app-support';

/** Where an order is in its life. Only PENDING_PAYMENT has a way out; the two others are final. */
export type OrderStatus = 'PENDING_PAYMENT' | 'CONFIRMED' | 'PAYMENT_TIMEOUT';

/** Who applied a status change: the payment endpoint or the payment timeout. */
export type TransitionCause = 'payment' | 'timeout';

/** One line of an order's audit trail: a status change, applied once, never rewritten. */
export type OrderTransition = RecordTransition<OrderStatus, TransitionCause>;

/** One line of an order. */
export interface OrderItem {
  sku: string;
  qty: number;
}

/** An order as the API returns it. Times are ISO 8601 strings on the Redis server clock. */
export interface OrderView {
  id: string;
  status: OrderStatus;
  createdAt: string;
  /** When the order times out unless paid first. */
  paymentDueAt: string;
  updatedAt: string;
  items: OrderItem[];
  amountCents: number;
  customerId?: string;
  /** Every status change ever applied to this order, oldest first. */
  transitions: OrderTransition[];
}

/** What `POST /orders` answers. */
export type CreatedOrderView = Pick<OrderView, 'id' | 'status' | 'createdAt' | 'paymentDueAt'>;

/** The statuses, for parsing what Redis holds. */
export const ORDER_STATUSES: readonly OrderStatus[] = ['PENDING_PAYMENT', 'CONFIRMED', 'PAYMENT_TIMEOUT'];

/** The causes of a transition, for parsing what Redis holds. */
export const TRANSITION_CAUSES: readonly TransitionCause[] = ['payment', 'timeout'];
