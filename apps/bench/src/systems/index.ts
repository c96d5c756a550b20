import { bullmqSystem } from './bullmq.system.js';
import { engineSystem } from './engine.system.js';
import { memorySystem } from './memory.system.js';
import type { SystemKey } from './names.js';
import { nestSystem } from './nest.system.js';
import { pollingSystem } from './polling.system.js';
import type { BenchSystem } from './system.js';

/** Every system by key. The cluster run uses the engine system against a cluster target. */
export const SYSTEMS: Record<Exclude<SystemKey, 'cluster'>, BenchSystem> = {
  engine: engineSystem,
  nest: nestSystem,
  bullmq: bullmqSystem,
  memory: memorySystem,
  polling: pollingSystem,
};

/** The system a worker process runs. */
export function systemOf(key: SystemKey): BenchSystem {
  return key === 'cluster' ? engineSystem : SYSTEMS[key];
}
