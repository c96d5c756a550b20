import { DurableTimeouts } from '@durable-timeout/core';
import { HarnessError } from '@durable-timeout/redis-testing';
import { Queue } from 'bullmq';
import { BENCH_TOPIC, engineOptions } from './systems/engine.system.js';
import { inPool, type RedisTarget } from './systems/system.js';
import type { RedisProbe } from './redis-probe.js';
import { PAYLOAD, timeoutId } from './workloads.js';

/** Timeouts per bulk call, for both systems (BullMQ's `addBulk` chunks in the firing runs are the same). */
const BULK_SIZE = 1_000;
/** Bulk calls in flight at once, for both systems. */
const BULKS_IN_FLIGHT = 4;
/** Single calls in flight at once, for both systems. */
const SINGLES_IN_FLIGHT = 1_000;
/** Every timeout is due this far ahead: nothing fires while scheduling is measured. */
const AHEAD_MS = 3_600_000;

/** One way of scheduling, measured: rate and the CPU it cost on each side, per timeout. */
export interface SchedulingFigure {
  system: 'durable-timeout' | 'bullmq';
  /** `schedule()`, `scheduleMany()`, `add()` or `addBulk()`. */
  method: string;
  count: number;
  perSec: number;
  /** CPU time (user + system) of the benchmark's main process, which only schedules here, per timeout. */
  clientCpuUsPerTimeout: number;
  /** Growth of Redis `used_cpu_user + used_cpu_sys` per timeout. */
  redisCpuUsPerTimeout: number;
}

interface Method {
  system: SchedulingFigure['system'];
  method: string;
  /** Opens the client, schedules `count` timeouts with ids from `timeoutId`, closes; `measure` wraps the scheduling only. */
  run(target: RedisTarget, prefix: string, count: number, measure: (work: () => Promise<void>) => Promise<void>): Promise<void>;
}

const METHODS: Method[] = [
  {
    system: 'durable-timeout',
    method: 'schedule()',
    run: (target, prefix, count, measure) =>
      withEngine(target, prefix, async (timeouts) => {
        await timeouts.schedule(BENCH_TOPIC, 'warm-up', { delayMs: AHEAD_MS });
        await measure(() => inPool(count, SINGLES_IN_FLIGHT, (i) => timeouts.schedule(BENCH_TOPIC, timeoutId(i), { delayMs: AHEAD_MS, payload: PAYLOAD })));
      }),
  },
  {
    system: 'durable-timeout',
    method: 'scheduleMany()',
    run: (target, prefix, count, measure) =>
      withEngine(target, prefix, async (timeouts) => {
        await timeouts.scheduleMany(BENCH_TOPIC, [{ id: 'warm-up', delayMs: AHEAD_MS }]);
        await measure(() =>
          inBulks(count, async (indexes) => {
            const results = await timeouts.scheduleMany(
              BENCH_TOPIC,
              indexes.map((i) => ({ id: timeoutId(i), delayMs: AHEAD_MS, payload: PAYLOAD })),
            );
            const failed = results.find((result) => !result.ok);
            if (failed && !failed.ok) throw failed.error;
          }),
        );
      }),
  },
  {
    system: 'bullmq',
    method: 'add()',
    run: (target, prefix, count, measure) =>
      withQueue(target, prefix, (queue) =>
        measure(() => inPool(count, SINGLES_IN_FLIGHT, (i) => queue.add('timeout', PAYLOAD, { jobId: timeoutId(i), delay: AHEAD_MS, removeOnComplete: true }))),
      ),
  },
  {
    system: 'bullmq',
    method: 'addBulk()',
    run: (target, prefix, count, measure) =>
      withQueue(target, prefix, (queue) =>
        measure(() =>
          inBulks(count, async (indexes) => {
            await queue.addBulk(indexes.map((i) => ({ name: 'timeout', data: PAYLOAD, opts: { jobId: timeoutId(i), delay: AHEAD_MS, removeOnComplete: true } })));
          }),
        ),
      ),
  },
];

/** Runs `work` with a fresh engine, stopped afterwards whatever happens. */
async function withEngine(target: RedisTarget, prefix: string, work: (timeouts: DurableTimeouts) => Promise<void>): Promise<void> {
  const timeouts = new DurableTimeouts(engineOptions(target, prefix));
  try {
    await work(timeouts);
  } finally {
    await timeouts.stop({ drainMs: 0 });
  }
}

/** Runs `work` with a fresh, ready BullMQ queue, closed afterwards whatever happens. */
async function withQueue(target: RedisTarget, prefix: string, work: (queue: Queue) => Promise<void>): Promise<void> {
  if (target.kind !== 'single') throw new HarnessError('environment', 'the scheduling comparison runs on one Redis server');
  const queue = new Queue('bench', { connection: { host: target.host, port: target.port, maxRetriesPerRequest: null }, prefix });
  try {
    await queue.waitUntilReady();
    await work(queue);
  } finally {
    await queue.close();
  }
}

/** The `count` timeout indexes in bulk calls of `BULK_SIZE`, `BULKS_IN_FLIGHT` at a time (the same for both systems). */
function inBulks(count: number, call: (indexes: number[]) => Promise<void>): Promise<void> {
  return inPool(Math.ceil(count / BULK_SIZE), BULKS_IN_FLIGHT, (chunk) => {
    const indexes: number[] = [];
    for (let i = chunk * BULK_SIZE; i < Math.min(count, (chunk + 1) * BULK_SIZE); i++) indexes.push(i);
    return call(indexes);
  });
}

/**
 * Schedules the same `count` timeouts (one hour ahead, the benchmark's 20-byte payload) four ways,
 * one after the other against the same fresh Redis: durable-timeout `schedule()` and
 * `scheduleMany()`, BullMQ `add()` and `addBulk()`, each after an unmeasured round of the same size. Single calls keep 1,000 in flight, bulk calls
 * carry 1,000 timeouts each with 4 in flight, for both systems alike. Reports the rate and the CPU
 * each side spent per timeout, so a ratio comes with its reason.
 */
export async function compareScheduling(
  target: RedisTarget,
  probe: RedisProbe,
  count: number,
  nextPrefix: () => string,
  log: (line: string) => void,
): Promise<SchedulingFigure[]> {
  const figures: SchedulingFigure[] = [];
  for (const method of METHODS) {
    // A round of the same size first, not measured: each method's own code (engine or BullMQ,
    // their ioredis paths) is then as compiled as in a process that has been scheduling for a while.
    // Without it the method measured first also pays for the JIT of the code they share.
    await probe.flushAll();
    await method.run(target, nextPrefix(), count, (work) => work());
    await probe.flushAll();
    let figure: SchedulingFigure | undefined;
    await method.run(target, nextPrefix(), count, async (work) => {
      const redisBefore = await probe.usedCpuSeconds();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await work();
      const elapsedMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const redisAfter = await probe.usedCpuSeconds();
      figure = {
        system: method.system,
        method: method.method,
        count,
        perSec: (count * 1000) / elapsedMs,
        clientCpuUsPerTimeout: (cpu.user + cpu.system) / count,
        redisCpuUsPerTimeout: ((redisAfter - redisBefore) * 1e6) / count,
      };
    });
    figures.push(figure!);
    log(`  ${method.system} ${method.method}: ${Math.round(figure!.perSec)} schedule/s, client ${figure!.clientCpuUsPerTimeout.toFixed(1)} us, Redis ${figure!.redisCpuUsPerTimeout.toFixed(1)} us CPU per timeout`);
  }
  await probe.flushAll();
  return figures;
}
