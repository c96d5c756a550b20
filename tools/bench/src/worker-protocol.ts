import type { FireResult } from './fire-recorder.js';
import type { SoakPlan } from './soak-plan.js';
import type { SoakSample } from './soak-recorder.js';
import type { SystemKey } from './systems/names.js';
import type { RedisTarget, WorkerSettings } from './systems/system.js';
import type { DuePlan } from './workloads.js';

/** Messages from the benchmark to a worker process. */
export type ToWorker =
  | { type: 'start'; system: SystemKey; target: RedisTarget; settings: WorkerSettings }
  | { type: 'arm'; plan: DuePlan; profileFile?: string }
  | { type: 'schedule-local'; plan: DuePlan }
  | { type: 'collect' }
  /** Starts a soak: record its orders' fires from now on (instead of a plan's). */
  | { type: 'arm-soak'; plan: SoakPlan }
  /** Asks for a soak sample (memory, CPU, fires since the last sample). */
  | { type: 'sample' }
  | { type: 'stop' };

/** Messages from a worker process to the benchmark. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'armed' }
  | { type: 'scheduled'; elapsedMs: number }
  | { type: 'progress'; fired: number }
  | { type: 'result'; result: FireResult; complete: boolean }
  | { type: 'soak-sample'; sample: SoakSample }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };
