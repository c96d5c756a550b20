import { describe, expect, it } from '@jest/globals';
import { redisRetryDelayMs, retryDelayMs } from './retry-backoff.js';

const backoff = { baseMs: 1_000, capMs: 300_000 };

describe('retryDelayMs', () => {
  it('is d/2 with the lowest draw and d with the highest, d = min(cap, base * 2^(attempt-1))', () => {
    expect(retryDelayMs(1, backoff, () => 0)).toBe(500);
    expect(retryDelayMs(1, backoff, () => 0.999999)).toBe(1_000);
    expect(retryDelayMs(4, backoff, () => 0)).toBe(4_000);
    expect(retryDelayMs(4, backoff, () => 0.999999)).toBe(8_000);
    expect(retryDelayMs(30, backoff, () => 0)).toBe(150_000);
    expect(retryDelayMs(30, backoff, () => 0.999999)).toBe(300_000);
    expect(retryDelayMs(1_000, backoff, () => 0.999999)).toBe(300_000);
  });

  it('stays within the bounds for random draws', () => {
    for (let attempt = 1; attempt <= 20; attempt++) {
      const ceiling = Math.min(300_000, 1_000 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const delay = retryDelayMs(attempt, backoff);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('is 0 with a zero base', () => {
    expect(retryDelayMs(3, { baseMs: 0, capMs: 0 })).toBe(0);
  });
});

describe('redisRetryDelayMs', () => {
  it('grows from about 50 ms and never passes 1 s', () => {
    expect(redisRetryDelayMs(1, () => 0)).toBe(25);
    expect(redisRetryDelayMs(1, () => 0.999999)).toBe(50);
    expect(redisRetryDelayMs(100, () => 0.999999)).toBe(1_000);
    expect(redisRetryDelayMs(100, () => 0)).toBe(500);
  });
});
