import type { SystemKey } from './names.js';
import type { BenchSystem } from './system.js';

/**
 * Loads one system. Dynamic imports keep a worker process from loading the libraries of the
 * systems it does not run (Nest, BullMQ), which would otherwise show up in its CPU profile.
 */
export async function loadSystem(key: SystemKey): Promise<BenchSystem> {
  switch (key) {
    case 'engine':
    case 'cluster':
      return (await import('./engine.system.js')).engineSystem;
    case 'nest':
      return (await import('./nest.system.js')).nestSystem;
    case 'bullmq':
      return (await import('./bullmq.system.js')).bullmqSystem;
    case 'memory':
      return (await import('./memory.system.js')).memorySystem;
    case 'polling':
      return (await import('./polling.system.js')).pollingSystem;
    case 'metricsOff':
    case 'metricsApi':
    case 'metricsSdk':
      return (await import('./metrics.system.js')).metricsSystem(key);
    case 'rateLimitOff':
    case 'rateLimitOn':
      return (await import('./rate-limit.system.js')).rateLimitSystem(key);
  }
}
