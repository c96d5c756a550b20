// @OnTimeout checks the handler's payload without `strictFunctionTypes` too (the `nest new`
// settings of tsconfig.json here): a method taking another topic's event is a compile error,
// whether the payloads are type aliases (assignable to JSON, the case parameter bivariance let
// through) or interfaces.
import { OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';

type PaymentDeadline = { orderId: string };
type RideDeadline = { tripId: string };
interface RefundDeadline {
  refundId: string;
}

declare module '@durable-timeout/nestjs' {
  interface DurableTimeoutTopics {
    payment: PaymentDeadline;
    ride: RideDeadline;
    refund: RefundDeadline;
  }
}

export class Handlers {
  @OnTimeout('payment')
  onPayment(event: TimeoutEvent<PaymentDeadline>): string {
    return event.payload.orderId;
  }

  @OnTimeout('refund')
  onRefund(event: TimeoutEvent<RefundDeadline>): string {
    return event.payload.refundId;
  }

  @OnTimeout('ride')
  onRideUntyped(event: TimeoutEvent): string {
    return event.id;
  }

  @OnTimeout('ride')
  onRideNoArgument(): void {}

  // @ts-expect-error a type-alias payload of another topic
  @OnTimeout('payment')
  onPaymentWithRideEvent(event: TimeoutEvent<RideDeadline>): string {
    return event.payload.tripId;
  }

  // @ts-expect-error an interface payload of another topic
  @OnTimeout('payment')
  onPaymentWithRefundEvent(event: TimeoutEvent<RefundDeadline>): string {
    return event.payload.refundId;
  }

  // @ts-expect-error the engine passes the event alone: a second required parameter is refused
  @OnTimeout('payment')
  onPaymentTwoArguments(event: TimeoutEvent<PaymentDeadline>, extra: string): string {
    return event.id + extra;
  }
}
