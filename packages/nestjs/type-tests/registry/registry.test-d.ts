// With DurableTimeoutTopics augmented by the features (orders.feature.ts, rides.feature.ts), the
// scheduler and @OnTimeout are checked without any type argument.
import { expectTypeOf } from 'expect-type';
import { OnTimeout, TimeoutScheduler, type TimeoutEvent } from '@durable-timeout/nestjs';
import type { PaymentDeadline } from './orders.feature.js';
import type { RideDeadline } from './rides.feature.js';

declare const scheduler: TimeoutScheduler;
void scheduler.schedule('payment', 'o-1', { delayMs: 1, payload: { orderId: 'o-1' } });
void scheduler.schedule('ride', 't-1', { delayMs: 1, payload: { tripId: 't-1' } });
expectTypeOf(scheduler.get('ride', 't-1')).resolves.toEqualTypeOf<import('@durable-timeout/nestjs').TimeoutInfo<RideDeadline> | null>();
// @ts-expect-error a payment with a ride's payload
void scheduler.schedule('payment', 'o-1', { delayMs: 1, payload: { tripId: 't-1' } });
// @ts-expect-error a topic no feature declared
void scheduler.schedule('refund', 'o-1', { delayMs: 1 });
// @ts-expect-error the payload is required once the topic's type is declared
void scheduler.schedule('ride', 't-1', { delayMs: 1 });

export class PaymentHandlers {
  @OnTimeout('payment')
  onPayment(event: TimeoutEvent<PaymentDeadline>): string {
    return event.payload.orderId;
  }

  @OnTimeout('ride')
  onRideNoArgument(): void {}

  // The untyped event (payload JsonValue) is accepted for any topic, interface payloads included.
  @OnTimeout('payment')
  async onPaymentUntyped(event: TimeoutEvent): Promise<string> {
    return event.id;
  }

  // @ts-expect-error the method takes another topic's event
  @OnTimeout('ride')
  onRideWithPaymentEvent(event: TimeoutEvent<PaymentDeadline>): string {
    return event.payload.orderId;
  }
}

export class UnknownTopicHandlers {
  // @ts-expect-error a topic no feature declared
  @OnTimeout('refund')
  onRefund(): void {}
}
