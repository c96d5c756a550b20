import type { FireResult } from './fire-recorder.js';
import type { SystemKey } from './systems/names.js';
import type { RedisTarget, WorkerSettings } from './systems/system.js';
import type { DuePlan } from './workloads.js';

/** Messages from the benchmark to a worker process. */
export type ToWorker =
  | { type: 'start'; system: SystemKey; target: RedisTarget; settings: WorkerSettings }
  | { type: 'arm'; plan: DuePlan; profileFile?: string }
  | { type: 'schedule-local'; plan: DuePlan }
  | { type: 'collect' }
  | { type: 'stop' };

/** Messages from a worker process to the benchmark. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'armed' }
  | { type: 'scheduled'; elapsedMs: number }
  | { type: 'progress'; fired: number }
  | { type: 'result'; result: FireResult; complete: boolean }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };
