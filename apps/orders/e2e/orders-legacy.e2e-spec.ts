import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { OrderView } from '../src/orders/order.model.js';
import { eventually, orderBody, sharedConfig, startOrdersApp } from './orders-app.js';

describe('orders app (legacy mode: one setTimeout per order)', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('serves the same endpoints, times out in the creating process, and loses the timeout when that process stops', async () => {
    const config = sharedConfig(redis.url, { TIMEOUT_MODE: 'legacy', PAYMENT_TIMEOUT_MS: 800 });
    const a = await startOrdersApp({ ...config, INSTANCE_ID: 'a' });
    const b = await startOrdersApp({ ...config, INSTANCE_ID: 'b' });
    const read = async (id: string) => (await b.http.get(`/orders/${id}`).expect(200)).body as OrderView;
    try {
      const health = await a.http.get('/health').expect(200);
      expect(health.body.info).toEqual({ redis: expect.objectContaining({ status: 'up' }) });

      const paid = ((await a.http.post('/orders').send(orderBody()).expect(201)).body as { id: string }).id;
      await b.http.post(`/orders/${paid}/payment`).send({ paymentRef: 'pay-1' }).expect(200);
      const timedOut = ((await a.http.post('/orders').send(orderBody()).expect(201)).body as { id: string }).id;
      const order = await eventually(() => read(timedOut), (view) => view.status !== 'PENDING_PAYMENT');
      expect(order.status).toBe('PAYMENT_TIMEOUT');
      expect(order.transitions).toEqual([expect.objectContaining({ by: 'timeout', instance: 'a' })]);
      await a.http.post(`/orders/${timedOut}/payment`).send({ paymentRef: 'pay-2' }).expect(409);
      // The paid order's timer lives in A, which never saw the payment: it fired there and changed nothing.
      expect((await read(paid)).transitions).toHaveLength(1);

      // The failure the durable mode fixes: A stops (a deploy), and its pending timer dies with it.
      const orphan = ((await a.http.post('/orders').send(orderBody()).expect(201)).body as { id: string }).id;
      await a.app.close();
      const control = ((await b.http.post('/orders').send(orderBody()).expect(201)).body as { id: string }).id;
      await eventually(() => read(control), (view) => view.status === 'PAYMENT_TIMEOUT');
      const stuck = await read(orphan);
      expect(Date.parse(stuck.paymentDueAt)).toBeLessThan(Date.parse((await read(control)).paymentDueAt));
      expect(stuck.status).toBe('PENDING_PAYMENT');
      expect(stuck.transitions).toEqual([]);
    } finally {
      await Promise.all([a.app.close(), b.app.close()]);
    }
  });
});
