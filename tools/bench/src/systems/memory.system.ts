import { dueAt, idOf, type DuePlan } from '../workloads.js';
import type { BenchSystem, FireSink } from './system.js';

function arm(plan: DuePlan, sink: FireSink, timers: Set<NodeJS.Timeout>): void {
  for (let i = 0; i < plan.count; i++) {
    const id = idOf(plan, i);
    const timer = setTimeout(() => {
      timers.delete(timer);
      sink(id, null);
    }, dueAt(plan, i) - Date.now());
    timers.add(timer);
  }
}

/**
 * In-memory `setTimeout` in the worker process: no durability, no Redis. The floor for lateness;
 * the worker schedules its own timers since there is nothing to share.
 */
export const memorySystem: BenchSystem = {
  key: 'memory',
  usesRedis: false,
  async openScheduler(_target, _prefix, local) {
    return { scheduleAll: local, close: async () => undefined };
  },
  async openWorker(_target, _settings, sink) {
    const timers = new Set<NodeJS.Timeout>();
    return {
      scheduleLocal: async (plan) => arm(plan, sink, timers),
      stop: async () => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
      },
    };
  },
};
