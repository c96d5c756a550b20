import { describe, expect, it } from '@jest/globals';
import { busiestWindow } from './idle.js';

describe('busiestWindow', () => {
  it('finds the most events within any window, inside the watch only', () => {
    const times = [50, 1_000, 1_500, 5_000, 10_900, 11_000, 11_200, 30_000];
    expect(busiestWindow(times, 100, 40_000, 10_000)).toBe(5);
    expect(busiestWindow(times, 100, 40_000, 1_000)).toBe(3);
    expect(busiestWindow([], 0, 10_000, 10_000)).toBe(0);
  });
});
