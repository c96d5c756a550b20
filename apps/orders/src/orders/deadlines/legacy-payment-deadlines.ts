import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { PaymentDue } from '../order.repository.js';
import { OrderExpiryService } from '../order-expiry.service.js';
import { ordersMessages } from '../orders.messages.js';
import { PaymentDeadlines } from './payment-deadlines.js';

/**
 * The old pattern, kept to show what goes wrong (TIMEOUT_MODE=legacy): one in-memory `setTimeout`
 * per order in the process that created it. A restart, a deploy or a crash loses every armed timer,
 * and those orders stay PENDING_PAYMENT for ever.
 */
@Injectable()
export class LegacyPaymentDeadlines extends PaymentDeadlines implements BeforeApplicationShutdown {
  private readonly logger = new Logger('PaymentDeadlines');
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly expiry: OrderExpiryService) {
    super();
  }

  /** Starts a process timer that expires the order after `delayMs`. */
  override async arm(orderId: string, delayMs: number): Promise<PaymentDue> {
    const timer = setTimeout(() => {
      this.timers.delete(orderId);
      this.expiry.expire(orderId).catch((error: unknown) => {
        // No retry in the old pattern: a failed expiry is simply lost.
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.error(ordersMessages.legacyExpiryFailed(orderId, reason));
      });
    }, delayMs);
    this.timers.set(orderId, timer);
    return { delayMs };
  }

  /** Clears the timer, if this process holds it (another instance's timer keeps running). */
  override async disarm(orderId: string): Promise<void> {
    clearTimeout(this.timers.get(orderId));
    this.timers.delete(orderId);
  }

  /** The process is going away: its timers go with it, which is the failure this mode demonstrates. */
  beforeApplicationShutdown(): void {
    if (this.timers.size > 0) this.logger.warn(ordersMessages.legacyTimersDropped(this.timers.size));
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
