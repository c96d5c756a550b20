import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT, StatusRecords, type DeliveryStamp, type RecordDue } from '@durable-timeout/sample-app-support';
import type { OrdersConfig } from '../config/orders.config.js';
import { ORDER_STATUSES, type OrderItem, type OrderStatus, type OrderView, type TransitionCause } from './order.model.js';
import { parseOrder } from './order.parser.js';

/** What a new order holds besides its id and times. */
export interface NewOrder {
  items: OrderItem[];
  amountCents: number;
  customerId?: string;
}

/** When a new order's payment is due: a time already fixed (the durable timeout's) or a delay from now. */
export type PaymentDue = RecordDue;

/** Who asks for a status change, written into the transition. */
export interface TransitionRequest {
  by: TransitionCause;
  /** The timeout delivery applying it (timeout path only). */
  delivery?: DeliveryStamp;
  /** More fields to store on the order with the change (e.g. the payment reference). */
  fields?: Record<string, string>;
}

/** Outcome of a compare-and-set: applied (with its time), refused (with the status found), or no such order. */
export type TransitionOutcome =
  | { applied: true; at: number }
  | { applied: false; status: OrderStatus }
  | { applied: false; status: null };

/**
 * The orders in Redis, shared by every instance: a hash and an audit list per order, each write
 * one Lua script (`StatusRecords`). An order is created once, and each status change is a
 * compare-and-set from the expected status that appends the change to the audit list in the same
 * atomic step.
 */
@Injectable()
export class OrderRepository {
  private readonly records: StatusRecords<OrderStatus, TransitionCause>;

  constructor(@Inject(REDIS_CLIENT) redis: Redis, config: ConfigService<OrdersConfig, true>) {
    this.records = new StatusRecords(redis, {
      prefix: config.get('KEY_PREFIX', { infer: true }),
      kind: 'order',
      statuses: ORDER_STATUSES,
      instance: config.get('INSTANCE_ID', { infer: true }),
    });
  }

  /** Stores a new order in PENDING_PAYMENT; returns its creation and payment due times (ms, Redis clock). */
  async create(id: string, order: NewOrder, due: PaymentDue): Promise<{ createdAt: number; paymentDueAt: number }> {
    const details = JSON.stringify({ items: order.items, amountCents: order.amountCents, customerId: order.customerId });
    const { createdAt, dueAt } = await this.records.create(id, {
      status: 'PENDING_PAYMENT',
      dueField: 'paymentDueAt',
      due,
      fields: { details },
    });
    return { createdAt, paymentDueAt: dueAt };
  }

  /** Reads an order with its transitions (a consistent snapshot), or null. */
  async get(id: string): Promise<OrderView | null> {
    const stored = await this.records.read(id);
    return stored === null ? null : parseOrder(id, stored.fields, stored.transitions);
  }

  /** Compare-and-set: moves the order from `from` to `to` only if it is in `from` now. */
  async transition(id: string, from: OrderStatus, to: OrderStatus, request: TransitionRequest): Promise<TransitionOutcome> {
    const outcome = await this.records.transition(id, {
      from: [from],
      to,
      by: request.by,
      delivery: request.delivery,
      set: request.fields,
    });
    if (outcome.kind === 'applied') return { applied: true, at: outcome.at };
    // Only the status guard is in play here: anything else than a refusal means no such order.
    return { applied: false, status: outcome.kind === 'refused' ? outcome.status : null };
  }
}
