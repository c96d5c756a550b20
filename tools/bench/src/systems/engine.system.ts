import { DurableTimeouts, type ConnectionOptions, type TopicOptions } from '@durable-timeout/core';
import type { SoakTimeout } from '../soak-plan.js';
import { dueAt, PAYLOAD, idOf, type DuePlan } from '../workloads.js';
import { inPool, type BenchSystem, type FireSink, type RedisTarget, type Worker, type WorkerSettings } from './system.js';

/** The one topic of the benchmark. */
export const BENCH_TOPIC = 'bench';

/** Slots of the benchmark topic: the engine's default. */
export const BENCH_SLOTS = 16;

/** `schedule()` calls kept in flight by the scheduler. */
const SCHEDULE_IN_FLIGHT = 1_000;

/** The engine's connection option for a target: the library's own defaults, nothing tuned. */
export function connectionOf(target: RedisTarget): ConnectionOptions {
  return target.kind === 'single' ? { host: target.host, port: target.port } : { cluster: target.nodes };
}

/** Schedules a plan through any `schedule`-shaped API: one call per timeout, many in flight. */
export async function scheduleThrough(
  schedule: (id: string, at: number) => Promise<unknown>,
  plan: DuePlan,
): Promise<void> {
  await inPool(plan.count, SCHEDULE_IN_FLIGHT, (i) => schedule(idOf(plan, i), dueAt(plan, i)));
}

/**
 * Makes the first measured call as warm as the rest: connects and loads the scripts by scheduling
 * and cancelling one timeout. BullMQ's scheduler does the same through `waitUntilReady`.
 */
export async function warmUp(schedule: (id: string, at: number) => Promise<unknown>, cancel: (id: string) => Promise<unknown>): Promise<void> {
  await schedule('warm-up', Date.now() + 3_600_000);
  await cancel('warm-up');
}

/** Options of every engine instance of the benchmark; `topic` adds to the benchmark topic's options (the rate limit runs). */
export function engineOptions(target: RedisTarget, prefix: string, topic: TopicOptions = {}) {
  return { connection: connectionOf(target), prefix, topics: { [BENCH_TOPIC]: { slots: BENCH_SLOTS, ...topic } }, logger: null };
}

/** durable-timeout used directly: `schedule()` in the main process, a started instance in the worker. */
export const engineSystem: BenchSystem = {
  key: 'engine',
  usesRedis: true,
  async openScheduler(target, prefix) {
    const timeouts = new DurableTimeouts(engineOptions(target, prefix));
    await warmUp((id, at) => timeouts.schedule(BENCH_TOPIC, id, { at }), (id) => timeouts.cancel(BENCH_TOPIC, id));
    return {
      scheduleAll: (plan) => scheduleThrough((id, at) => timeouts.schedule(BENCH_TOPIC, id, { at, payload: PAYLOAD }), plan),
      close: () => timeouts.stop({ drainMs: 0 }),
    };
  },
  async openSoakClient(target, prefix) {
    const timeouts = new DurableTimeouts(engineOptions(target, prefix));
    await warmUp((id, at) => timeouts.schedule(BENCH_TOPIC, id, { at }), (id) => timeouts.cancel(BENCH_TOPIC, id));
    // A schedule of an existing id replaces it (the default `ifExists: 'replace'`).
    const schedule = (list: readonly SoakTimeout[]) => inPool(list.length, SCHEDULE_IN_FLIGHT, (i) => timeouts.schedule(BENCH_TOPIC, list[i]!.id, { at: list[i]!.at, payload: PAYLOAD }));
    return {
      schedule,
      replace: schedule,
      cancel: (ids) => inPool(ids.length, SCHEDULE_IN_FLIGHT, (i) => timeouts.cancel(BENCH_TOPIC, ids[i]!)),
      close: () => timeouts.stop({ drainMs: 0 }),
    };
  },
  openWorker: (target, settings, sink) => openEngineWorker(target, settings, sink),
};

/**
 * A started engine instance firing into `sink`. `instrument` runs on it before it starts (the
 * metrics runs attach their metrics there) and returns what to close after it stopped; `topic`
 * adds to the benchmark topic's options.
 */
export async function openEngineWorker(
  target: RedisTarget,
  settings: WorkerSettings,
  sink: FireSink,
  instrument?: (timeouts: DurableTimeouts) => () => Promise<void>,
  topic: TopicOptions = {},
): Promise<Worker> {
  const timeouts = new DurableTimeouts(engineOptions(target, settings.prefix, topic));
  timeouts.handle(BENCH_TOPIC, (event) => {
    sink(event.id, event.dueAt);
  });
  const closeInstrument = instrument?.(timeouts);
  await timeouts.start();
  return {
    stop: async () => {
      await timeouts.stop({ drainMs: 1_000 });
      await closeInstrument?.();
    },
  };
}
