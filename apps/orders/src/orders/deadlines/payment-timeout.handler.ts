import { Injectable } from '@nestjs/common';
import { OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';
import { OrderExpiryService } from '../order-expiry.service.js';
import { PAYMENT_TOPIC } from './durable-payment-deadlines.js';

/**
 * Handles due payment timeouts (durable mode). Delivery is at least once: this may run twice for
 * one order (a worker that died mid-handler, a lease that expired), so the effect is a
 * compare-and-set that only a still-pending order accepts. Returning acknowledges the timeout;
 * throwing (Redis unreachable) makes the module retry it with backoff.
 */
@Injectable()
export class PaymentTimeoutHandler {
  constructor(private readonly expiry: OrderExpiryService) {}

  /** Moves the order to PAYMENT_TIMEOUT if it is still pending, recording the delivery's fencing token. */
  @OnTimeout(PAYMENT_TOPIC)
  async onPaymentTimeout(event: TimeoutEvent): Promise<void> {
    await this.expiry.expire(event.id, { fencingToken: event.fencingToken, attempt: event.attempt });
  }
}
