/** Lateness figures of one run, in milliseconds. */
export interface LatenessSummary {
  p50: number;
  p99: number;
  max: number;
}

/**
 * The nearest-rank percentile of values sorted ascending: the smallest value such that at least
 * `p` percent of the values are less than or equal to it. NaN for an empty list.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (p <= 0) return sorted[0]!;
  if (p >= 100) return sorted[sorted.length - 1]!;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)]!;
}

/** p50, p99 and max of unsorted samples (the input is not modified); null when there are none. */
export function summarizeLateness(samples: readonly number[]): LatenessSummary | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  const values = Array.from(sorted);
  return { p50: percentile(values, 50), p99: percentile(values, 99), max: values[values.length - 1]! };
}

/** Events per second over `elapsedMs`; null when nothing happened or no time passed. */
export function perSecond(count: number, elapsedMs: number): number | null {
  if (count <= 0 || !(elapsedMs > 0)) return null;
  return (count * 1000) / elapsedMs;
}

/** One step of an empirical distribution: the share of samples at or below `ms`. */
export interface CdfPoint {
  ms: number;
  fraction: number;
}

/** The empirical CDF of samples: one point per distinct value, ascending (lateness is whole ms, so it stays short). */
export function cumulativeDistribution(samples: readonly number[]): CdfPoint[] {
  const sorted = Float64Array.from(samples).sort();
  const points: CdfPoint[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i + 1 < sorted.length && sorted[i + 1] === sorted[i]) continue;
    points.push({ ms: sorted[i]!, fraction: (i + 1) / sorted.length });
  }
  return points;
}
