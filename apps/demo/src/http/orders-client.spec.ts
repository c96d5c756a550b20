import { describe, expect, it } from '@jest/globals';
import type { InstancePool, RetryPolicy } from './instance-pool.js';
import { OrdersClient } from './orders-client.js';

interface SentRequest {
  path: string;
  init: RequestInit;
  retry: RetryPolicy;
}

function clientAnswering(answer: (request: SentRequest) => Response | Error) {
  const sent: SentRequest[] = [];
  const pool = {
    request: async (path: string, init: RequestInit, retry: RetryPolicy) => {
      const request = { path, init, retry };
      sent.push(request);
      const outcome = answer(request);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  } as unknown as InstancePool;
  return { client: new OrdersClient(pool), sent };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

describe('OrdersClient', () => {
  it('creates an order with a valid body, only retried when it was not delivered', async () => {
    const dueAt = '2026-01-01T00:00:04.000Z';
    const { client, sent } = clientAnswering(() => json(201, { id: 'o-1', status: 'PENDING_PAYMENT', paymentDueAt: dueAt }));
    await expect(client.createOrder(3)).resolves.toEqual({ id: 'o-1', paymentDueAt: Date.parse(dueAt) });
    expect(sent[0].path).toBe('/orders');
    expect(sent[0].retry).toBe('not-delivered-only');
    const body = JSON.parse(String(sent[0].init.body));
    expect(body.items[0]).toEqual({ sku: expect.any(String), qty: expect.any(Number) });
    expect(body.amountCents).toBeGreaterThan(0);
  });

  it.each([
    ['a 400', json(400, { message: 'bad' })],
    ['a body without id', json(201, { paymentDueAt: 5 })],
    ['a body without deadline', json(201, { id: 'o-1' })],
    ['a body that is not JSON', new Response('<html>', { status: 201 })],
    ['a network error', new TypeError('fetch failed')],
  ])('reports no order for %s', async (_label, answer) => {
    const { client } = clientAnswering(() => answer);
    await expect(client.createOrder(0)).resolves.toBeUndefined();
  });

  it.each([
    [200, 'confirmed'],
    [201, 'confirmed'],
    [409, 'refused'],
    [404, 'failed'],
    [500, 'failed'],
  ] as const)('maps payment status %i to %s', async (status, outcome) => {
    const { client, sent } = clientAnswering(() => json(status, {}));
    await expect(client.pay('id/with slash', 'ref-1')).resolves.toBe(outcome);
    expect(sent[0].path).toBe('/orders/id%2Fwith%20slash/payment');
    expect(JSON.parse(String(sent[0].init.body))).toEqual({ paymentRef: 'ref-1' });
  });

  it('counts a payment without an answer as failed', async () => {
    const { client } = clientAnswering(() => new TypeError('fetch failed'));
    await expect(client.pay('o-1', 'ref')).resolves.toBe('failed');
  });

  it('reads an order with an idempotent GET, and nothing for a 404 or a body of the wrong shape', async () => {
    const order = { id: 'o-1', status: 'CONFIRMED', createdAt: 1, paymentDueAt: 2, transitions: [] };
    const { client, sent } = clientAnswering(({ path }) =>
      path.endsWith('o-1') ? json(200, order) : path.endsWith('odd') ? json(200, { id: 7 }) : json(404, {}),
    );
    await expect(client.getOrder('o-1')).resolves.toEqual(order);
    expect(sent[0].retry).toBe('idempotent');
    await expect(client.getOrder('gone')).resolves.toBeUndefined();
    await expect(client.getOrder('odd')).resolves.toBeUndefined();
  });
});
