import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { sharedConfig, startRidesApp, tripBody, type RidesAppUnderTest } from './rides-app.js';

describe('rides app (durable mode): what an operator reads', () => {
  let redis: RedisServer;
  let rides: RidesAppUnderTest;

  beforeAll(async () => {
    redis = await RedisServer.start();
    rides = await startRidesApp(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000 }));
  });

  afterAll(async () => {
    await rides?.app.close();
    await redis?.stop();
  });

  it('serves the timeout metrics at /metrics, and mounts no admin page without ADMIN_TOKEN', async () => {
    await rides.http.post('/trips').send(tripBody()).expect(201);
    const metrics = await rides.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^durable_timeout_pending\{[^}]*messaging_destination_name="driver-match"[^}]*\} 1/m);
    expect((await rides.http.get('/timeouts')).status).toBe(404);
  });
});
