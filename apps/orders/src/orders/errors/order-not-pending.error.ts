import type { OrderStatus } from '../order.model.js';
import { ordersMessages } from '../orders.messages.js';

/** A payment reached an order that is no longer PENDING_PAYMENT (paid or timed out). Answered as 409. */
export class OrderNotPendingError extends Error {
  constructor(
    readonly orderId: string,
    readonly status: OrderStatus,
  ) {
    super(ordersMessages.notPending(orderId, status));
    this.name = new.target.name;
  }
}
