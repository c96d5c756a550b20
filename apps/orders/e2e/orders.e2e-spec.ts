import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { OrderExpiryService } from '../src/orders/order-expiry.service.js';
import type { OrderView } from '../src/orders/order.model.js';
import { eventually, orderBody, sharedConfig, startOrdersApp, type OrdersAppUnderTest } from './orders-app.js';

describe('orders app (durable mode) over HTTP', () => {
  let redis: RedisServer;
  const started: OrdersAppUnderTest[] = [];

  const start = async (config: Parameters<typeof startOrdersApp>[0]) => {
    const instance = await startOrdersApp(config);
    started.push(instance);
    return instance;
  };
  const read = async (instance: OrdersAppUnderTest, id: string): Promise<OrderView> => {
    const response = await instance.http.get(`/orders/${id}`).expect(200);
    return response.body as OrderView;
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map(({ app }) => app.close()));
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('times an unpaid order out once, recording the fencing token, and refuses a late payment with 409', async () => {
    const orders = await start(sharedConfig(redis.url));
    const created = await orders.http.post('/orders').send(orderBody()).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'PENDING_PAYMENT',
      createdAt: expect.any(String),
      paymentDueAt: expect.any(String),
    });
    const { id, createdAt, paymentDueAt } = created.body as { id: string; createdAt: string; paymentDueAt: string };
    expect(Date.parse(paymentDueAt) - Date.parse(createdAt)).toBeGreaterThanOrEqual(250);

    const timedOut = await eventually(() => read(orders, id), (order) => order.status !== 'PENDING_PAYMENT');
    expect(timedOut.status).toBe('PAYMENT_TIMEOUT');
    expect(timedOut.transitions).toEqual([
      { from: 'PENDING_PAYMENT', to: 'PAYMENT_TIMEOUT', at: expect.any(String), by: 'timeout', fencingToken: expect.any(Number), attempt: 1 },
    ]);
    expect(Date.parse(timedOut.transitions[0]!.at)).toBeGreaterThanOrEqual(Date.parse(paymentDueAt));

    const late = await orders.http.post(`/orders/${id}/payment`).send({ paymentRef: 'pay-late' }).expect(409);
    expect(late.body.message).toContain('PAYMENT_TIMEOUT');
    const after = await read(orders, id);
    expect(after.status).toBe('PAYMENT_TIMEOUT');
    expect(after.transitions).toHaveLength(1);
  });

  it('confirms a paid order, cancels its timeout, and answers a second payment with 409', async () => {
    const orders = await start(sharedConfig(redis.url, { PAYMENT_TIMEOUT_MS: 1_000 }));
    const { id } = (await orders.http.post('/orders').send(orderBody()).expect(201)).body as { id: string };

    const paid = await orders.http.post(`/orders/${id}/payment`).send({ paymentRef: 'pay-1' }).expect(200);
    expect(paid.body).toMatchObject({ id, status: 'CONFIRMED', items: [{ sku: 'SKU-1', qty: 2 }], amountCents: 4_200 });
    expect(paid.body.transitions).toEqual([{ from: 'PENDING_PAYMENT', to: 'CONFIRMED', at: expect.any(String), by: 'payment' }]);

    const again = await orders.http.post(`/orders/${id}/payment`).send({ paymentRef: 'pay-2' }).expect(409);
    expect(again.body.message).toContain('already paid');

    // A control order created after the paid one times out: by then the paid one's timeout
    // would have fired too, had it not been cancelled.
    const control = (await orders.http.post('/orders').send(orderBody()).expect(201)).body as { id: string };
    await eventually(() => read(orders, control.id), (order) => order.status === 'PAYMENT_TIMEOUT');
    const final = await read(orders, id);
    expect(final.status).toBe('CONFIRMED');
    expect(final.transitions).toHaveLength(1);
  });

  it('lets exactly one of a payment and a timeout win when they run at the same instant', async () => {
    // The payment comes over HTTP to A, the timeout's effect runs in B: two processes' worth of
    // connections racing on one order, with a varying head start so either side may win.
    const config = sharedConfig(redis.url, { PAYMENT_TIMEOUT_MS: 60_000 });
    const a = await start(config);
    const b = await start(config);
    const expiry = b.app.get(OrderExpiryService);
    for (let round = 0; round < 40; round++) {
      const { id } = (await a.http.post('/orders').send(orderBody()).expect(201)).body as { id: string };
      const payment = a.http.post(`/orders/${id}/payment`).send({ paymentRef: `pay-${round}` }).then((response) => response.status);
      await new Promise((resolve) => setTimeout(resolve, round % 4));
      const [status, expired] = await Promise.all([payment, expiry.expire(id, { fencingToken: round + 1, attempt: 1 })]);
      const order = await read(a, id);
      expect(order.transitions).toHaveLength(1);
      if (status === 200) {
        expect(expired).toBe(false);
        expect(order.status).toBe('CONFIRMED');
      } else {
        expect(status).toBe(409);
        expect(expired).toBe(true);
        expect(order.status).toBe('PAYMENT_TIMEOUT');
      }
    }
  });

  it('keeps every order to a single transition when payments land right at the due time of real timeouts', async () => {
    const orders = await start(sharedConfig(redis.url, { PAYMENT_TIMEOUT_MS: 300 }));
    const created = await Promise.all(
      Array.from({ length: 20 }, async () => (await orders.http.post('/orders').send(orderBody()).expect(201)).body as { id: string; paymentDueAt: string }),
    );
    const outcomes = await Promise.all(
      created.map(async ({ id, paymentDueAt }) => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(paymentDueAt) - Date.now())));
        return { id, status: (await orders.http.post(`/orders/${id}/payment`).send({ paymentRef: 'pay-at-due' })).status };
      }),
    );
    for (const { id, status } of outcomes) {
      const order = await eventually(() => read(orders, id), (view) => view.status !== 'PENDING_PAYMENT');
      expect(order.transitions).toHaveLength(1);
      expect(order.status).toBe(status === 200 ? 'CONFIRMED' : 'PAYMENT_TIMEOUT');
      expect([200, 409]).toContain(status);
    }
  });

  it('answers 400 with a message for bad bodies and 404 for unknown orders', async () => {
    const orders = await start(sharedConfig(redis.url));
    const bad: Record<string, unknown>[] = [
      {},
      orderBody({ items: [] }),
      orderBody({ items: [{ sku: 'SKU-1', qty: 0 }] }),
      orderBody({ items: [{ sku: 'SKU-1', qty: 1.5 }] }),
      orderBody({ items: [{ qty: 1 }] }),
      orderBody({ amountCents: 0 }),
      orderBody({ amountCents: '100' }),
      orderBody({ customerId: 42 }),
      orderBody({ status: 'CONFIRMED' }),
    ];
    for (const body of bad) {
      const response = await orders.http.post('/orders').send(body).expect(400);
      expect(response.body.message).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    const { id } = (await orders.http.post('/orders').send(orderBody()).expect(201)).body as { id: string };
    await orders.http.post(`/orders/${id}/payment`).send({}).expect(400);
    await orders.http.post(`/orders/${id}/payment`).send({ paymentRef: 'pay-1', amountCents: 1 }).expect(400);

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await orders.http.get(`/orders/${unknown}`).expect(404)).body.message).toContain(unknown);
    await orders.http.post(`/orders/${unknown}/payment`).send({ paymentRef: 'pay-1' }).expect(404);
    await orders.http.get('/orders/not-a-uuid').expect(404);
  });

  it('shares orders and timeouts between two instances: each unpaid order times out exactly once, also after one instance stops', async () => {
    const config = sharedConfig(redis.url, { PAYMENT_TIMEOUT_MS: 1_500, TIMEOUT_LEASE_MS: 10_000 });
    const a = await start({ ...config, INSTANCE_ID: 'a' });
    const b = await start({ ...config, INSTANCE_ID: 'b' });
    const expiryCalls = [a, b].map((instance) => {
      const expiry = instance.app.get(OrderExpiryService);
      const handled: string[] = [];
      const original = expiry.expire.bind(expiry);
      expiry.expire = (orderId, delivery) => {
        handled.push(orderId);
        return original(orderId, delivery);
      };
      return handled;
    });

    const ids = await Promise.all(
      Array.from({ length: 20 }, async () => ((await a.http.post('/orders').send(orderBody()).expect(201)).body as { id: string }).id),
    );
    const paid = ids.slice(0, 8);
    const unpaid = ids.slice(8);
    for (const id of paid) await b.http.post(`/orders/${id}/payment`).send({ paymentRef: `pay-${id}` }).expect(200);
    // A goes away (a deploy) before any deadline: its timeouts live in Redis and B fires them.
    await a.app.close();
    started.splice(started.indexOf(a), 1);

    for (const id of unpaid) {
      const order = await eventually(() => read(b, id), (view) => view.status !== 'PENDING_PAYMENT');
      expect(order.status).toBe('PAYMENT_TIMEOUT');
      expect(order.transitions).toEqual([expect.objectContaining({ by: 'timeout', instance: 'b' })]);
    }
    for (const id of paid) {
      const order = await read(b, id);
      expect(order.status).toBe('CONFIRMED');
      expect(order.transitions).toEqual([expect.objectContaining({ by: 'payment', instance: 'b' })]);
    }
    // Every handler run across A and B: one per unpaid order, none for the paid ones.
    expect(expiryCalls.flat().sort()).toEqual([...unpaid].sort());
  });
});
