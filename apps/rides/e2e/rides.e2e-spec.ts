import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { TimeoutEvent } from '@durable-timeout/nestjs';
import { RedisServer } from '@durable-timeout/redis-testing';
import { RiderWebhookFixture } from '../src/testing/rider-webhook.fixture.js';
import { DriverMatchTimeoutHandler } from '../src/trips/deadlines/driver-match-timeout.handler.js';
import { DRIVER_MATCH_TOPIC, PICKUP_TOPIC } from '../src/trips/deadlines/ride-topics.js';
import { TripDeadlines } from '../src/trips/deadlines/trip-deadlines.js';
import { tripIdFor } from '../src/trips/trip-request-id.js';
import type { TripView } from '../src/trips/trip.model.js';
import { eventually, sharedConfig, startRidesApp, tripBody, type RidesAppUnderTest } from './rides-app.js';

describe('rides app over HTTP', () => {
  let redis: RedisServer;
  let webhook: RiderWebhookFixture;
  const started: RidesAppUnderTest[] = [];

  const start = async (config: Parameters<typeof startRidesApp>[0]) => {
    const instance = await startRidesApp(config);
    started.push(instance);
    return instance;
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
    webhook = await RiderWebhookFixture.start();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map(({ app }) => app.close()));
    webhook.received.length = 0;
    webhook.status = 200;
  });
  afterAll(async () => {
    await webhook.stop();
    await redis.stop();
  });

  it('gives up on an unmatched trip once, and a late accept gets 409 while the driver stays free', async () => {
    const rides = await start(sharedConfig(redis.url));
    const created = await rides.http.post('/trips').send(tripBody()).expect(201);
    expect(created.body).toMatchObject({ status: 'WAITING', riderId: 'rider-1', pickup: { lat: 52.52, lng: 13.405 } });
    const { id } = created.body as { id: string };

    const gaveUp = await eventually(() => rides.trip(id), (trip) => trip.status !== 'WAITING');
    expect(gaveUp.status).toBe('DRIVER_NOT_FOUND');
    expect(gaveUp.transitions).toEqual([
      { from: 'WAITING', to: 'DRIVER_NOT_FOUND', at: expect.any(String), by: 'timeout', fencingToken: expect.any(Number), attempt: 1 },
    ]);

    const late = await rides.act(id, 'accept', 'driver-late', 409);
    expect(late.message).toContain('DRIVER_NOT_FOUND');
    expect(await rides.driver('driver-late')).toEqual({ driverId: 'driver-late', tripId: null });
    expect((await rides.trip(id)).transitions).toHaveLength(1);
  });

  it('assigns a trip to the first driver, keeps a second driver free, refuses a busy driver, and cancels the timeout', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 1_000 }));
    const id = await rides.request();
    const accepted = await rides.act(id, 'accept', 'driver-1');
    expect(accepted).toMatchObject({ id, status: 'ASSIGNED', driverId: 'driver-1' });
    expect(accepted.transitions).toEqual([{ from: 'WAITING', to: 'ASSIGNED', at: expect.any(String), by: 'accept', driverId: 'driver-1' }]);
    expect(await rides.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: id });

    await rides.act(id, 'accept', 'driver-2', 409);
    expect(await rides.driver('driver-2')).toEqual({ driverId: 'driver-2', tripId: null });

    const other = await rides.request();
    const busy = await rides.act(other, 'accept', 'driver-1', 409);
    expect(busy.message).toContain(id);
    expect((await rides.trip(other)).status).toBe('WAITING');

    // `other` was requested after `id` and times out: by then `id`'s timeout would have fired too.
    await eventually(() => rides.trip(other), (trip) => trip.status === 'DRIVER_NOT_FOUND');
    const final = await rides.trip(id);
    expect(final.status).toBe('ASSIGNED');
    expect(final.transitions).toHaveLength(1);
  });

  it('lets exactly one of an accept and a timeout win when they run at the same instant, and a losing driver stays free', async () => {
    // The accept comes over HTTP to A, the timeout's handler runs in B, with a varying head start.
    const config = sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000 });
    const a = await start(config);
    const b = await start(config);
    const handler = b.app.get(DriverMatchTimeoutHandler);
    for (let round = 0; round < 30; round++) {
      const created = (await a.http.post('/trips').send(tripBody()).expect(201)).body as { id: string; matchDueAt: string };
      const id = created.id;
      const driverId = `driver-race-${round}`;
      const event = { topic: DRIVER_MATCH_TOPIC, id, payload: null, dueAt: Date.parse(created.matchDueAt), scheduledAt: 0, attempt: 1, fencingToken: round + 1 };
      const accept = a.http.post(`/trips/${id}/accept`).send({ driverId }).then((response) => response.status);
      await new Promise((resolve) => setTimeout(resolve, round % 4));
      const [status, result] = await Promise.all([accept, handler.onDriverMatchTimeout({ ...event, signal: new AbortController().signal } as TimeoutEvent)]);
      const trip = await a.trip(id);
      expect(trip.transitions).toHaveLength(1);
      if (status === 200) {
        expect(result).toBe('ignored');
        expect(trip.status).toBe('ASSIGNED');
        expect(await a.driver(driverId)).toEqual({ driverId, tripId: id });
      } else {
        expect(status).toBe(409);
        expect(result).toBe('applied');
        expect(trip.status).toBe('DRIVER_NOT_FOUND');
        expect(await a.driver(driverId)).toEqual({ driverId, tripId: null });
      }
    }
  });

  it('answers a retried request that carries an Idempotency-Key with the same trip, and never moves its deadline (ifExists keep)', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 1_000 }));
    const post = (key: string) => rides.http.post('/trips').set('Idempotency-Key', key).send(tripBody());
    // A first attempt that armed the deadline and failed before it stored the trip (a crash, a lost reply).
    const id = tripIdFor('rider-1', 'request-7');
    const armedDueAt = await rides.app.get(TripDeadlines).armRequestedDriverMatch(id);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const first = (await post('request-7').expect(201)).body as TripView;
    expect(first).toMatchObject({ id, status: 'WAITING', matchDueAt: new Date(armedDueAt).toISOString() });
    const retried = (await post('request-7').expect(201)).body as TripView;
    expect(retried).toEqual(first);
    expect(await rides.timeouts.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: armedDueAt });
    expect(((await post('request-8').expect(201)).body as TripView).id).not.toBe(id);
    expect((await rides.http.post('/trips').set('Idempotency-Key', 'k'.repeat(129)).send(tripBody()).expect(400)).body.message).toContain('Idempotency-Key');

    const gaveUp = await eventually(() => rides.trip(id), (trip) => trip.status !== 'WAITING');
    expect(gaveUp.status).toBe('DRIVER_NOT_FOUND');
    expect(gaveUp.transitions.map(({ by }) => by)).toEqual(['timeout']);
    // A retry after the search ended (its timeout acked) answers the trip as it is and arms nothing.
    await eventually(() => rides.timeouts.get(DRIVER_MATCH_TOPIC, id), (timeout) => timeout === null);
    expect(((await post('request-7').expect(201)).body as TripView).status).toBe('DRIVER_NOT_FOUND');
    expect(await rides.timeouts.get(DRIVER_MATCH_TOPIC, id)).toBeNull();
  });

  it('gives a widened search more time: the deadline moves later, at most twice, and the trip gives up only then', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 1_500, SEARCH_EXTENSION_MS: 500 }));
    const created = (await rides.http.post('/trips').send(tripBody()).expect(201)).body as { id: string; matchDueAt: string };
    const { id } = created;
    const once = (await rides.http.post(`/trips/${id}/widen-search`).send({}).expect(200)).body as TripView;
    expect(once).toMatchObject({ status: 'WAITING', searchWidenings: 1, matchDueAt: new Date(Date.parse(created.matchDueAt) + 500).toISOString() });
    const twice = (await rides.http.post(`/trips/${id}/widen-search`).expect(200)).body as TripView;
    expect(Date.parse(twice.matchDueAt) - Date.parse(created.matchDueAt)).toBe(1_000);
    expect(await rides.timeouts.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: Date.parse(twice.matchDueAt) });
    const third = await rides.http.post(`/trips/${id}/widen-search`).send({}).expect(409);
    expect(third.body.message).toContain('the most allowed');

    const gaveUp = await eventually(() => rides.trip(id), (trip) => trip.status !== 'WAITING');
    expect(gaveUp.status).toBe('DRIVER_NOT_FOUND');
    expect(gaveUp.transitions.map(({ by }) => by)).toEqual(['widen', 'widen', 'timeout']);
    expect(Date.parse(gaveUp.transitions[2]!.at)).toBeGreaterThanOrEqual(Date.parse(twice.matchDueAt));
    const late = await rides.http.post(`/trips/${id}/widen-search`).send({}).expect(409);
    expect(late.body.message).toContain('search for a driver is over');
  });

  it('runs a whole ride: the pickup deadline is scheduled on accept, rescheduled on arrival, cancelled on start; complete frees the driver', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000 }));
    const id = await rides.request();
    const assigned = await rides.act(id, 'accept', 'driver-1');
    expect(await rides.timeouts.get(DRIVER_MATCH_TOPIC, id)).toBeNull();
    expect(await rides.timeouts.get(PICKUP_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: Date.parse(assigned.pickupDueAt!) });

    await rides.act(id, 'arrive', 'driver-2', 409);
    const arrived = await rides.act(id, 'arrive', 'driver-1');
    expect(arrived.status).toBe('ARRIVED');
    expect(await rides.timeouts.get(PICKUP_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: Date.parse(arrived.pickupDueAt!) });

    await rides.act(id, 'complete', 'driver-1', 409);
    const started = await rides.act(id, 'start', 'driver-1');
    expect(started).toMatchObject({ status: 'IN_PROGRESS', driverId: 'driver-1' });
    expect(started).not.toHaveProperty('pickupDueAt');
    expect(await rides.timeouts.get(PICKUP_TOPIC, id)).toBeNull();

    const completed = await rides.act(id, 'complete', 'driver-1');
    expect(completed.transitions.map(({ from, to, by, driverId }) => `${from}>${to} ${by} ${driverId}`)).toEqual([
      'WAITING>ASSIGNED accept driver-1',
      'ASSIGNED>ARRIVED arrive driver-1',
      'ARRIVED>IN_PROGRESS start driver-1',
      'IN_PROGRESS>COMPLETED complete driver-1',
    ]);
    expect(await rides.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
    await rides.act(id, 'start', 'driver-1', 409);
  });

  it('unassigns a driver who does not reach the pickup in time; the trip searches again and the late driver gets 409', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000, DRIVER_ARRIVAL_TIMEOUT_MS: 300 }));
    const id = await rides.request();
    await rides.act(id, 'accept', 'driver-1');

    const waiting = await eventually(() => rides.trip(id), (trip) => trip.status !== 'ASSIGNED');
    expect(waiting.status).toBe('WAITING');
    expect(waiting.transitions.at(-1)).toEqual({
      from: 'ASSIGNED',
      to: 'WAITING',
      at: expect.any(String),
      by: 'timeout',
      driverId: 'driver-1',
      fencingToken: expect.any(Number),
      attempt: 1,
    });
    expect(await rides.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
    expect(await rides.timeouts.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: Date.parse(waiting.matchDueAt) });
    expect((await rides.act(id, 'arrive', 'driver-1', 409)).message).toContain('WAITING, but arrive needs it ASSIGNED');

    await rides.act(id, 'accept', 'driver-2');
    expect((await rides.act(id, 'arrive', 'driver-1', 409)).message).toContain('not assigned to driver driver-1');
    expect(await rides.driver('driver-2')).toEqual({ driverId: 'driver-2', tripId: id });
  });

  it('ends the trip of a rider who does not board in time as RIDER_NO_SHOW, frees the driver and tells the rider', async () => {
    const rides = await start(sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 60_000, RIDER_NO_SHOW_TIMEOUT_MS: 300, RIDER_WEBHOOK_URL: webhook.url }));
    const id = await rides.request();
    await rides.act(id, 'accept', 'driver-1');
    await rides.act(id, 'arrive', 'driver-1');

    const ended = await eventually(() => rides.trip(id), (trip) => trip.status !== 'ARRIVED');
    expect(ended.status).toBe('RIDER_NO_SHOW');
    expect(await rides.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
    await eventually(async () => webhook.received.length, (count) => count > 0);
    expect(webhook.received).toEqual([{ idempotencyKey: `${id}:RIDER_NO_SHOW`, body: { tripId: id, status: 'RIDER_NO_SHOW' }, answered: 200 }]);
    expect((await rides.act(id, 'start', 'driver-1', 409)).message).toContain('RIDER_NO_SHOW');
  });

  it('lists the dead letters of a rider webhook that kept failing, and replays them once it answers', async () => {
    const rides = await start(
      sharedConfig(redis.url, { RIDER_WEBHOOK_URL: webhook.url, TIMEOUT_MAX_ATTEMPTS: 2, TIMEOUT_RETRY_BASE_MS: 50 }),
    );
    webhook.status = 503;
    const id = await rides.request();

    const dead = await eventually(
      async () => (await rides.http.get('/ops/dead-letters').query({ topic: DRIVER_MATCH_TOPIC }).expect(200)).body as { id: string }[],
      (letters) => letters.length > 0,
    );
    expect(dead).toEqual([
      { topic: DRIVER_MATCH_TOPIC, id, attempts: 2, lastError: expect.stringContaining('HTTP 503'), deadAt: expect.any(String), scheduledAt: expect.any(String) },
    ]);
    expect((await rides.http.get('/ops/dead-letters').expect(200)).body).toEqual(dead);
    expect((await rides.http.get('/ops/dead-letters').query({ topic: PICKUP_TOPIC, limit: 5 }).expect(200)).body).toEqual([]);
    // The trip changed once, on the first attempt; only the notice is missing.
    const trip = await rides.trip(id);
    expect(trip.status).toBe('DRIVER_NOT_FOUND');
    expect(trip.transitions).toHaveLength(1);

    webhook.status = 200;
    const replayed = await rides.http.post('/ops/dead-letters/replay').send({ topic: DRIVER_MATCH_TOPIC, ids: [id] }).expect(200);
    expect(replayed.body).toEqual({ topic: DRIVER_MATCH_TOPIC, replayed: 1 });
    await eventually(async () => webhook.delivered().length, (count) => count > 0);
    expect(webhook.received.map((notice) => [notice.idempotencyKey, notice.answered])).toEqual([
      [`${id}:DRIVER_NOT_FOUND`, 503],
      [`${id}:DRIVER_NOT_FOUND`, 503],
      [`${id}:DRIVER_NOT_FOUND`, 200],
    ]);
    await eventually(async () => (await rides.http.get('/ops/dead-letters').expect(200)).body as unknown[], (letters) => letters.length === 0);
    expect((await rides.trip(id)).transitions).toHaveLength(1);
  });

  it('answers 400 with a message for bad input and 404 for unknown trips', async () => {
    const rides = await start(sharedConfig(redis.url));
    const badTrips: Record<string, unknown>[] = [
      {},
      tripBody({ riderId: '' }),
      tripBody({ pickup: undefined }),
      tripBody({ pickup: { lat: 91, lng: 0 } }),
      tripBody({ dropoff: { lat: 0, lng: '13' } }),
      tripBody({ dropoff: { lat: 0, lng: 0, alt: 10 } }),
      tripBody({ fare: 12 }),
    ];
    for (const body of badTrips) {
      const response = await rides.http.post('/trips').send(body).expect(400);
      expect(response.body.message).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    const id = await rides.request();
    for (const action of ['accept', 'arrive', 'start', 'complete']) {
      await rides.http.post(`/trips/${id}/${action}`).send({}).expect(400);
      await rides.http.post(`/trips/${id}/${action}`).send({ driverId: 7 }).expect(400);
      await rides.http.post(`/trips/${id}/${action}`).send({ driverId: 'd', extra: true }).expect(400);
    }
    await rides.http.post(`/trips/${id}/widen-search`).send({ extraMs: 600_000 }).expect(400);
    const badOps: [string, Record<string, unknown>][] = [
      ['topic', { topic: 'payment' }],
      ['limit', { limit: 0 }],
      ['limit', { limit: 'all' }],
    ];
    for (const [field, query] of badOps) {
      const response = await rides.http.get('/ops/dead-letters').query(query).expect(400);
      expect(JSON.stringify(response.body.message)).toContain(field);
    }
    await rides.http.post('/ops/dead-letters/replay').send({}).expect(400);
    await rides.http.post('/ops/dead-letters/replay').send({ topic: 'payment' }).expect(400);
    await rides.http.post('/ops/dead-letters/replay').send({ topic: PICKUP_TOPIC, ids: [] }).expect(400);
    await rides.http.post('/ops/dead-letters/replay').send({ topic: PICKUP_TOPIC, ids: ['not-a-trip'] }).expect(400);

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await rides.http.get(`/trips/${unknown}`).expect(404)).body.message).toContain(unknown);
    for (const action of ['accept', 'arrive', 'start', 'complete']) await rides.act(unknown, action as 'accept', 'driver-1', 404);
    await rides.http.post(`/trips/${unknown}/widen-search`).send({}).expect(404);
    await rides.http.get('/trips/not-a-uuid').expect(404);
    expect(await rides.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
  });

  it('shares trips and timeouts between two instances: each unmatched trip gives up exactly once, also after one instance stops', async () => {
    const config = sharedConfig(redis.url, { DRIVER_MATCH_TIMEOUT_MS: 1_500, TIMEOUT_LEASE_MS: 10_000 });
    const a = await start({ ...config, INSTANCE_ID: 'a' });
    const b = await start({ ...config, INSTANCE_ID: 'b' });
    // Every driver-match handler run that completed, per instance.
    const fired = [a, b].map((instance) => {
      const ids: string[] = [];
      instance.timeouts.on('fired', ({ topic, id }) => {
        if (topic === DRIVER_MATCH_TOPIC) ids.push(id);
      });
      return ids;
    });

    const ids = await Promise.all(Array.from({ length: 12 }, () => a.request()));
    const matched = ids.slice(0, 4);
    const unmatched = ids.slice(4);
    for (const [index, id] of matched.entries()) await b.act(id, 'accept', `driver-${index}`);
    await a.app.close();
    started.splice(started.indexOf(a), 1);

    for (const id of unmatched) {
      const trip = await eventually(() => b.trip(id), (view) => view.status !== 'WAITING');
      expect(trip.status).toBe('DRIVER_NOT_FOUND');
      expect(trip.transitions).toEqual([expect.objectContaining({ by: 'timeout', instance: 'b' })]);
    }
    for (const id of matched) expect((await b.trip(id)).status).toBe('ASSIGNED');
    // Every handler run across A and B: one per unmatched trip, none for the matched ones.
    await eventually(async () => fired.flat().length, (count) => count >= unmatched.length);
    expect(fired.flat().sort()).toEqual([...unmatched].sort());
  });
});
