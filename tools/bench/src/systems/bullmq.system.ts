import { Queue, Worker as BullWorker } from 'bullmq';
import type { SoakTimeout } from '../soak-plan.js';
import { dueAt, PAYLOAD, idOf, timeoutId, type DuePlan } from '../workloads.js';
import { inPool, type BenchSystem, type RedisTarget } from './system.js';
import { benchMessages } from '../bench.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

const QUEUE = 'bench';

/** Jobs per `addBulk` call, as in BASELINE.md. */
const BULK_SIZE = 1_000;

/** `addBulk` calls in flight at once. */
const BULKS_IN_FLIGHT = 4;

function connectionOf(target: RedisTarget) {
  if (target.kind !== 'single') throw new HarnessError('environment', benchMessages.singleServerOnly('BullMQ'));
  return { host: target.host, port: target.port, maxRetriesPerRequest: null };
}

async function addPlan(queue: Queue, plan: DuePlan): Promise<void> {
  const chunks = Math.ceil(plan.count / BULK_SIZE);
  await inPool(chunks, BULKS_IN_FLIGHT, async (chunk) => {
    const now = Date.now();
    const jobs = [];
    for (let i = chunk * BULK_SIZE; i < Math.min(plan.count, (chunk + 1) * BULK_SIZE); i++) {
      jobs.push({
        name: 'timeout',
        data: PAYLOAD,
        opts: { jobId: idOf(plan, i), delay: Math.max(0, dueAt(plan, i) - now), removeOnComplete: true },
      });
    }
    await queue.addBulk(jobs);
  });
}

/** Adds delayed jobs in `addBulk` chunks, as `addPlan` does. */
async function addTimeouts(queue: Queue, timeouts: readonly SoakTimeout[]): Promise<void> {
  await inPool(Math.ceil(timeouts.length / BULK_SIZE), BULKS_IN_FLIGHT, async (chunk) => {
    const now = Date.now();
    await queue.addBulk(
      timeouts.slice(chunk * BULK_SIZE, (chunk + 1) * BULK_SIZE).map(({ id, at }) => ({
        name: 'timeout',
        data: PAYLOAD,
        opts: { jobId: id, delay: Math.max(0, at - now), removeOnComplete: true },
      })),
    );
  });
}

/** `add()` calls in flight when BullMQ is measured one call per timeout, as the engine is. */
const ADDS_IN_FLIGHT = 1_000;

/**
 * schedule/s of BullMQ with one `add()` per timeout, many in flight (the way durable-timeout is
 * measured), for comparison with its `addBulk` figure. Leaves the jobs in Redis.
 */
export async function measureSingleAdds(target: RedisTarget, prefix: string, count: number): Promise<number> {
  const queue = new Queue(QUEUE, { connection: connectionOf(target), prefix });
  try {
    await queue.waitUntilReady();
    const delay = 3_600_000;
    const started = performance.now();
    await inPool(count, ADDS_IN_FLIGHT, (i) => queue.add('timeout', PAYLOAD, { jobId: timeoutId(i), delay, removeOnComplete: true }));
    return (count * 1000) / (performance.now() - started);
  } finally {
    await queue.close();
  }
}

/**
 * BullMQ delayed jobs with the settings of BASELINE.md: `addBulk` in chunks of 1,000 (not one
 * call per timeout: this is how BullMQ is fastest), `jobId` per timeout, `removeOnComplete`, one
 * `Worker` with the run's concurrency, `maxRetriesPerRequest: null`.
 */
export const bullmqSystem: BenchSystem = {
  key: 'bullmq',
  usesRedis: true,
  async openScheduler(target, prefix) {
    const queue = new Queue(QUEUE, { connection: connectionOf(target), prefix });
    await queue.waitUntilReady();
    return { scheduleAll: (plan) => addPlan(queue, plan), close: () => queue.close() };
  },
  async openSoakClient(target, prefix) {
    const queue = new Queue(QUEUE, { connection: connectionOf(target), prefix });
    await queue.waitUntilReady();
    const remove = (ids: readonly string[]) => inPool(ids.length, ADDS_IN_FLIGHT, (i) => queue.remove(ids[i]!));
    return {
      schedule: (timeouts) => addTimeouts(queue, timeouts),
      cancel: remove,
      // A job id already in the queue is not added again: a new due time is a remove and an add.
      replace: async (timeouts) => {
        await remove(timeouts.map((t) => t.id));
        await addTimeouts(queue, timeouts);
      },
      close: () => queue.close(),
    };
  },
  async openWorker(target, settings, sink) {
    const worker = new BullWorker(
      QUEUE,
      async (job) => {
        sink(job.id ?? '', null);
      },
      { connection: connectionOf(target), prefix: settings.prefix, concurrency: settings.concurrency },
    );
    worker.on('error', () => {
      // connection errors surface as missing fires, which the run reports
    });
    await worker.waitUntilReady();
    return { stop: () => worker.close() };
  },
};
