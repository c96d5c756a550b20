// The arithmetic of a soak: memory growth per hour with its verdict, lateness percentiles from
// histograms, and the per-minute lateness verdict. Pure functions; docs/BENCHMARKS.md, "Soak".

/** Samples taken in the first minute of the window are left out of the growth (caches, JIT, pools filling). */
export const GROWTH_SKIP_MS = 60_000;

/** A growth is flat when it is within this many standard errors of zero. */
export const NOISE_STANDARD_ERRORS = 2;

/** A least-squares line through points, with the standard error of its slope. */
export interface LinearTrend {
  /** Change of y per unit of x. */
  slope: number;
  /** Standard error of the slope from the points' scatter around the line (NaN under 3 points). */
  slopeStandardError: number;
  points: number;
}

/** The least-squares line through `points`; NaN slope under 2 points, NaN standard error under 3. */
export function linearTrend(points: readonly { x: number; y: number }[]): LinearTrend {
  const n = points.length;
  if (n < 2) return { slope: Number.NaN, slopeStandardError: Number.NaN, points: n };
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - meanX) ** 2;
    sxy += (p.x - meanX) * (p.y - meanY);
  }
  if (sxx === 0) return { slope: Number.NaN, slopeStandardError: Number.NaN, points: n };
  const slope = sxy / sxx;
  if (n < 3) return { slope, slopeStandardError: Number.NaN, points: n };
  let residuals = 0;
  for (const p of points) residuals += (p.y - meanY - slope * (p.x - meanX)) ** 2;
  return { slope, slopeStandardError: Math.sqrt(residuals / (n - 2) / sxx), points: n };
}

/** `flat`: within noise of zero; `growing` / `shrinking`: beyond it; `too few samples`: under 3 after the first minute. */
export type GrowthVerdict = 'flat' | 'growing' | 'shrinking' | 'too few samples';

/** The growth of one memory figure over a soak. */
export interface Growth {
  /** Least-squares slope over the samples after the first minute, bytes per hour (null: too few samples). */
  bytesPerHour: number | null;
  /** `NOISE_STANDARD_ERRORS` standard errors of that slope, bytes per hour: the noise band around zero. */
  noiseBytesPerHour: number | null;
  /** Samples the slope was fitted to. */
  samples: number;
  verdict: GrowthVerdict;
}

/** One memory sample: ms since the window started, bytes. */
export interface MemoryPoint {
  atMs: number;
  bytes: number;
}

/** Growth per hour of samples taken after the first minute, flat when |slope| <= 2 standard errors of the slope. */
export function growthOf(samples: readonly MemoryPoint[]): Growth {
  const points = samples.filter((s) => s.atMs >= GROWTH_SKIP_MS).map((s) => ({ x: s.atMs / 3_600_000, y: s.bytes }));
  const trend = linearTrend(points);
  if (points.length < 3 || !Number.isFinite(trend.slope) || !Number.isFinite(trend.slopeStandardError)) {
    return { bytesPerHour: null, noiseBytesPerHour: null, samples: points.length, verdict: 'too few samples' };
  }
  const noise = NOISE_STANDARD_ERRORS * trend.slopeStandardError;
  const verdict: GrowthVerdict = Math.abs(trend.slope) <= noise ? 'flat' : trend.slope > 0 ? 'growing' : 'shrinking';
  return { bytesPerHour: trend.slope, noiseBytesPerHour: noise, samples: points.length, verdict };
}

/** Lateness counts by whole millisecond: [lateness ms, fires] pairs. */
export type LatenessHistogram = Map<number, number>;

/** Adds `from`'s counts into `into`. */
export function mergeHistogram(into: LatenessHistogram, from: Iterable<readonly [number, number]>): void {
  for (const [ms, count] of from) into.set(ms, (into.get(ms) ?? 0) + count);
}

/** Nearest-rank percentile of a histogram (as `percentile` in stats.ts over the samples it counts); null when empty. */
export function histogramPercentile(histogram: LatenessHistogram, p: number): number | null {
  const keys = [...histogram.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const ms of keys) total += histogram.get(ms)!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * total));
  let seen = 0;
  for (const ms of keys) {
    seen += histogram.get(ms)!;
    if (seen >= rank) return ms;
  }
  return keys[keys.length - 1]!;
}

/** Fires and lateness percentiles of one minute of the window. */
export interface MinuteLateness {
  /** 1 for the first minute of the window. */
  minute: number;
  fired: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** Percentiles of each minute's histogram. */
export function minuteLateness(minutes: readonly LatenessHistogram[]): MinuteLateness[] {
  return minutes.map((histogram, i) => {
    let fired = 0;
    for (const count of histogram.values()) fired += count;
    return { minute: i + 1, fired, p50Ms: histogramPercentile(histogram, 50), p99Ms: histogramPercentile(histogram, 99), maxMs: histogramPercentile(histogram, 100) };
  });
}

/** Whether every minute's p99 is within `limitMs`: null when no minute has a figure. */
export function latenessWithin(minutes: readonly MinuteLateness[], limitMs: number): { worstP99Ms: number | null; minutesOver: number; pass: boolean | null } {
  const measured = minutes.filter((m) => m.p99Ms !== null);
  if (measured.length === 0) return { worstP99Ms: null, minutesOver: 0, pass: null };
  const over = measured.filter((m) => m.p99Ms! > limitMs).length;
  return { worstP99Ms: Math.max(...measured.map((m) => m.p99Ms!)), minutesOver: over, pass: over === 0 && measured.length === minutes.length };
}
