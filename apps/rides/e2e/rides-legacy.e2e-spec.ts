import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { TripView } from '../src/trips/trip.model.js';
import { eventually, sharedConfig, startRidesApp, tripBody } from './rides-app.js';

describe('rides app (legacy mode: one setTimeout per trip)', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('serves the same endpoints and loses the timeout of a trip whose instance stops', async () => {
    const config = sharedConfig(redis.url, { TIMEOUT_MODE: 'legacy', DRIVER_MATCH_TIMEOUT_MS: 800 });
    const a = await startRidesApp({ ...config, INSTANCE_ID: 'a' });
    const b = await startRidesApp({ ...config, INSTANCE_ID: 'b' });
    const read = async (id: string) => (await b.http.get(`/trips/${id}`).expect(200)).body as TripView;
    const request = async (instance: typeof a) => ((await instance.http.post('/trips').send(tripBody()).expect(201)).body as { id: string }).id;
    try {
      const matched = await request(a);
      await b.http.post(`/trips/${matched}/accept`).send({ driverId: 'driver-1' }).expect(200);
      const unmatched = await request(a);
      expect((await eventually(() => read(unmatched), (trip) => trip.status !== 'WAITING')).status).toBe('DRIVER_NOT_FOUND');
      expect((await read(matched)).transitions).toHaveLength(1);

      const orphan = await request(a);
      await a.app.close();
      const control = await request(b);
      await eventually(() => read(control), (trip) => trip.status === 'DRIVER_NOT_FOUND');
      const stuck = await read(orphan);
      expect(Date.parse(stuck.matchDueAt)).toBeLessThan(Date.parse((await read(control)).matchDueAt));
      expect(stuck.status).toBe('WAITING');
      expect(stuck.transitions).toEqual([]);
    } finally {
      await Promise.all([a.app.close(), b.app.close()]);
    }
  });
});
