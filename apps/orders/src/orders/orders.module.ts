import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { TimeoutMode } from '../config/orders.config.js';
import { DurablePaymentDeadlines } from './deadlines/durable-payment-deadlines.js';
import { LegacyPaymentDeadlines } from './deadlines/legacy-payment-deadlines.js';
import { PaymentDeadlines } from './deadlines/payment-deadlines.js';
import { PaymentTimeoutHandler } from './deadlines/payment-timeout.handler.js';
import { OrderExpiryService } from './order-expiry.service.js';
import { OrderRepository } from './order.repository.js';
import { OrdersController } from './orders.controller.js';
import { OrdersService } from './orders.service.js';

/** The orders feature. The payment deadline is durable (module + handler) or legacy (process timers). */
@Module({})
export class OrdersModule {
  /** Wires the feature for a timeout mode; durable mode expects a global `DurableTimeoutModule` in the app. */
  static register(mode: TimeoutMode): DynamicModule {
    const deadlines: Provider[] =
      mode === 'durable'
        ? [{ provide: PaymentDeadlines, useClass: DurablePaymentDeadlines }, PaymentTimeoutHandler]
        : [{ provide: PaymentDeadlines, useClass: LegacyPaymentDeadlines }];
    return {
      module: OrdersModule,
      controllers: [OrdersController],
      providers: [OrderRepository, OrderExpiryService, OrdersService, ...deadlines],
    };
  }
}
