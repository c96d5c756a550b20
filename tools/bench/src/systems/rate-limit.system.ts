import { RATE_LIMIT_PER_SECOND } from '../rate-limit-cost.js';
import { engineSystem, openEngineWorker } from './engine.system.js';
import type { BenchSystem } from './system.js';

/**
 * The engine whose worker's topic has a `rateLimit` far above what it can fire
 * (`rateLimitOn`: `perSecond` RATE_LIMIT_PER_SECOND, so the bucket never runs dry and every claim
 * still takes its tokens), and the same engine without one (`rateLimitOff`), run alternately on
 * the same workload. The scheduling side is the plain engine in both: the limit is taken in the claim.
 */
export function rateLimitSystem(key: 'rateLimitOff' | 'rateLimitOn'): BenchSystem {
  return {
    key,
    usesRedis: true,
    openScheduler: engineSystem.openScheduler,
    openWorker: (target, settings, sink) =>
      openEngineWorker(target, settings, sink, undefined, key === 'rateLimitOn' ? { rateLimit: { perSecond: RATE_LIMIT_PER_SECOND } } : {}),
  };
}
