import type { OrderStatus } from './order.model.js';

/** Text of the orders errors and log lines, built in one place. Never includes payment data. */
export const ordersMessages = {
  notFound: (id: string) => `Order ${id} does not exist. Check the id returned by POST /orders.`,
  notPending: (id: string, status: OrderStatus) =>
    status === 'CONFIRMED'
      ? `Order ${id} is already paid (CONFIRMED); the payment was not applied again. Do not retry it.`
      : `Order ${id} is ${status}: its payment window closed before this payment arrived. Place a new order.`,
  alreadyExists: (id: string) => `Order ${id} already exists; ids are generated per order, so this is a bug. Retry the request.`,
  corrupt: (id: string, detail: string) =>
    `Order ${id} is unreadable in Redis (${detail}). Inspect or delete its keys; the app never writes this shape.`,
  created: (id: string, dueAt: string) => `order ${id} created, payment due at ${dueAt}`,
  confirmed: (id: string) => `order ${id} confirmed`,
  timedOut: (id: string, attempt: number, fencingToken: number) =>
    `order ${id} timed out (attempt ${attempt}, fencing token ${fencingToken})`,
  timeoutIgnored: (id: string, status: OrderStatus) => `payment timeout of order ${id} ignored: the order is already ${status}`,
  timeoutForMissingOrder: (id: string) => `payment timeout of order ${id} ignored: no such order (its creation failed)`,
  cancelFailed: (id: string, reason: string) =>
    `order ${id} confirmed, but its payment timeout could not be cancelled (${reason}); it will fire and change nothing`,
  timeoutCancelResult: (id: string, result: string) => `payment timeout of order ${id}: ${result}`,
  legacyExpiryFailed: (id: string, reason: string) =>
    `payment timeout of order ${id} failed (${reason}); legacy mode does not retry, the order stays PENDING_PAYMENT`,
  legacyTimersDropped: (count: number) =>
    `legacy mode: ${count} payment timer(s) dropped on shutdown; those orders stay PENDING_PAYMENT`,
};
