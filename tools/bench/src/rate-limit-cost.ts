import type { RunResult } from './report.js';
import type { TargetVerdict } from './targets.js';
import { formatNumber } from './table.js';

/** The limit of the `rateLimitOn` runs: the largest the option takes, far above what one worker fires. */
export const RATE_LIMIT_PER_SECOND = 1_000_000;

/** The target: CPU per fired timeout with a rate limit that is never reached, at most this many times the CPU without one. */
export const RATE_LIMIT_MAX_RATIO = 1.1;

/** CPU per fired timeout of one setting (the median round). */
export interface RateLimitSide {
  firedPerSec: number | null;
  workerCpuUsPerFired: number | null;
  redisCpuUsPerFired: number | null;
}

/** The rate limit cost: the same workload fired without and with a `rateLimit` it never reaches. */
export interface RateLimitFigure {
  workload: string;
  perSecond: number;
  /** Rounds of each setting, alternated; each figure is the median over them. */
  rounds: number;
  off: RateLimitSide;
  on: RateLimitSide;
  /** Worker + Redis CPU per fired timeout, with the limit over without: the median of the rounds' ratios (null when no round measured both). */
  ratio: number | null;
  workerRatio: number | null;
  redisRatio: number | null;
}

/** The median of the numbers among `values` (the upper one of an even count); null when none is a number. */
function median(values: readonly (number | null)[]): number | null {
  const numbers = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  return numbers.length === 0 ? null : numbers[Math.floor(numbers.length / 2)]!;
}

function sideOf(runs: readonly RunResult[]): RateLimitSide {
  return {
    firedPerSec: median(runs.map((run) => run.firedPerSec)),
    workerCpuUsPerFired: median(runs.map((run) => run.workerCpuUsPerFired)),
    redisCpuUsPerFired: median(runs.map((run) => run.redisCpuUsPerFired)),
  };
}

function ratioOf(on: number | null, off: number | null): number | null {
  return on === null || off === null || off <= 0 ? null : on / off;
}

/**
 * The figure of alternated rounds (`offs[i]` and `ons[i]` ran one right after the other): each
 * side's median fired/s and CPU per fired, and each ratio (with over without) as the median of the
 * rounds' own ratios, so that a round the machine slowed down weighs on both of its sides alike.
 */
export function rateLimitFigure(offs: readonly RunResult[], ons: readonly RunResult[], perSecond = RATE_LIMIT_PER_SECOND): RateLimitFigure {
  const rounds = Math.min(offs.length, ons.length);
  const total = (run: RunResult) => (run.workerCpuUsPerFired === null || run.redisCpuUsPerFired === null ? null : run.workerCpuUsPerFired + run.redisCpuUsPerFired);
  const ratios = (figure: (run: RunResult) => number | null) =>
    median(Array.from({ length: rounds }, (_, i) => ratioOf(figure(ons[i]!), figure(offs[i]!))));
  return {
    workload: offs[0]?.workload ?? ons[0]?.workload ?? '-',
    perSecond,
    rounds,
    off: sideOf(offs),
    on: sideOf(ons),
    ratio: ratios(total),
    workerRatio: ratios((run) => run.workerCpuUsPerFired),
    redisRatio: ratios((run) => run.redisCpuUsPerFired),
  };
}

/** The row of the targets table: the total CPU ratio against RATE_LIMIT_MAX_RATIO (n/a when it could not be measured). */
export function rateLimitVerdict(figure: RateLimitFigure): TargetVerdict {
  const { ratio, off, on } = figure;
  const total = (side: RateLimitSide) => formatNumber((side.workerCpuUsPerFired ?? 0) + (side.redisCpuUsPerFired ?? 0), 1);
  return {
    target: `CPU per fired with a rateLimit never reached <= ${formatNumber(RATE_LIMIT_MAX_RATIO, 2)}x without (${figure.workload})`,
    measured: ratio === null ? 'not measured' : `${formatNumber(ratio, 2)}x, median of ${figure.rounds} round${figure.rounds === 1 ? '' : 's'} (medians ${total(on)} vs ${total(off)} us worker + Redis)`,
    pass: ratio === null ? null : ratio <= RATE_LIMIT_MAX_RATIO,
  };
}

/** The comparison in one line of the report: both settings' fired/s and CPU per fired, and the ratios. */
export function rateLimitLine(figure: RateLimitFigure): string {
  const side = (label: string, s: RateLimitSide) =>
    `${label} ${formatNumber(s.firedPerSec)} fired/s, worker ${formatNumber(s.workerCpuUsPerFired, 1)} us + Redis ${formatNumber(s.redisCpuUsPerFired, 1)} us CPU per timeout`;
  return (
    `Rate limit cost (${figure.workload}, median of ${figure.rounds} alternated round${figure.rounds === 1 ? '' : 's'}): ${side('no limit', figure.off)}; ` +
    `${side(`rateLimit { perSecond: ${formatNumber(figure.perSecond)} } (never reached)`, figure.on)}; ` +
    `ratio ${formatNumber(figure.ratio, 2)}x (worker ${formatNumber(figure.workerRatio, 2)}x, Redis ${formatNumber(figure.redisRatio, 2)}x; medians of the rounds' ratios).`
  );
}
