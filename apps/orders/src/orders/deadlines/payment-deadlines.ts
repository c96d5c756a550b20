import type { PaymentDue } from '../order.repository.js';

/**
 * The payment deadline of an order, armed before the order is stored and disarmed by its payment.
 * Two implementations, picked by TIMEOUT_MODE: `DurablePaymentDeadlines` (in Redis, survives
 * restarts) and `LegacyPaymentDeadlines` (a `setTimeout` in the creating process, the old pattern).
 */
export abstract class PaymentDeadlines {
  /** Arms the deadline of `orderId` in `delayMs`; says when it is due, for the order to record. */
  abstract arm(orderId: string, delayMs: number): Promise<PaymentDue>;

  /** Disarms it after the payment; a deadline already firing finds the order paid and does nothing. */
  abstract disarm(orderId: string): Promise<void>;
}
