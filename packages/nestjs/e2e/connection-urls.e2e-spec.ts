import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { RedisCluster, RedisSentinelGroup } from '@durable-timeout/redis-testing';
import { DurableTimeoutModule, InvalidConnectionError, OnTimeout, TimeoutScheduler, type TimeoutEvent } from '@durable-timeout/nestjs';
import { uniquePrefix, waitFor } from './support/wait-for.js';

/**
 * The Cluster and Sentinel URLs as an application configures them: one environment value read by
 * `ConfigService` in `forRootAsync`, against a real Redis Cluster and Sentinel group.
 */
const fired: string[] = [];

@Injectable()
class ReminderTimeouts {
  @OnTimeout('reminder')
  onReminder(event: TimeoutEvent): void {
    fired.push(event.id);
  }
}

/** An application context whose `REDIS_URL` is `url`, read through ConfigService as apps do. */
async function appWith(url: string): Promise<INestApplicationContext> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      DurableTimeoutModule.forRootAsync({
        imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ REDIS_URL: url })] })],
        inject: [ConfigService],
        useFactory: (config: ConfigService) => ({
          connection: config.getOrThrow<string>('REDIS_URL'),
          prefix: uniquePrefix('urls'),
          topics: { reminder: { slots: 8 } },
        }),
      }),
    ],
    providers: [ReminderTimeouts],
  }).compile();
  return moduleRef.createNestApplication({ logger: false });
}

let cluster: RedisCluster;
let group: RedisSentinelGroup;
let app: INestApplicationContext | undefined;
const hostList = (nodes: readonly { host: string; port: number }[]): string => nodes.map(({ host, port }) => `${host}:${port}`).join(',');

beforeAll(async () => {
  [cluster, group] = await Promise.all([RedisCluster.start(), RedisSentinelGroup.start({ replicas: 1, sentinels: 3 })]);
}, 180_000);

afterEach(async () => {
  await app?.close();
  app = undefined;
});

afterAll(async () => {
  await Promise.all([cluster?.stop(), group?.stop()]);
});

describe('DurableTimeoutModule with connection URLs from ConfigService', () => {
  it.each([
    ['a Redis Cluster', () => `redis+cluster://${hostList(cluster.startupNodes.slice(0, 2))}`],
    ['Sentinel', () => `redis+sentinel://${hostList(group.sentinels)}/${group.name}`],
  ])('fires through %s', async (_kind, url) => {
    app = await (await appWith(url())).init();
    const id = `reminder-${fired.length}`;
    await app.get(TimeoutScheduler).schedule('reminder', id, { delayMs: 50 });
    await waitFor(`${id} to fire`, () => fired.includes(id), 10_000);
  });

  it('fails the bootstrap with InvalidConnectionError when a one-server URL points at a Cluster node', async () => {
    const node = cluster.nodes[0]!;
    const failing = await appWith(`redis://${node.host}:${node.port}`);
    const failure = await failing.init().then(() => undefined, (error: unknown) => error);
    await failing.close().catch(() => undefined);
    expect(failure).toBeInstanceOf(InvalidConnectionError);
    expect((failure as Error).message).toContain(`redis+cluster://${node.host}:${node.port}`);
  });
});
