import { randomUUID } from 'node:crypto';
import { RedisTimeoutStore, type ConnectionOptions } from '@durable-timeout/core';
import { ManualClock, MemoryTimeoutStore } from '@durable-timeout/core/testing';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { checkStoreAgainstModel, type ModelRunFigures, type ModelSubjectFactory } from '@durable-timeout/store-model';
import type { Scenario, ScenarioResult } from '../harness/rig.js';

/** The long model run (`--model`): far more and longer sequences than the bounded run of `npm test`. */
const LONG = { memory: { runs: 20_000, maxCommands: 80 }, redis: { runs: 2_000, maxCommands: 80 }, cluster: { runs: 600, maxCommands: 80 } };

function redisSubject(connection: () => ConnectionOptions): ModelSubjectFactory {
  return async () => {
    // A generous call deadline: this checks what the store does, not how fast; a loaded machine must not fail it.
    const store = new RedisTimeoutStore({ connection: connection(), prefix: `m${randomUUID().slice(0, 8)}`, commandTimeoutMs: 15_000 });
    return { store, advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), dispose: () => store.close() };
  };
}

/**
 * The model-based check of the stores at length (runs only with `--model`): random sequences of
 * store calls against the reference model of libs/store-model, on the memory store, one Redis
 * server and a 3-master cluster. A failure names its seed and shrunk sequence.
 */
export const storeModel: Scenario = {
  name: 'store-model',
  run: async (context): Promise<ScenarioResult> => {
    const server = await RedisServer.start();
    const cluster = await RedisCluster.start();
    const figures: [string, ModelRunFigures][] = [];
    const failures: string[] = [];
    try {
      const subjects: [string, ModelSubjectFactory, { runs: number; maxCommands: number }][] = [
        [
          'memory',
          async () => {
            const clock = new ManualClock();
            const store = new MemoryTimeoutStore(clock);
            return { store, advance: async (ms) => void clock.advanceBy(ms), dispose: () => store.close() };
          },
          LONG.memory,
        ],
        ['Redis', redisSubject(() => server.url), LONG.redis],
        ['Redis Cluster', redisSubject(() => ({ cluster: cluster.startupNodes })), LONG.cluster],
      ];
      for (const [name, open, size] of subjects) {
        context.say(`store-model: ${name}, ${size.runs} sequences of up to ${size.maxCommands} calls`);
        try {
          figures.push([name, await checkStoreAgainstModel(open, size)]);
        } catch (error) {
          failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      await Promise.all([server.stop(), cluster.stop()]);
    }
    return {
      name: 'store-model',
      scheduled: 0,
      lost: 0,
      duplicateEffects: 0,
      duplicateDeliveries: 0,
      maxLatenessMs: 0,
      boundMs: null,
      pass: failures.length === 0,
      failures,
      notes: figures.map(([name, run]) => `${name}: ${run.runs} sequences, ${run.operations} calls, seed ${run.seed}`),
    };
  },
};
