import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { checkStoreAgainstModel, memoryModelSubject, redisModelSubject, type ModelRunFigures, type ModelSubjectFactory } from '@durable-timeout/store-model';
import { uncountedResult, type Scenario, type ScenarioResult } from '../harness/rig.js';

/** The long model run (`--model`): far more and longer sequences than the bounded run of `npm test`. */
const LONG = { memory: { runs: 20_000, maxCommands: 80 }, redis: { runs: 2_000, maxCommands: 80 }, cluster: { runs: 600, maxCommands: 80 } };

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
        ['memory', memoryModelSubject, LONG.memory],
        ['Redis', redisModelSubject(() => server.url), LONG.redis],
        ['Redis Cluster', redisModelSubject(() => ({ cluster: cluster.startupNodes })), LONG.cluster],
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
    return uncountedResult(
      'store-model',
      failures,
      figures.map(([name, run]) => `${name}: ${run.runs} sequences, ${run.operations} calls, seed ${run.seed}`),
    );
  },
};
