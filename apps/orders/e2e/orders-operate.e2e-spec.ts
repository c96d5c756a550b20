import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { orderBody, sharedConfig, startOrdersApp, type OrdersAppUnderTest } from './orders-app.js';

const ADMIN_TOKEN = 'orders-admin-token-0123456789';

describe('orders app (durable mode): what an operator reads', () => {
  let redis: RedisServer;
  let orders: OrdersAppUnderTest;

  beforeAll(async () => {
    redis = await RedisServer.start();
    orders = await startOrdersApp(sharedConfig(redis.url, { PAYMENT_TIMEOUT_MS: 60_000, ADMIN_TOKEN }));
  });

  afterAll(async () => {
    await orders?.app.close();
    await redis?.stop();
  });

  it('serves the timeout metrics at /metrics in the Prometheus format', async () => {
    await orders.http.post('/orders').send(orderBody()).expect(201);
    const metrics = await orders.http.get('/metrics').expect(200);
    expect(metrics.headers['content-type']).toContain('text/plain');
    const topic = 'messaging_destination_name="payment"';
    expect(metrics.text).toMatch(new RegExp(`^messaging_client_sent_messages_total\\{[^}]*${topic}[^}]*\\} 1`, 'm'));
    expect(metrics.text).toMatch(new RegExp(`^durable_timeout_pending\\{[^}]*${topic}[^}]*\\} 1`, 'm'));
    expect(metrics.text).toMatch(new RegExp(`^durable_timeout_oldest_overdue_age\\{[^}]*${topic}[^}]*\\} 0`, 'm'));
  });

  it('mounts the admin page at /timeouts behind ADMIN_TOKEN', async () => {
    expect((await orders.http.get('/timeouts')).status).toBe(401);
    const page = await orders.http.get('/timeouts').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
    expect(page.text).toContain('<h2 id="topic-title">payment</h2>');
  });
});
