import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request, { type Agent } from 'supertest';
import { AppModule } from '../src/app.module.js';
import { loadRidesConfig, type RidesConfig } from '../src/config/rides.config.js';

/** Polls until a condition holds (shared with the other sample app). */
export { eventually } from '@durable-timeout/sample-app-support';

/** One running rides app for a test, with an HTTP client bound to it. */
export interface RidesAppUnderTest {
  app: INestApplication;
  http: Agent;
  config: RidesConfig;
}

/** Settings shared by the instances of one test: same Redis and prefixes, so they share state and timeouts. */
export function sharedConfig(redisUrl: string, overrides: Partial<RidesConfig> = {}): RidesConfig {
  const tag = randomUUID().slice(0, 8);
  return {
    ...loadRidesConfig({}),
    REDIS_URL: redisUrl,
    KEY_PREFIX: `rides-${tag}`,
    DT_PREFIX: `dt-${tag}`,
    DRIVER_MATCH_TIMEOUT_MS: 300,
    TIMEOUT_LEASE_MS: 2_000,
    DRAIN_MS: 1_000,
    ...overrides,
  };
}

/** Starts the app exactly as `main.ts` does (shutdown hooks aside), listening on a random port. */
export async function startRidesApp(config: RidesConfig): Promise<RidesAppUnderTest> {
  const app = await NestFactory.create(AppModule.register(config), { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  return { app, http: request(app.getHttpServer()), config };
}

/** A valid `POST /trips` body. */
export function tripBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { riderId: 'rider-1', pickup: { lat: 52.52, lng: 13.405 }, dropoff: { lat: 52.5, lng: 13.37 }, ...overrides };
}
