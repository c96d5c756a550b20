import { describe, expect, it } from '@jest/globals';
import { cumulativeDistribution, percentile, perSecond, summarizeLateness } from './stats.js';

describe('percentile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('uses the nearest rank', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 99.5)).toBe(100);
    expect(percentile([3, 7, 9], 50)).toBe(7);
  });

  it('clamps at both ends and is NaN for no data', () => {
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('summarizeLateness', () => {
  it('sorts a copy numerically and reports p50, p99 and max', () => {
    const samples = [10, 2, 100, 1, 3];
    expect(summarizeLateness(samples)).toEqual({ p50: 3, p99: 100, max: 100 });
    expect(samples).toEqual([10, 2, 100, 1, 3]);
  });

  it('keeps one outlier out of p99 with enough samples', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => (i === 500 ? 5000 : i % 10));
    expect(summarizeLateness(samples)).toEqual({ p50: 5, p99: 9, max: 5000 });
  });

  it('is null without samples', () => {
    expect(summarizeLateness([])).toBeNull();
  });
});

describe('perSecond', () => {
  it('scales a count over milliseconds', () => {
    expect(perSecond(500, 250)).toBe(2000);
  });

  it('is null when nothing can be said', () => {
    expect(perSecond(0, 100)).toBeNull();
    expect(perSecond(10, 0)).toBeNull();
  });
});

describe('cumulativeDistribution', () => {
  it('gives the share at or below each distinct value, ascending', () => {
    expect(cumulativeDistribution([3, 1, 1, 2])).toEqual([
      { ms: 1, fraction: 0.5 },
      { ms: 2, fraction: 0.75 },
      { ms: 3, fraction: 1 },
    ]);
    expect(cumulativeDistribution([])).toEqual([]);
  });
});
