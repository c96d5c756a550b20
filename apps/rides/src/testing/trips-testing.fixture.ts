import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { TimeoutScheduler } from '@durable-timeout/nestjs';
import { DurableTimeoutTestingModule, TimeoutTestingClock } from '@durable-timeout/nestjs/testing';
import { RedisServer } from '@durable-timeout/redis-testing';
import { SampleAppModule, testSettings } from '@durable-timeout/sample-app-support';
import { loadRidesConfig, type RidesConfig } from '../config/rides.config.js';
import { ridesTopics, type RidesTopic } from '../trips/deadlines/ride-topics.js';
import { TripRepository } from '../trips/trip.repository.js';
import { TripsModule } from '../trips/trips.module.js';
import { TripsService } from '../trips/trips.service.js';
import { RiderWebhookFixture } from './rider-webhook.fixture.js';

/** The trips feature under test: real trips in Redis, timeouts in memory on a manual clock. */
export interface TripsUnderTest {
  moduleRef: TestingModule;
  config: RidesConfig;
  trips: TripsService;
  repository: TripRepository;
  scheduler: TimeoutScheduler<RidesTopic>;
  /** Moves time and runs the handlers of what became due. */
  clock: TimeoutTestingClock;
}

/** A request body for `TripsService.create`. */
export const NEW_TRIP = { riderId: 'rider-1', pickup: { lat: 52.52, lng: 13.405 }, dropoff: { lat: 52.5, lng: 13.37 } };

/**
 * Compiles the trips module the way a user tests their handlers: `DurableTimeoutTestingModule`
 * instead of `DurableTimeoutModule` (same `TimeoutScheduler`, same `@OnTimeout` discovery, nothing
 * fires until the clock moves), the app's own state in a real Redis at `redisUrl`.
 */
export async function startTripsUnderTest(redisUrl: string, overrides: Partial<RidesConfig> = {}): Promise<TripsUnderTest> {
  const config: RidesConfig = { ...loadRidesConfig({}), ...testSettings(redisUrl, 'rides'), ...overrides };
  const moduleRef = await Test.createTestingModule({
    imports: [
      SampleAppModule.forRoot({ name: 'rides', config, durableTimeouts: false }),
      DurableTimeoutTestingModule.forRoot({ topics: ridesTopics(config), logger: null, isGlobal: true }),
      TripsModule,
    ],
  }).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return {
    moduleRef,
    config,
    trips: moduleRef.get(TripsService),
    repository: moduleRef.get(TripRepository),
    scheduler: moduleRef.get<TimeoutScheduler<RidesTopic>>(TimeoutScheduler),
    clock: moduleRef.get(TimeoutTestingClock),
  };
}

/** What `useTripsTestBed` gives a spec. */
export interface TripsTestBed {
  /** Compiles the trips module with `defaults` and then `overrides` (closed after the test). */
  start(overrides?: Partial<RidesConfig>): Promise<TripsUnderTest>;
  /** The rider webhook the trips notify (answers 200 again and forgets its requests after each test). */
  readonly webhook: RiderWebhookFixture;
}

/**
 * Registers the hooks of a spec about the trips feature: one Redis server and one rider webhook
 * for the spec, a fresh trips module per test (closed after it) with RIDER_WEBHOOK_URL set.
 */
export function useTripsTestBed(defaults: Partial<RidesConfig>): TripsTestBed {
  let redis: RedisServer;
  let webhook: RiderWebhookFixture;
  let current: TripsUnderTest | undefined;
  beforeAll(async () => {
    redis = await RedisServer.start();
    webhook = await RiderWebhookFixture.start();
  });
  afterEach(async () => {
    await current?.moduleRef.close();
    current = undefined;
    webhook.received.length = 0;
    webhook.status = 200;
  });
  afterAll(async () => {
    await webhook.stop();
    await redis.stop();
  });
  return {
    start: async (overrides = {}) => {
      current = await startTripsUnderTest(redis.url, { RIDER_WEBHOOK_URL: webhook.url, ...defaults, ...overrides });
      return current;
    },
    get webhook() {
      return webhook;
    },
  };
}
