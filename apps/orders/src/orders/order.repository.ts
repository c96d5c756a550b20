import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT, reachRedis } from '@durable-timeout/sample-app-support';
import type { OrdersConfig } from '../config/orders.config.js';
import { OrderExistsError } from './errors/order-exists.error.js';
import { OrderKeys } from './order.keys.js';
import type { OrderItem, OrderStatus, OrderView, TransitionCause } from './order.model.js';
import { parseOrder, parseStatus } from './order.parser.js';
import { CorruptOrderError } from './errors/corrupt-order.error.js';
import { CREATE_ORDER_LUA, TRANSITION_ORDER_LUA } from './order.scripts.js';

/** What a new order holds besides its id and times. */
export interface NewOrder {
  items: OrderItem[];
  amountCents: number;
  customerId?: string;
}

/** When a new order's payment is due: a time already fixed (the durable timeout's) or a delay from now. */
export type PaymentDue = { dueAt: number } | { delayMs: number };

/** Who asks for a status change, written into the transition. */
export interface TransitionRequest {
  by: TransitionCause;
  fencingToken?: number;
  attempt?: number;
  /** More fields to store on the order with the change (e.g. the payment reference). */
  fields?: Record<string, string>;
}

/** Outcome of a compare-and-set: applied (with its time), refused (with the status found), or no such order. */
export type TransitionOutcome =
  | { applied: true; at: number }
  | { applied: false; status: OrderStatus }
  | { applied: false; status: null };

interface OrderScripts {
  ordersCreate(key: string, id: string, details: string, dueAt: string, delayMs: string): Promise<unknown>;
  ordersTransition(orderKey: string, transitionsKey: string, ...args: string[]): Promise<unknown>;
}

/**
 * The orders state in Redis, shared by every instance. Each write is one Lua script: an order is
 * created once, and each status change is a compare-and-set from the expected status that appends
 * the change to the order's audit list in the same atomic step.
 */
@Injectable()
export class OrderRepository {
  private readonly keys: OrderKeys;
  private readonly scripts: OrderScripts;
  private readonly instance: string;

  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis, config: ConfigService<OrdersConfig, true>) {
    this.keys = new OrderKeys(config.get('KEY_PREFIX', { infer: true }));
    this.instance = config.get('INSTANCE_ID', { infer: true }) ?? '';
    redis.defineCommand('ordersCreate', { numberOfKeys: 1, lua: CREATE_ORDER_LUA });
    redis.defineCommand('ordersTransition', { numberOfKeys: 2, lua: TRANSITION_ORDER_LUA });
    this.scripts = redis as unknown as OrderScripts;
  }

  /** Stores a new order in PENDING_PAYMENT; returns its creation and payment due times (ms, Redis clock). */
  async create(id: string, order: NewOrder, due: PaymentDue): Promise<{ createdAt: number; paymentDueAt: number }> {
    const details = JSON.stringify({ items: order.items, amountCents: order.amountCents, customerId: order.customerId });
    const reply = await reachRedis(() =>
      this.scripts.ordersCreate(
        this.keys.order(id),
        id,
        details,
        'dueAt' in due ? String(due.dueAt) : '',
        'delayMs' in due ? String(due.delayMs) : '0',
      ),
    );
    if (reply === -1) throw new OrderExistsError(id);
    const [createdAt, paymentDueAt] = reply as [number, number];
    return { createdAt, paymentDueAt };
  }

  /** Reads an order with its transitions in one MULTI (a consistent snapshot), or null. */
  async get(id: string): Promise<OrderView | null> {
    const replies = await reachRedis(() =>
      this.redis.multi().hgetall(this.keys.order(id)).lrange(this.keys.transitions(id), 0, -1).exec(),
    );
    if (replies === null) return null;
    const [[hashError, fields], [listError, transitions]] = replies as [
      [Error | null, Record<string, string>],
      [Error | null, string[]],
    ];
    if (hashError) throw hashError;
    if (listError) throw listError;
    if (Object.keys(fields).length === 0) return null;
    return parseOrder(id, fields, transitions);
  }

  /** Compare-and-set: moves the order from `from` to `to` only if it is in `from` now. */
  async transition(id: string, from: OrderStatus, to: OrderStatus, request: TransitionRequest): Promise<TransitionOutcome> {
    const extra = Object.entries(request.fields ?? {}).flat();
    const reply = await reachRedis(() =>
      this.scripts.ordersTransition(
        this.keys.order(id),
        this.keys.transitions(id),
        from,
        to,
        request.by,
        request.fencingToken === undefined ? '' : String(request.fencingToken),
        request.attempt === undefined ? '' : String(request.attempt),
        this.instance,
        ...extra,
      ),
    );
    if (reply === -1) return { applied: false, status: null };
    const [applied, value] = reply as [number, number | string];
    if (applied === 1) return { applied: true, at: Number(value) };
    return { applied: false, status: parseStatus(value, () => new CorruptOrderError(id, 'unknown status')) };
  }
}
