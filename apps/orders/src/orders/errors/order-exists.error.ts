import { ordersMessages } from '../orders.messages.js';

/** An order with this id already exists (ids are random UUIDs: never expected). */
export class OrderExistsError extends Error {
  constructor(readonly orderId: string) {
    super(ordersMessages.alreadyExists(orderId));
    this.name = new.target.name;
  }
}
