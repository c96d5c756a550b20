import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request, { type Agent } from 'supertest';
import { testSettings } from '@durable-timeout/sample-app-support';
import { AppModule } from '../src/app.module.js';
import { loadOrdersConfig, type OrdersConfig } from '../src/config/orders.config.js';

/** Polls until a condition holds (shared with the other sample app). */
export { eventually } from '@durable-timeout/sample-app-support';

/** One running orders app for a test, with an HTTP client bound to it. */
export interface OrdersAppUnderTest {
  app: INestApplication;
  http: Agent;
  config: OrdersConfig;
}

/** Settings shared by the instances of one test: same Redis and prefixes, so they share state and timeouts. */
export function sharedConfig(redisUrl: string, overrides: Partial<OrdersConfig> = {}): OrdersConfig {
  return { ...loadOrdersConfig({}), ...testSettings(redisUrl, 'orders'), PAYMENT_TIMEOUT_MS: 300, ...overrides };
}

/** Starts the app exactly as `main.ts` does (shutdown hooks aside), listening on a random port. */
export async function startOrdersApp(config: OrdersConfig): Promise<OrdersAppUnderTest> {
  const app = await NestFactory.create(AppModule.register(config), { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  return { app, http: request(app.getHttpServer()), config };
}

/** A valid `POST /orders` body. */
export function orderBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { items: [{ sku: 'SKU-1', qty: 2 }], amountCents: 4_200, customerId: 'customer-1', ...overrides };
}

/** The orders app as the specs of what both sample apps share drive it (libs/sample-app-support/e2e). */
export const ordersSubject = {
  name: 'orders',
  start: (redisUrl: string) => startOrdersApp(sharedConfig(redisUrl)),
  create: (http: Agent) => http.post('/orders').send(orderBody()),
  recordPath: (id: string) => `/orders/${id}`,
};
