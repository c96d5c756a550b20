import { ordersMessages } from '../orders.messages.js';

/** What Redis holds for an order does not have the shape this app writes. */
export class CorruptOrderError extends Error {
  constructor(
    readonly orderId: string,
    detail: string,
  ) {
    super(ordersMessages.corrupt(orderId, detail));
    this.name = new.target.name;
  }
}
