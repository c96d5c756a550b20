import type { OrderStatus } from './order.model.js';

/** Text of the orders errors and log lines, built in one place. Never includes payment data. */
export const ordersMessages = {
  notFound: (id: string) => `Order ${id} does not exist. Check the id returned by POST /orders.`,
  notPending: (id: string, status: OrderStatus) =>
    status === 'CONFIRMED'
      ? `Order ${id} is already paid (CONFIRMED); the payment was not applied again. Do not retry it.`
      : `Order ${id} is ${status}: its payment window closed before this payment arrived. Place a new order.`,
  created: (id: string, dueAt: string) => `order ${id} created, payment due at ${dueAt}`,
  confirmed: (id: string) => `order ${id} confirmed`,
  timedOut: (id: string, attempt: number, fencingToken: number) =>
    `order ${id} timed out (attempt ${attempt}, fencing token ${fencingToken})`,
  timeoutIgnored: (id: string, status: OrderStatus) => `payment timeout of order ${id} ignored: the order is already ${status}`,
  timeoutForMissingOrder: (id: string) => `payment timeout of order ${id} ignored: no such order (its creation failed)`,
  legacyExpiryFailed: (id: string, reason: string) =>
    `payment timeout of order ${id} failed (${reason}); legacy mode does not retry, the order stays PENDING_PAYMENT`,
  legacyTimersDropped: (count: number) =>
    `legacy mode: ${count} payment timer(s) dropped on shutdown; those orders stay PENDING_PAYMENT`,
};
