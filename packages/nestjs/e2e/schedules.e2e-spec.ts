import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Inject, Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisServer } from '@durable-timeout/redis-testing';
import {
  DURABLE_TIMEOUTS, DurableTimeoutModule, DuplicateHandlerError, InvalidScheduleError, OnSchedule, UnknownTopicError,
  type DurableTimeouts, type ScheduleOccurrence,
} from '@durable-timeout/nestjs';
import { uniquePrefix, waitFor } from './support/wait-for.js';

const INSTANCE_NAME = 'INSTANCE_NAME';

/** Every occurrence run in either instance. */
const runs: { instance: string; at: number; payload: unknown }[] = [];

@Injectable()
class Heartbeat {
  constructor(@Inject(INSTANCE_NAME) private readonly instance: string) {}

  @OnSchedule('heartbeat', { everyMs: 1_000, payload: { kind: 'beat' } })
  beat(occurrence: ScheduleOccurrence<{ kind: string }>): void {
    runs.push({ instance: this.instance, at: occurrence.occurrenceAt, payload: occurrence.payload });
  }
}

@Injectable()
class Nightly {
  @OnSchedule('nightly-report', { cron: '0 2 * * *', timeZone: 'Europe/Berlin' })
  report(): void {}
}

@Injectable()
class NightlyAgain {
  @OnSchedule('nightly-report', { cron: '0 3 * * *' })
  report(): void {}
}

@Injectable()
class BadCron {
  @OnSchedule('bad', { cron: '0 25 * * *' })
  run(): void {}
}

async function boot(redis: RedisServer, prefix: string, providers: unknown[], topics: Record<string, object> = { schedules: { slots: 2 } }) {
  const moduleRef = await Test.createTestingModule({
    imports: [DurableTimeoutModule.forRoot({ connection: redis.url, prefix, topics, drainMs: 2_000 })],
    providers: providers as never[],
  }).compile();
  return moduleRef.init();
}

describe('@OnSchedule on a real Redis', () => {
  let redis: RedisServer;
  const apps: INestApplicationContext[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await redis?.stop();
  });

  it('declares the schedules at bootstrap and runs each occurrence once across two applications', async () => {
    const prefix = uniquePrefix('sched');
    apps.push(await boot(redis, prefix, [Heartbeat, Nightly, { provide: INSTANCE_NAME, useValue: 'a' }]));
    apps.push(await boot(redis, prefix, [Heartbeat, Nightly, { provide: INSTANCE_NAME, useValue: 'b' }]));
    const engine = apps[0]!.get<DurableTimeouts>(DURABLE_TIMEOUTS);
    const listed = await engine.schedules.list();
    expect(listed.map((schedule) => [schedule.name, schedule.cron ?? schedule.everyMs, schedule.timeZone])).toEqual([
      ['heartbeat', 1_000, undefined],
      ['nightly-report', '0 2 * * *', 'Europe/Berlin'],
    ]);
    await waitFor('four occurrences', () => runs.length >= 4, 10_000);
    const times = runs.map((run) => run.at);
    expect(new Set(times).size).toBe(times.length);
    expect(runs.every((run) => (run.payload as { kind: string }).kind === 'beat')).toBe(true);
    for (const app of apps.splice(0)) await app.close();
  }, 30_000);

  it('refuses two handlers of one schedule, a missing schedules topic, and a bad cron expression', async () => {
    await expect(boot(redis, uniquePrefix('dup'), [Nightly, NightlyAgain])).rejects.toThrow(DuplicateHandlerError);
    await expect(boot(redis, uniquePrefix('notopic'), [Nightly], { order: {} })).rejects.toThrow(UnknownTopicError);
    await expect(boot(redis, uniquePrefix('bad'), [BadCron])).rejects.toThrow(InvalidScheduleError);
  }, 30_000);
});
