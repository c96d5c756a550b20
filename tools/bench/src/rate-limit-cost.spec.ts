import { describe, expect, it } from '@jest/globals';
import { failedRun, toJsonReport, type BenchReport, type RunResult } from './report.js';
import { RATE_LIMIT_MAX_RATIO, rateLimitFigure, rateLimitLine, rateLimitVerdict } from './rate-limit-cost.js';
import { evaluateTargets } from './targets.js';

const burst = { name: 'burst 50k', count: 50_000 };

function runOf(system: string, workerCpuUsPerFired: number | null, redisCpuUsPerFired: number | null, firedPerSec = 40_000): RunResult {
  return { ...failedRun(system, burst), firedPerSec, workerCpuUsPerFired, redisCpuUsPerFired, fired: burst.count };
}

describe('rateLimitFigure', () => {
  it('takes the median of each side, and each ratio as the median of the rounds\' own ratios', () => {
    const offs = [runOf('off', 10, 20), runOf('off', 12, 18), runOf('off', 30, 25)];
    const ons = [runOf('on', 11, 21), runOf('on', 9, 22), runOf('on', 40, 40)];
    const figure = rateLimitFigure(offs, ons, 1_000);
    expect(figure.off).toEqual({ firedPerSec: 40_000, workerCpuUsPerFired: 12, redisCpuUsPerFired: 20 });
    expect(figure.on).toEqual({ firedPerSec: 40_000, workerCpuUsPerFired: 11, redisCpuUsPerFired: 22 });
    // Rounds' total ratios: 32/30, 31/30, 80/55; worker: 1.1, 0.75, 1.33; Redis: 1.05, 1.22, 1.6.
    expect(figure.ratio).toBeCloseTo(32 / 30, 10);
    expect(figure.workerRatio).toBeCloseTo(1.1, 10);
    expect(figure.redisRatio).toBeCloseTo(22 / 18, 10);
    expect(figure).toMatchObject({ workload: 'burst 50k', perSecond: 1_000, rounds: 3 });
  });

  it('has no ratio when a side measured nothing (a run that broke)', () => {
    const figure = rateLimitFigure([runOf('off', null, null)], [runOf('on', 10, 10)]);
    expect(figure.ratio).toBeNull();
    expect(rateLimitVerdict(figure)).toMatchObject({ measured: 'not measured', pass: null });
  });
});

describe('rateLimitVerdict', () => {
  it(`passes at ${RATE_LIMIT_MAX_RATIO}x and fails above it`, () => {
    const at = rateLimitVerdict(rateLimitFigure([runOf('off', 10, 10)], [runOf('on', 11, 11)]));
    expect(at).toEqual({
      target: 'CPU per fired with a rateLimit never reached <= 1.10x without (burst 50k)',
      measured: '1.10x, median of 1 round (medians 22.0 vs 20.0 us worker + Redis)',
      pass: true,
    });
    expect(rateLimitVerdict(rateLimitFigure([runOf('off', 10, 10)], [runOf('on', 11, 11.1)])).pass).toBe(false);
  });
});

describe('the rate limit cost in the report', () => {
  const figure = rateLimitFigure([runOf('off', 10, 20)], [runOf('on', 10.5, 21)]);
  const report: BenchReport = { quick: true, environment: [], runs: [], idle: null, clusterSpread: [], bullmqSingleAdd: null, rateLimit: figure };

  it('prints one line with both sides and the ratios', () => {
    expect(rateLimitLine(figure)).toBe(
      'Rate limit cost (burst 50k, median of 1 alternated round): no limit 40,000 fired/s, worker 10.0 us + Redis 20.0 us CPU per timeout; ' +
        'rateLimit { perSecond: 1,000,000 } (never reached) 40,000 fired/s, worker 10.5 us + Redis 21.0 us CPU per timeout; ratio 1.05x (worker 1.05x, Redis 1.05x; medians of the rounds\' ratios).',
    );
  });

  it('adds its verdict to the targets and its figure to the JSON, only when it ran', () => {
    expect(evaluateTargets(report).at(-1)).toMatchObject({ measured: '1.05x, median of 1 round (medians 31.5 vs 30.0 us worker + Redis)', pass: true });
    expect(toJsonReport(report).rateLimit).toMatchObject({ ratio: 1.05, off: { workerCpuUsPerFired: 10 } });
    const without = { ...report, rateLimit: undefined };
    expect(evaluateTargets(without).some((verdict) => verdict.target.includes('rateLimit'))).toBe(false);
    expect(toJsonReport(without)).not.toHaveProperty('rateLimit');
  });
});
