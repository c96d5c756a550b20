import { ordersMessages } from '../orders.messages.js';

/** The order id is unknown. Answered as 404. */
export class OrderNotFoundError extends Error {
  constructor(readonly orderId: string) {
    super(ordersMessages.notFound(orderId));
    this.name = new.target.name;
  }
}
