import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request, { type Agent } from 'supertest';
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
  const tag = randomUUID().slice(0, 8);
  return {
    ...loadOrdersConfig({}),
    REDIS_URL: redisUrl,
    KEY_PREFIX: `orders-${tag}`,
    DT_PREFIX: `dt-${tag}`,
    PAYMENT_TIMEOUT_MS: 300,
    TIMEOUT_LEASE_MS: 2_000,
    DRAIN_MS: 1_000,
    ...overrides,
  };
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
