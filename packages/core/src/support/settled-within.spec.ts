import { describe, expect, it, jest } from '@jest/globals';
import { settledWithin } from './settled-within.js';

describe('settledWithin', () => {
  it('is true for a promise that settles in time, fulfilled or rejected', async () => {
    await expect(settledWithin(Promise.resolve(1), 1_000)).resolves.toBe(true);
    await expect(settledWithin(Promise.reject(new Error('no')), 1_000)).resolves.toBe(true);
  });

  it('is false once the time ran out, and leaves no timer behind either way', async () => {
    jest.useFakeTimers();
    try {
      const late = settledWithin(new Promise(() => undefined), 500);
      await jest.advanceTimersByTimeAsync(499);
      expect(jest.getTimerCount()).toBe(1);
      await jest.advanceTimersByTimeAsync(1);
      await expect(late).resolves.toBe(false);
      await settledWithin(Promise.resolve(), 500);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
