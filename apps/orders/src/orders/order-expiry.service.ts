import { Injectable, Logger } from '@nestjs/common';
import type { DeliveryStamp } from '@durable-timeout/sample-app-support';
import { ordersMessages } from './orders.messages.js';
import { OrderRepository } from './order.repository.js';

/**
 * What happens when an order's payment window closes: PENDING_PAYMENT -> PAYMENT_TIMEOUT, as a
 * compare-and-set. Idempotent by construction: a second delivery, a stale worker or a timeout that
 * lost the race against the payment finds the order no longer pending and changes nothing.
 * Used by the durable handler and by the legacy in-process timer alike.
 */
@Injectable()
export class OrderExpiryService {
  private readonly logger = new Logger('PaymentTimeout');

  constructor(private readonly orders: OrderRepository) {}

  /**
   * Expires the order if it is still pending; returns whether this call applied the change.
   * Throws only when Redis fails (the durable module then retries).
   */
  async expire(orderId: string, delivery?: DeliveryStamp): Promise<boolean> {
    const outcome = await this.orders.transition(orderId, 'PENDING_PAYMENT', 'PAYMENT_TIMEOUT', { by: 'timeout', delivery });
    if (outcome.applied) {
      this.logger.log(ordersMessages.timedOut(orderId, delivery?.attempt ?? 1, delivery?.fencingToken ?? 0));
      return true;
    }
    if (outcome.status === null) this.logger.warn(ordersMessages.timeoutForMissingOrder(orderId));
    else this.logger.log(ordersMessages.timeoutIgnored(orderId, outcome.status));
    return false;
  }
}
