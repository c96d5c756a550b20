import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Inject, Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import type { ConnectionOptions } from '@durable-timeout/core';
import { DurableTimeoutModule, OnTimeout, TimeoutScheduler, type TimeoutEvent } from '@durable-timeout/nestjs';
import { uniquePrefix, waitFor } from './support/wait-for.js';

const INSTANCE_NAME = 'INSTANCE_NAME';

/** Every firing in either instance. */
const firings: { instance: string; id: string; attempt: number }[] = [];

@Injectable()
class OrderTimeouts {
  constructor(@Inject(INSTANCE_NAME) private readonly instance: string) {}

  @OnTimeout('order')
  onOrderTimeout(event: TimeoutEvent<{ n: number }>): void {
    firings.push({ instance: this.instance, id: event.id, attempt: event.attempt });
  }
}

async function bootInstance(name: string, connection: ConnectionOptions, prefix: string): Promise<INestApplicationContext> {
  const moduleRef = await Test.createTestingModule({
    imports: [DurableTimeoutModule.forRoot({ connection, prefix, topics: { order: { slots: 8 } }, drainMs: 1_000 })],
    providers: [OrderTimeouts, { provide: INSTANCE_NAME, useValue: name }],
  }).compile();
  return moduleRef.init();
}

describe('two Nest instances sharing one Redis (or one Redis Cluster)', () => {
  let redis: RedisServer;
  const apps: INestApplicationContext[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await redis?.stop();
  });

  it('fires each timeout scheduled through one of them exactly once, in either', async () => {
    await expectEachFiredOnce(redis.url, uniquePrefix('two'));
  });

  it('does the same on a 3-master Redis Cluster (connection: { cluster })', async () => {
    const cluster = await RedisCluster.start();
    try {
      // The default connection, auto-pipelining on: the store's scripts take a fixed key count, so
      // a burst of schedules over many shards pipelines per shard.
      const connection = { cluster: cluster.startupNodes };
      await expectEachFiredOnce(connection, uniquePrefix('cluster'));
    } finally {
      for (const app of apps.splice(0)) await app.close();
      await cluster.stop();
    }
  });

  async function expectEachFiredOnce(connection: ConnectionOptions, prefix: string): Promise<void> {
    firings.length = 0;
    const a = await bootInstance('a', connection, prefix);
    apps.push(a);
    const b = await bootInstance('b', connection, prefix);
    apps.push(b);
    const schedulerA = a.get(TimeoutScheduler);
    await Promise.all([schedulerA.waitUntilReady(), b.get(TimeoutScheduler).waitUntilReady()]);

    const ids = Array.from({ length: 60 }, (_, n) => `order-${n}`);
    await Promise.all(ids.map((id, n) => schedulerA.schedule('order', id, { delayMs: (n % 6) * 40, payload: { n } })));

    await waitFor('every timeout to fire', () => new Set(firings.map((f) => f.id)).size === ids.length);
    // Once acknowledged a timeout is gone from Redis: no instance can fire it again after this.
    await waitFor('every timeout to be acknowledged', async () => {
      const stats = await schedulerA.stats('order');
      return stats.pending === 0 && stats.firing === 0;
    });
    const perId = new Map<string, number>();
    for (const firing of firings) perId.set(firing.id, (perId.get(firing.id) ?? 0) + 1);
    expect([...perId.entries()].filter(([, count]) => count !== 1)).toEqual([]);
    expect(firings.every((firing) => firing.attempt === 1)).toBe(true);
    expect(firings.filter((firing) => !['a', 'b'].includes(firing.instance))).toEqual([]);
    for (const id of ids.slice(0, 5)) expect(await schedulerA.get('order', id)).toBeNull();
  }
});
