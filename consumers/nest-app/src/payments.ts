import { Injectable, Module } from '@nestjs/common';
import { OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';
import { OrdersModule, OrdersService, type PaymentDeadline } from './orders';

@Injectable()
export class PaymentTimeouts {
  constructor(private readonly orders: OrdersService) {}

  @OnTimeout('payment')
  onPaymentTimeout(event: TimeoutEvent<PaymentDeadline>): void {
    this.orders.settle(event.payload.orderId, 'PAYMENT_TIMEOUT');
  }
}

/** The handler lives in a module of its own, as in most applications. */
@Module({
  imports: [OrdersModule],
  providers: [PaymentTimeouts],
})
export class PaymentsModule {}
