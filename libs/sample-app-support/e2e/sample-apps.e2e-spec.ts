import { describe, expect, it } from '@jest/globals';
import type { DurableTimeouts } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS } from '@durable-timeout/nestjs';
import { RedisServer } from '@durable-timeout/redis-testing';
import { ordersSubject } from '../../../apps/orders/e2e/orders-app.js';
import { ridesSubject } from '../../../apps/rides/e2e/rides-app.js';
import { eventually } from '../src/testing/eventually.js';

// What `SampleAppModule` gives every sample app (health, 503 with Retry-After), checked on each app.
describe.each([ordersSubject, ridesSubject])('$name app: the frame both sample apps share', (subject) => {
  it('is up with Redis and the timeout pollers; once Redis is killed, health and the API answer 503', async () => {
    const redis = await RedisServer.start();
    const instance = await subject.start(redis.url);
    try {
      // Right after start the pollers may not have finished their first cycle yet: wait for up.
      const up = await eventually(() => instance.http.get('/health'), (response) => response.status === 200);
      expect(up.body).toMatchObject({ status: 'ok', info: { redis: { status: 'up' }, 'durable-timeout': { status: 'up' } } });

      await redis.kill();
      const down = await eventually(() => instance.http.get('/health'), (response) => response.status === 503);

      // The API answers 503 with Retry-After (not 500) while Redis is unreachable.
      const notCreated = await subject.create(instance.http).expect(503);
      expect(notCreated.headers['retry-after']).toBe('1');
      expect(notCreated.body.message).toContain('retry');
      const notRead = await instance.http.get(subject.recordPath('00000000-0000-4000-8000-000000000000')).expect(503);
      expect(notRead.body.message).toContain('did not answer');
      expect(down.body.status).toBe('error');
      expect(down.body.error).toHaveProperty('redis.status', 'down');
    } finally {
      await instance.app.close();
      await redis.stop();
    }
  });

  it('answers 503 with Retry-After to new work once its timeouts have stopped (shutting down)', async () => {
    const redis = await RedisServer.start();
    const instance = await subject.start(redis.url);
    try {
      await instance.app.get<DurableTimeouts>(DURABLE_TIMEOUTS).stop({ drainMs: 0 });
      const refused = await subject.create(instance.http).expect(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.message).toContain('shutting down');
    } finally {
      await instance.app.close();
      await redis.stop();
    }
  });
});
