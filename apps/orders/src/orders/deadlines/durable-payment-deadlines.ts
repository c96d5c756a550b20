import { Injectable, Logger } from '@nestjs/common';
import { TimeoutScheduler } from '@durable-timeout/nestjs';
import { cancelSupersededTimeout } from '@durable-timeout/sample-app-support';
import type { PaymentDue } from '../order.repository.js';
import { PaymentDeadlines } from './payment-deadlines.js';

/** The topic of the payment timeouts. */
export const PAYMENT_TOPIC = 'payment';

/**
 * Payment deadlines kept in Redis by durable-timeout: the timeout's id is the order id, and any
 * instance fires it once it is due, even if the instance that created the order is gone.
 */
@Injectable()
export class DurablePaymentDeadlines extends PaymentDeadlines {
  private readonly logger = new Logger('PaymentDeadlines');

  constructor(private readonly timeouts: TimeoutScheduler) {
    super();
  }

  /** Schedules the timeout; its due time (Redis server clock) becomes the order's `paymentDueAt`. */
  override async arm(orderId: string, delayMs: number): Promise<PaymentDue> {
    const scheduled = await this.timeouts.schedule(PAYMENT_TOPIC, orderId, { delayMs });
    return { dueAt: scheduled.dueAt };
  }

  /** Cancels the timeout. `firing` is fine: the handler's compare-and-set finds the order CONFIRMED. */
  override async disarm(orderId: string): Promise<void> {
    // Never throws: the payment is already applied, and a timeout left behind changes nothing.
    await cancelSupersededTimeout(this.timeouts, PAYMENT_TOPIC, orderId, this.logger);
  }
}
