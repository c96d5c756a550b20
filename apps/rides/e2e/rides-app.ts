import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request, { type Agent } from 'supertest';
import type { DurableTimeouts } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS } from '@durable-timeout/nestjs';
import { testSettings } from '@durable-timeout/sample-app-support';
import { AppModule } from '../src/app.module.js';
import { loadRidesConfig, type RidesConfig } from '../src/config/rides.config.js';
import type { DriverView, TripView } from '../src/trips/trip.model.js';

/** Polls until a condition holds (shared with the other sample app). */
export { eventually } from '@durable-timeout/sample-app-support';

/** One running rides app for a test, with an HTTP client bound to it. */
export interface RidesAppUnderTest {
  app: INestApplication;
  http: Agent;
  config: RidesConfig;
  /** The app's durable-timeout engine (its events, `get`). */
  timeouts: DurableTimeouts;
  /** `GET /trips/:id`, expecting 200. */
  trip(id: string): Promise<TripView>;
  /** `GET /drivers/:driverId`, expecting 200. */
  driver(driverId: string): Promise<DriverView>;
  /** `POST /trips` with a valid body, expecting 201; the new trip's id. */
  request(): Promise<string>;
  /** `POST /trips/:id/<action>` by `driverId`, expecting `status`; the response body. */
  act(id: string, action: 'accept' | 'arrive' | 'start' | 'complete', driverId: string, status?: number): Promise<TripView & { message?: string }>;
}

/**
 * Settings shared by the instances of one test: same Redis and prefixes, so they share state and
 * timeouts. The driver must reach the pickup and the rider board within a minute unless a test
 * says otherwise, so those deadlines fire only in the tests about them.
 */
export function sharedConfig(redisUrl: string, overrides: Partial<RidesConfig> = {}): RidesConfig {
  return {
    ...loadRidesConfig({}),
    ...testSettings(redisUrl, 'rides'),
    DRIVER_MATCH_TIMEOUT_MS: 300,
    DRIVER_ARRIVAL_TIMEOUT_MS: 60_000,
    RIDER_NO_SHOW_TIMEOUT_MS: 60_000,
    ...overrides,
  };
}

/** Starts the app exactly as `main.ts` does (shutdown hooks aside), listening on a random port. */
export async function startRidesApp(config: RidesConfig): Promise<RidesAppUnderTest> {
  const app = await NestFactory.create(AppModule.register(config), { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  const http = request(app.getHttpServer());
  return {
    app,
    http,
    config,
    timeouts: app.get<DurableTimeouts>(DURABLE_TIMEOUTS),
    trip: async (id) => (await http.get(`/trips/${id}`).expect(200)).body as TripView,
    driver: async (driverId) => (await http.get(`/drivers/${driverId}`).expect(200)).body as DriverView,
    request: async () => ((await http.post('/trips').send(tripBody()).expect(201)).body as { id: string }).id,
    act: async (id, action, driverId, status = 200) => (await http.post(`/trips/${id}/${action}`).send({ driverId }).expect(status)).body,
  };
}

/** A valid `POST /trips` body. */
export function tripBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { riderId: 'rider-1', pickup: { lat: 52.52, lng: 13.405 }, dropoff: { lat: 52.5, lng: 13.37 }, ...overrides };
}

/** The rides app as the specs of what both sample apps share drive it (libs/sample-app-support/e2e). */
export const ridesSubject = {
  name: 'rides',
  start: (redisUrl: string) => startRidesApp(sharedConfig(redisUrl)),
  create: (http: Agent) => http.post('/trips').send(tripBody()),
  recordPath: (id: string) => `/trips/${id}`,
};
