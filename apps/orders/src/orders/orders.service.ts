import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { isUUID } from 'class-validator';
import { RecordConflictError, RecordNotFoundError } from '@durable-timeout/sample-app-support';
import type { OrdersConfig } from '../config/orders.config.js';
import { PaymentDeadlines } from './deadlines/payment-deadlines.js';
import type { CreatedOrderView, OrderView } from './order.model.js';
import { OrderRepository, type NewOrder } from './order.repository.js';
import { ordersMessages } from './orders.messages.js';

/** The order use cases: place, pay, read. */
@Injectable()
export class OrdersService {
  private readonly logger = new Logger('Orders');
  private readonly paymentTimeoutMs: number;

  constructor(
    private readonly orders: OrderRepository,
    private readonly deadlines: PaymentDeadlines,
    config: ConfigService<OrdersConfig, true>,
  ) {
    this.paymentTimeoutMs = config.get('PAYMENT_TIMEOUT_MS', { infer: true });
  }

  /**
   * Places an order in PENDING_PAYMENT. The deadline is armed first and the order written second:
   * if the write fails the deadline later finds no order and does nothing, whereas the other way
   * round a failed arm would leave an order that never times out.
   */
  async create(order: NewOrder): Promise<CreatedOrderView> {
    const id = randomUUID();
    const due = await this.deadlines.arm(id, this.paymentTimeoutMs);
    const { createdAt, paymentDueAt } = await this.orders.create(id, order, due);
    const view: CreatedOrderView = {
      id,
      status: 'PENDING_PAYMENT',
      createdAt: new Date(createdAt).toISOString(),
      paymentDueAt: new Date(paymentDueAt).toISOString(),
    };
    this.logger.log(ordersMessages.created(id, view.paymentDueAt));
    return view;
  }

  /**
   * Confirms a pending order: compare-and-set PENDING_PAYMENT -> CONFIRMED, then disarms the deadline.
   * Exactly one of a payment and a timeout racing on the same order wins; the loser sees the
   * other's status (the payment as a 409, the timeout as a no-op).
   */
  async pay(id: string, paymentRef: string): Promise<OrderView> {
    if (!isUUID(id)) throw new RecordNotFoundError(id, ordersMessages.notFound(id));
    const outcome = await this.orders.transition(id, 'PENDING_PAYMENT', 'CONFIRMED', {
      by: 'payment',
      fields: { paymentRef },
    });
    if (!outcome.applied) {
      if (outcome.status === null) throw new RecordNotFoundError(id, ordersMessages.notFound(id));
      throw new RecordConflictError(id, ordersMessages.notPending(id, outcome.status));
    }
    this.logger.log(ordersMessages.confirmed(id));
    await this.deadlines.disarm(id);
    return this.get(id);
  }

  /** Reads an order with its transitions. */
  async get(id: string): Promise<OrderView> {
    const order = isUUID(id) ? await this.orders.get(id) : null;
    if (order === null) throw new RecordNotFoundError(id, ordersMessages.notFound(id));
    return order;
  }
}
