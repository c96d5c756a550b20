import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { checkStoreAgainstModel, type ModelSubjectFactory } from '@durable-timeout/store-model';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { ManualClock } from '../src/testing/manual-clock.js';
import { MemoryTimeoutStore } from '../src/testing/memory-timeout-store.js';

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

const redisSubject =
  (connection: () => ConstructorParameters<typeof RedisTimeoutStore>[0]['connection']): ModelSubjectFactory =>
  async () => {
    // A generous call deadline: this checks what the store does, not how fast; a loaded machine must not fail it.
    const store = new RedisTimeoutStore({ connection: connection(), prefix: `m${randomUUID().slice(0, 8)}`, commandTimeoutMs: 15_000 });
    return { store, advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), dispose: () => store.close() };
  };

describe('the stores against the reference model', () => {
  it('memory store, manual clock', async () => {
    const figures = await checkStoreAgainstModel(
      async () => {
        const clock = new ManualClock();
        const store = new MemoryTimeoutStore(clock);
        return { store, advance: async (ms) => void clock.advanceBy(ms), dispose: () => store.close() };
      },
      { runs: 400, maxCommands: 40 },
    );
    expect(figures.operations).toBeGreaterThan(400);
  });

  it('Redis, one server', async () => {
    const figures = await checkStoreAgainstModel(redisSubject(() => server.url), BOUNDED);
    expect(figures.operations).toBeGreaterThan(BOUNDED.runs);
  }, 180_000);

  it('Redis Cluster, 3 masters', async () => {
    const figures = await checkStoreAgainstModel(redisSubject(() => ({ cluster: cluster.startupNodes })), { runs: 25, maxCommands: 30 });
    expect(figures.operations).toBeGreaterThan(25);
  }, 180_000);
});
