import type { OrdersClient } from '../http/orders-client.js';
import { OrderStatus } from '../report/order-view.js';
import { mapWithConcurrency } from '../util/async.js';

/** An order the demo created and follows. */
export interface TrackedOrder {
  id: string;
  /** Epoch milliseconds of its payment deadline. */
  paymentDueAt: number;
  /** Whether the demo pays it before its deadline. */
  paidOnTime: boolean;
  /** Status last seen (by a poll, or by the demo's own payment). */
  lastStatus: string;
}

/** Order counts by last seen status. */
export interface StatusCounts {
  created: number;
  pending: number;
  paid: number;
  timedOut: number;
}

const POLL_CONCURRENCY = 16;

/**
 * The orders of one mode and their last seen status. A poll reads only the orders not yet seen
 * in a final status, so it gets cheaper as orders settle.
 */
export class OrderTracker {
  readonly orders: TrackedOrder[] = [];
  private polling: Promise<StatusCounts> | undefined;

  constructor(private readonly client: OrdersClient) {}

  /** Adds an order the demo just created. */
  track(order: TrackedOrder): void {
    this.orders.push(order);
  }

  /** Earliest payment deadline of the tracked orders (epoch ms), or now when there are none. */
  get firstDeadline(): number {
    return this.orders.length ? Math.min(...this.orders.map((order) => order.paymentDueAt)) : Date.now();
  }

  /** Latest payment deadline of the tracked orders (epoch ms), or now when there are none. */
  get lastDeadline(): number {
    return this.orders.length ? Math.max(...this.orders.map((order) => order.paymentDueAt)) : Date.now();
  }

  /** Counts by last seen status, without polling. */
  counts(): StatusCounts {
    const counts: StatusCounts = { created: this.orders.length, pending: 0, paid: 0, timedOut: 0 };
    for (const order of this.orders) {
      if (order.lastStatus === OrderStatus.confirmed) counts.paid += 1;
      else if (order.lastStatus === OrderStatus.timedOut) counts.timedOut += 1;
      else counts.pending += 1;
    }
    return counts;
  }

  /** Whether a poll is running. */
  get busy(): boolean {
    return this.polling !== undefined;
  }

  /** Reads every order not yet final; joins the running poll if there is one. */
  poll(): Promise<StatusCounts> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  /** A poll that starts after any running one: its result is no older than this call. */
  async freshPoll(): Promise<StatusCounts> {
    if (this.polling) await this.polling;
    return this.poll();
  }

  private async pollOnce(): Promise<StatusCounts> {
    const open = this.orders.filter(
      (order) => order.lastStatus !== OrderStatus.confirmed && order.lastStatus !== OrderStatus.timedOut,
    );
    await mapWithConcurrency(open, POLL_CONCURRENCY, async (order) => {
      const view = await this.client.getOrder(order.id);
      if (view) order.lastStatus = view.status;
    });
    return this.counts();
  }
}
