import { parseOrderView, toEpochMs, type OrderView } from '../report/order-view.js';
import type { InstancePool } from './instance-pool.js';

/** What `POST /orders` gave back that the demo needs. */
export interface CreatedOrder {
  id: string;
  /** Epoch milliseconds of the payment deadline. */
  paymentDueAt: number;
}

/** Outcome of one payment call. */
export type PaymentOutcome = 'confirmed' | 'refused' | 'failed';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** The orders app's HTTP contract, spoken through the pool (global fetch). */
export class OrdersClient {
  constructor(private readonly pool: InstancePool) {}

  /** `POST /orders`; `undefined` when the order was not created. */
  async createOrder(sequence: number): Promise<CreatedOrder | undefined> {
    const body = {
      items: [{ sku: `DEMO-SKU-${(sequence % 7) + 1}`, qty: (sequence % 3) + 1 }],
      amountCents: 1000 + (sequence % 50) * 100,
      customerId: `demo-customer-${sequence % 25}`,
    };
    try {
      const response = await this.pool.request(
        '/orders',
        { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) },
        'not-delivered-only',
      );
      const created = await readJson(response);
      if (response.status !== 201 || !isRecord(created) || typeof created.id !== 'string') return undefined;
      const dueAt = toEpochMs(created.paymentDueAt as string | number | undefined);
      return dueAt === undefined ? undefined : { id: created.id, paymentDueAt: dueAt };
    } catch {
      return undefined;
    }
  }

  /** `POST /orders/:id/payment`: 200 confirmed, 409 refused, anything else failed. */
  async pay(id: string, paymentRef: string): Promise<PaymentOutcome> {
    try {
      const response = await this.pool.request(
        `/orders/${encodeURIComponent(id)}/payment`,
        { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ paymentRef }) },
        'not-delivered-only',
      );
      await response.body?.cancel();
      if (response.status === 200 || response.status === 201) return 'confirmed';
      return response.status === 409 ? 'refused' : 'failed';
    } catch {
      return 'failed';
    }
  }

  /** `GET /orders/:id`; `undefined` when it could not be read or does not look like an order. */
  async getOrder(id: string): Promise<OrderView | undefined> {
    try {
      const response = await this.pool.request(
        `/orders/${encodeURIComponent(id)}`,
        { method: 'GET', headers: { accept: 'application/json' } },
        'idempotent',
      );
      const body = await readJson(response);
      return response.status === 200 ? parseOrderView(body) : undefined;
    } catch {
      return undefined;
    }
  }
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
