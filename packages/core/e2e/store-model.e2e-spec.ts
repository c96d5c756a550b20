import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { checkStoreAgainstModel, memoryModelSubject, redisModelSubject } from '@durable-timeout/store-model';

// Model-based tests: random sequences of store calls, each answer checked against a small
// reference model (libs/store-model). A failure prints its seed and shrunk sequence; replay it with
// `checkStoreAgainstModel(open, { seed, path, ... })`. The long run is `npm run chaos -- --model`.

const BOUNDED = { runs: 50, maxCommands: 30 };

let server: RedisServer;
let cluster: RedisCluster;

beforeAll(async () => {
  [server, cluster] = await Promise.all([RedisServer.start(), RedisCluster.start()]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), cluster?.stop()]);
});

describe('the stores against the reference model', () => {
  it('memory store, manual clock', async () => {
    const figures = await checkStoreAgainstModel(memoryModelSubject, { runs: 400, maxCommands: 40 });
    expect(figures.operations).toBeGreaterThan(400);
  });

  it('Redis, one server', async () => {
    const figures = await checkStoreAgainstModel(redisModelSubject(() => server.url), BOUNDED);
    expect(figures.operations).toBeGreaterThan(BOUNDED.runs);
  }, 180_000);

  it('Redis Cluster, 3 masters', async () => {
    const figures = await checkStoreAgainstModel(redisModelSubject(() => ({ cluster: cluster.startupNodes })), { runs: 25, maxCommands: 30 });
    expect(figures.operations).toBeGreaterThan(25);
  }, 180_000);
});
