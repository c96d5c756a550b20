import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { DURABLE_TIMEOUTS } from '@durable-timeout/nestjs';
import type { DurableTimeouts } from '@durable-timeout/core';
import { RedisServer } from '@durable-timeout/redis-testing';
import { TripExpiryService } from '../src/trips/trip-expiry.service.js';
import type { DriverView, TripView } from '../src/trips/trip.model.js';
import { eventually, sharedConfig, startRidesApp, tripBody, type RidesAppUnderTest } from './rides-app.js';

describe('rides app (durable mode) over HTTP', () => {
  let redis: RedisServer;
  const started: RidesAppUnderTest[] = [];

  const start = async (config: Parameters<typeof startRidesApp>[0]) => {
    const instance = await startRidesApp(config);
    started.push(instance);
    return instance;
  };
  const read = async (instance: RidesAppUnderTest, id: string): Promise<TripView> =>
    (await instance.http.get(`/trips/${id}`).expect(200)).body as TripView;
  const driver = async (instance: RidesAppUnderTest, driverId: string): Promise<DriverView> =>
    (await instance.http.get(`/drivers/${driverId}`).expect(200)).body as DriverView;
  const request = async (instance: RidesAppUnderTest): Promise<string> =>
    ((await instance.http.post('/trips').send(tripBody()).expect(201)).body as { id: string }).id;

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map(({ app }) => app.close()));
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('gives up on an unmatched trip once, and a late accept gets 409 while the driver stays free', async () => {
    const rides = await start(sharedConfig(redis.url));
    const created = await rides.http.post('/trips').send(tripBody()).expect(201);
    expect(created.body).toMatchObject({ status: 'WAITING', riderId: 'rider-1', pickup: { lat: 52.52, lng: 13.405 } });
    const { id } = created.body as { id: string };

    const gaveUp = await eventually(() => read(rides, id), (trip) => trip.status !== 'WAITING');
    expect(gaveUp.status).toBe('DRIVER_NOT_FOUND');
    expect(gaveUp.transitions).toEqual([
      { from: 'WAITING', to: 'DRIVER_NOT_FOUND', at: expect.any(String), by: 'timeout', fencingToken: expect.any(Number), attempt: 1 },
    ]);

    const late = await rides.http.post(`/trips/${id}/accept`).send({ driverId: 'driver-late' }).expect(409);
    expect(late.body.message).toContain('DRIVER_NOT_FOUND');
    expect(await driver(rides, 'driver-late')).toEqual({ driverId: 'driver-late', tripId: null });
    expect((await read(rides, id)).transitions).toHaveLength(1);
  });

  it('assigns a trip to the first driver, keeps a second driver free, refuses a busy driver, and cancels the timeout', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 1_000 }));
    const id = await request(rides);
    const accepted = await rides.http.post(`/trips/${id}/accept`).send({ driverId: 'driver-1' }).expect(200);
    expect(accepted.body).toMatchObject({ id, status: 'ASSIGNED', driverId: 'driver-1' });
    expect(accepted.body.transitions).toEqual([
      { from: 'WAITING', to: 'ASSIGNED', at: expect.any(String), by: 'accept', driverId: 'driver-1' },
    ]);
    expect(await driver(rides, 'driver-1')).toEqual({ driverId: 'driver-1', tripId: id });

    await rides.http.post(`/trips/${id}/accept`).send({ driverId: 'driver-2' }).expect(409);
    expect(await driver(rides, 'driver-2')).toEqual({ driverId: 'driver-2', tripId: null });

    const other = await request(rides);
    const busy = await rides.http.post(`/trips/${other}/accept`).send({ driverId: 'driver-1' }).expect(409);
    expect(busy.body.message).toContain(id);
    expect((await read(rides, other)).status).toBe('WAITING');

    // `other` was requested after `id` and times out: by then `id`'s timeout would have fired too.
    await eventually(() => read(rides, other), (trip) => trip.status === 'DRIVER_NOT_FOUND');
    const final = await read(rides, id);
    expect(final.status).toBe('ASSIGNED');
    expect(final.transitions).toHaveLength(1);
  });

  it('lets exactly one of an accept and a timeout win when they run at the same instant, and a losing driver stays free', async () => {
    // The accept comes over HTTP to A, the timeout's effect runs in B, with a varying head start.
    const config = sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000 });
    const a = await start(config);
    const b = await start(config);
    const expiry = b.app.get(TripExpiryService);
    for (let round = 0; round < 30; round++) {
      const id = await request(a);
      const driverId = `driver-race-${round}`;
      const accept = a.http.post(`/trips/${id}/accept`).send({ driverId }).then((response) => response.status);
      await new Promise((resolve) => setTimeout(resolve, round % 4));
      const [status, expired] = await Promise.all([accept, expiry.expire(id, { fencingToken: round + 1, attempt: 1 })]);
      const trip = await read(a, id);
      expect(trip.transitions).toHaveLength(1);
      if (status === 200) {
        expect(expired).toBe(false);
        expect(trip.status).toBe('ASSIGNED');
        expect(await driver(a, driverId)).toEqual({ driverId, tripId: id });
      } else {
        expect(status).toBe(409);
        expect(expired).toBe(true);
        expect(trip.status).toBe('DRIVER_NOT_FOUND');
        expect(await driver(a, driverId)).toEqual({ driverId, tripId: null });
      }
    }
  });

  it('answers 503 with Retry-After to new work once its timeouts have stopped (shutting down)', async () => {
    const rides = await start(sharedConfig(redis.url));
    await rides.app.get<DurableTimeouts>(DURABLE_TIMEOUTS).stop({ drainMs: 0 });
    const refused = await rides.http.post('/trips').send(tripBody()).expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.message).toContain('shutting down');
  });

  it('answers 400 with a message for bad bodies and 404 for unknown trips', async () => {
    const rides = await start(sharedConfig(redis.url));
    const bad: Record<string, unknown>[] = [
      {},
      tripBody({ riderId: '' }),
      tripBody({ pickup: undefined }),
      tripBody({ pickup: { lat: 91, lng: 0 } }),
      tripBody({ dropoff: { lat: 0, lng: '13' } }),
      tripBody({ dropoff: { lat: 0, lng: 0, alt: 10 } }),
      tripBody({ fare: 12 }),
    ];
    for (const body of bad) {
      const response = await rides.http.post('/trips').send(body).expect(400);
      expect(response.body.message).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    const id = await request(rides);
    await rides.http.post(`/trips/${id}/accept`).send({}).expect(400);
    await rides.http.post(`/trips/${id}/accept`).send({ driverId: 7 }).expect(400);

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await rides.http.get(`/trips/${unknown}`).expect(404)).body.message).toContain(unknown);
    await rides.http.post(`/trips/${unknown}/accept`).send({ driverId: 'driver-1' }).expect(404);
    expect(await driver(rides, 'driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
  });

  it('shares trips and timeouts between two instances: each unmatched trip gives up exactly once, also after one instance stops', async () => {
    const config = sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 1_500, TIMEOUT_LEASE_MS: 10_000 });
    const a = await start({ ...config, INSTANCE_ID: 'a' });
    const b = await start({ ...config, INSTANCE_ID: 'b' });
    const handled = [a, b].map((instance) => {
      const expiry = instance.app.get(TripExpiryService);
      const calls: string[] = [];
      const original = expiry.expire.bind(expiry);
      expiry.expire = (tripId, delivery) => {
        calls.push(tripId);
        return original(tripId, delivery);
      };
      return calls;
    });

    const ids = await Promise.all(Array.from({ length: 12 }, () => request(a)));
    const matched = ids.slice(0, 4);
    const unmatched = ids.slice(4);
    for (const [index, id] of matched.entries()) {
      await b.http.post(`/trips/${id}/accept`).send({ driverId: `driver-${index}` }).expect(200);
    }
    await a.app.close();
    started.splice(started.indexOf(a), 1);

    for (const id of unmatched) {
      const trip = await eventually(() => read(b, id), (view) => view.status !== 'WAITING');
      expect(trip.status).toBe('DRIVER_NOT_FOUND');
      expect(trip.transitions).toEqual([expect.objectContaining({ by: 'timeout', instance: 'b' })]);
    }
    for (const id of matched) expect((await read(b, id)).status).toBe('ASSIGNED');
    expect(handled.flat().sort()).toEqual([...unmatched].sort());
  });
});

describe('rides app health', () => {
  it('is up with Redis and the timeout pollers; once Redis is killed, health and the API answer 503', async () => {
    const redis = await RedisServer.start();
    const rides = await startRidesApp(sharedConfig(redis.url));
    try {
      // Right after start the pollers may not have finished their first cycle yet: wait for up.
      const up = await eventually(() => rides.http.get('/health'), (response) => response.status === 200);
      expect(up.body).toMatchObject({ status: 'ok', info: { redis: { status: 'up' }, 'durable-timeout': { status: 'up' } } });
      await redis.kill();
      const down = await eventually(() => rides.http.get('/health'), (response) => response.status === 503);

      // The API answers 503 with Retry-After (not 500) while Redis is unreachable.
      const notCreated = await rides.http.post('/trips').send(tripBody()).expect(503);
      expect(notCreated.headers['retry-after']).toBe('1');
      expect(notCreated.body.message).toContain('retry');
      const notRead = await rides.http.get('/trips/00000000-0000-4000-8000-000000000000').expect(503);
      expect(notRead.body.message).toContain('did not answer');
      expect(down.body.error).toHaveProperty('redis.status', 'down');
    } finally {
      await rides.app.close();
      await redis.stop();
    }
  });
});
