import type { ModeFigures } from './mode-figures.js';
import type { Verdict } from './verdict.js';

/** What `--json FILE` writes. */
export interface DemoJsonReport {
  generatedAt: string;
  options: { orders: number; timeoutMs: number };
  /** `throwaway` when the demo started its own redis-server, `REDIS_URL` otherwise. */
  redis: 'throwaway' | 'REDIS_URL';
  modes: ModeFigures[];
  verdict: Verdict;
}

/** Assembles the JSON report from the run's figures. */
export function buildJsonReport(input: {
  now: Date;
  orders: number;
  timeoutMs: number;
  ownRedis: boolean;
  modes: ModeFigures[];
  verdict: Verdict;
}): DemoJsonReport {
  return {
    generatedAt: input.now.toISOString(),
    options: { orders: input.orders, timeoutMs: input.timeoutMs },
    redis: input.ownRedis ? 'throwaway' : 'REDIS_URL',
    modes: input.modes,
    verdict: input.verdict,
  };
}
