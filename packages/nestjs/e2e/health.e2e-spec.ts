import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisServer } from '@durable-timeout/redis-testing';
import { DurableTimeoutModule, OnTimeout, TimeoutScheduler } from '@durable-timeout/nestjs';
import { DurableTimeoutHealthIndicator, DurableTimeoutHealthModule } from '@durable-timeout/nestjs/terminus';
import { uniquePrefix, waitFor } from './support/wait-for.js';

@Injectable()
class WorkTimeouts {
  @OnTimeout('work')
  onWork(): void {}
}

/** Status and details of the indicator's entry. */
async function check(indicator: DurableTimeoutHealthIndicator, options = {}): Promise<Record<string, unknown>> {
  const result = await indicator.isHealthy('durable-timeout', options);
  return result['durable-timeout'] as Record<string, unknown>;
}

describe('DurableTimeoutHealthIndicator against a real Redis', () => {
  let redis: RedisServer;
  let app: INestApplicationContext;
  let indicator: DurableTimeoutHealthIndicator;
  let scheduler: TimeoutScheduler;

  beforeAll(async () => {
    redis = await RedisServer.start();
    @Module({
      imports: [
        DurableTimeoutModule.forRoot({
          connection: redis.url,
          prefix: uniquePrefix('health'),
          // `orphan` has no handler in this application: nothing fires it here.
          topics: { work: { slots: 2 }, orphan: { slots: 2 } },
          commandTimeoutMs: 300,
          drainMs: 500,
          isGlobal: true,
        }),
        DurableTimeoutHealthModule,
      ],
      providers: [WorkTimeouts],
    })
    class HealthAppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [HealthAppModule] }).compile();
    app = await moduleRef.init();
    indicator = app.get(DurableTimeoutHealthIndicator);
    scheduler = app.get(TimeoutScheduler);
  });

  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('is up with its figures while Redis answers and pollers run', async () => {
    const status = await check(indicator, { topics: ['work'] });
    expect(status).toMatchObject({ status: 'up', running: true, inFlight: 0 });
    expect(status['redisLatencyMs']).toEqual(expect.any(Number));
    expect(status['topics']).toEqual({ work: { pending: 0, firing: 0, dead: 0, oldestOverdueMs: 0 } });
  });

  it('is down while Redis is paused (SIGSTOP) and up again after it resumes', async () => {
    redis.pause();
    try {
      const status = await check(indicator);
      expect(status).toMatchObject({ status: 'down' });
      expect(String(status['message'])).toMatch(/Redis|did not complete/);
    } finally {
      redis.resume();
    }
    await waitFor('the indicator to be up again', async () => (await check(indicator, { topics: ['work'] }))['status'] === 'up');
  });

  it('is down while Redis is killed and up again after it restarts', async () => {
    await redis.kill();
    const status = await check(indicator);
    expect(status).toMatchObject({ status: 'down' });
    await redis.restart();
    await waitFor('the indicator to be up again', async () => (await check(indicator, { topics: ['work'] }))['status'] === 'up', 30_000);
  });

  it('is down when an overdue backlog grows past the threshold', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, n) => scheduler.schedule('orphan', `late-${n}`, { delayMs: 0 })));
    expect(await check(indicator, { maxOverdueMs: 60_000 })).toMatchObject({ status: 'up' });
    const down = await waitFor('the backlog to be reported', async () => {
      const status = await check(indicator, { maxOverdueMs: 250 });
      return status['status'] === 'down' ? status : undefined;
    });
    expect(String(down['message'])).toContain("'orphan'");
    expect((down['topics'] as Record<string, { pending: number; oldestOverdueMs: number }>)['orphan']).toMatchObject({ pending: 20 });
    await scheduler.pause('orphan');
    try {
      // Paused, the backlog waits on purpose: the topic is listed, and the indicator is up.
      expect(await check(indicator, { maxOverdueMs: 250 })).toMatchObject({ status: 'up', pausedTopics: ['orphan'] });
    } finally {
      await scheduler.resume('orphan');
    }
    expect(await check(indicator, { maxOverdueMs: 250 })).toMatchObject({ status: 'down', pausedTopics: [] });
    for (let n = 0; n < 20; n += 1) await scheduler.cancel('orphan', `late-${n}`);
    expect(await check(indicator, { maxOverdueMs: 250 })).toMatchObject({ status: 'up' });
  });
});
