import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { DRIVER_MATCH_TOPIC, PICKUP_TOPIC } from '../src/trips/deadlines/ride-topics.js';
import { eventually, sharedConfig, startRidesApp, tripBody, type RidesAppUnderTest } from './rides-app.js';

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

describe('rides app (durable mode): an operator pauses the pickup topic during an incident', () => {
  let redis: RedisServer;
  let rides: RidesAppUnderTest;
  /** Far longer than a claim needs to fire a due pickup deadline. */
  const SETTLE_MS = 1_000;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    redis = await RedisServer.start();
    rides = await startRidesApp(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000, DRIVER_ARRIVAL_TIMEOUT_MS: 200 }));
  });

  afterAll(async () => {
    await rides?.app.close();
    await redis?.stop();
  });

  const topics = async () => (await rides.http.get('/ops/topics').expect(200)).body as { topic: string; paused: boolean; pending: number }[];

  it('fires no pickup deadline while the topic is paused, shows it paused in the status, and fires it once resumed', async () => {
    const paused = await rides.http.post(`/ops/topics/${PICKUP_TOPIC}/pause`).expect(200);
    expect(paused.body).toEqual({ topic: PICKUP_TOPIC, paused: true, pausedAt: expect.any(String) });
    const id = await rides.request();
    await rides.act(id, 'accept', 'driver-late');
    await sleep(SETTLE_MS);
    // The driver is long past the arrival deadline, but nothing fired: the trip is still assigned.
    expect(await rides.trip(id)).toMatchObject({ status: 'ASSIGNED', driverId: 'driver-late' });
    expect(await topics()).toEqual([
      { topic: DRIVER_MATCH_TOPIC, paused: false, pending: 0, firing: 0, dead: 0 },
      { topic: PICKUP_TOPIC, paused: true, pending: 1, firing: 0, dead: 0 },
    ]);

    const resumed = await rides.http.post(`/ops/topics/${PICKUP_TOPIC}/resume`).send({}).expect(200);
    expect(resumed.body).toMatchObject({ topic: PICKUP_TOPIC, resumed: true, shifted: 0 });
    expect(resumed.body.pausedMs).toBeGreaterThanOrEqual(SETTLE_MS);
    // The late driver is unassigned: the trip searches again.
    await eventually(() => rides.trip(id), (trip) => trip.status === 'WAITING');
    expect((await topics()).map((topic) => topic.paused)).toEqual([false, false]);
  });

  it('resumes with shift: the pending pickup deadline moves later by the length of the pause', async () => {
    await rides.http.post(`/ops/topics/${PICKUP_TOPIC}/pause`).expect(200);
    const id = await rides.request();
    await rides.act(id, 'accept', 'driver-shifted');
    const before = await rides.timeouts.get(PICKUP_TOPIC, id);
    await sleep(SETTLE_MS);
    expect((await rides.trip(id)).status).toBe('ASSIGNED');
    const resumed = await rides.http.post(`/ops/topics/${PICKUP_TOPIC}/resume`).send({ shift: true }).expect(200);
    expect(resumed.body).toMatchObject({ topic: PICKUP_TOPIC, resumed: true, shifted: 1 });
    // Moved by its slot's pause, which began with the topic's (within the milliseconds the pause took).
    const after = await rides.timeouts.get(PICKUP_TOPIC, id);
    expect(after).toMatchObject({ state: 'pending', scheduledAt: before!.scheduledAt });
    expect(after!.dueAt - before!.dueAt).toBeGreaterThanOrEqual(SETTLE_MS);
    expect(after!.dueAt - before!.dueAt).toBeLessThanOrEqual(resumed.body.pausedMs);
    await eventually(() => rides.trip(id), (trip) => trip.status === 'WAITING');
  });

  it('refuses an unknown topic and a shift that is not a boolean, and pausing twice keeps the first time', async () => {
    await rides.http.post('/ops/topics/payment/pause').expect(400);
    await rides.http.post(`/ops/topics/${PICKUP_TOPIC}/resume`).send({ shift: 'yes' }).expect(400);
    const first = await rides.http.post(`/ops/topics/${DRIVER_MATCH_TOPIC}/pause`).expect(200);
    const second = await rides.http.post(`/ops/topics/${DRIVER_MATCH_TOPIC}/pause`).expect(200);
    expect(second.body.pausedAt).toBe(first.body.pausedAt);
    expect((await rides.http.post(`/ops/topics/${DRIVER_MATCH_TOPIC}/resume`).expect(200)).body).toMatchObject({ resumed: true });
    expect((await rides.http.post(`/ops/topics/${DRIVER_MATCH_TOPIC}/resume`).expect(200)).body).toMatchObject({ resumed: false, pausedMs: 0 });
  });
});
