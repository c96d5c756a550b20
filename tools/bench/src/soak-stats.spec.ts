import { describe, expect, it } from '@jest/globals';
import { growthOf, histogramPercentile, latenessWithin, linearTrend, mergeHistogram, minuteLateness } from './soak-stats.js';

describe('linearTrend', () => {
  it('fits a line exactly through points on it, with no error', () => {
    const trend = linearTrend([0, 1, 2, 3].map((x) => ({ x, y: 5 + 2 * x })));
    expect(trend.slope).toBeCloseTo(2, 12);
    expect(trend.slopeStandardError).toBeCloseTo(0, 12);
  });

  it('gives the textbook standard error of the slope', () => {
    // y = 0, 2, 1, 3 at x = 0..3: slope 0.8, residuals -0.2, 1, -0.8, 0.4 (sum of squares 1.8), Sxx 5.
    const trend = linearTrend([0, 2, 1, 3].map((y, x) => ({ x, y })));
    expect(trend.slope).toBeCloseTo(0.8, 12);
    expect(trend.slopeStandardError).toBeCloseTo(Math.sqrt(1.8 / 2 / 5), 12);
  });

  it('has no slope under 2 points and no error under 3', () => {
    expect(linearTrend([{ x: 1, y: 1 }]).slope).toBeNaN();
    expect(linearTrend([{ x: 1, y: 1 }, { x: 2, y: 3 }]).slopeStandardError).toBeNaN();
    expect(linearTrend([{ x: 1, y: 1 }, { x: 1, y: 3 }, { x: 1, y: 2 }]).slope).toBeNaN();
  });
});

describe('growthOf', () => {
  const every10s = (bytesAt: (k: number) => number, count = 13) => Array.from({ length: count }, (_, k) => ({ atMs: k * 10_000, bytes: bytesAt(k) }));

  it('leaves out the first minute and reports bytes per hour', () => {
    // Fast growth in the first minute (filling up), then 1,000 bytes per 10 s = 360,000 per hour, exactly.
    const growth = growthOf(every10s((k) => (k < 6 ? k * 1e6 : 6e6 + (k - 6) * 1_000)));
    expect(growth.samples).toBe(7);
    expect(growth.bytesPerHour).toBeCloseTo(360_000, 6);
    expect(growth.verdict).toBe('growing');
  });

  it('is flat when the slope is within 2 standard errors of zero', () => {
    const sawtooth = growthOf(every10s((k) => 50e6 + (k % 2 === 0 ? 1e6 : -1e6)));
    expect(sawtooth.verdict).toBe('flat');
    expect(Math.abs(sawtooth.bytesPerHour!)).toBeLessThanOrEqual(sawtooth.noiseBytesPerHour!);
  });

  it('calls a slope beyond the noise growing or shrinking', () => {
    expect(growthOf(every10s((k) => 50e6 + k * 1e5 + (k % 2) * 1e3)).verdict).toBe('growing');
    expect(growthOf(every10s((k) => 50e6 - k * 1e5 + (k % 2) * 1e3)).verdict).toBe('shrinking');
  });

  it('needs 3 samples after the first minute', () => {
    expect(growthOf(every10s(() => 1, 8))).toEqual({ bytesPerHour: null, noiseBytesPerHour: null, samples: 2, verdict: 'too few samples' });
  });
});

describe('lateness histograms', () => {
  it('take nearest-rank percentiles, as over the samples they count', () => {
    const histogram = new Map<number, number>();
    mergeHistogram(histogram, [[1, 90], [3, 9]]);
    mergeHistogram(histogram, [[40, 1], [1, 0]]);
    expect(histogramPercentile(histogram, 50)).toBe(1);
    expect(histogramPercentile(histogram, 90)).toBe(1);
    expect(histogramPercentile(histogram, 99)).toBe(3);
    expect(histogramPercentile(histogram, 100)).toBe(40);
    expect(histogramPercentile(new Map([[-1, 1], [2, 1]]), 50)).toBe(-1);
    expect(histogramPercentile(new Map(), 99)).toBeNull();
  });

  it('hold every minute to the limit', () => {
    const minutes = minuteLateness([new Map([[2, 120_000]]), new Map([[2, 100], [9, 5]]), new Map()]);
    expect(minutes.map((m) => [m.minute, m.fired, m.p99Ms])).toEqual([[1, 120_000, 2], [2, 105, 9], [3, 0, null]]);
    expect(latenessWithin(minutes.slice(0, 1), 5)).toEqual({ worstP99Ms: 2, minutesOver: 0, pass: true });
    expect(latenessWithin(minutes.slice(0, 2), 5)).toEqual({ worstP99Ms: 9, minutesOver: 1, pass: false });
    // A minute that fired nothing cannot pass.
    expect(latenessWithin([minutes[0]!, minutes[2]!], 5).pass).toBe(false);
    expect(latenessWithin([], 5).pass).toBeNull();
  });
});
