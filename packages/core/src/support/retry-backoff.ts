import type { BackoffOptions } from '../types.js';

/**
 * Delay before retrying a timeout whose handler failed on `attempt` (1-based): exponential with
 * equal jitter, a uniform pick in [d/2, d] where d = min(capMs, baseMs * 2^(attempt-1)). Half the
 * delay is kept so retries never bunch up at zero; the other half spreads workers that failed
 * together (a database outage) so they do not retry in lockstep.
 */
export function retryDelayMs(attempt: number, backoff: Required<BackoffOptions>, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 62);
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** exponent);
  const half = ceiling / 2;
  return Math.min(ceiling, Math.round(half + random() * half));
}

/** Pause between two attempts of a worker call that failed on Redis: 50 ms doubling to about 1 s, with jitter. */
export function redisRetryDelayMs(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(1_000, 50 * 2 ** Math.min(Math.max(failures, 1) - 1, 10));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
