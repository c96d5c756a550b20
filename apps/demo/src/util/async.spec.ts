import { describe, expect, it } from '@jest/globals';
import { mapWithConcurrency } from './async.js';

describe('mapWithConcurrency', () => {
  it('keeps the order of results and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapWithConcurrency([5, 1, 4, 2, 3, 0], 2, async (value, index) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      return `${index}:${value * 10}`;
    });
    expect(results).toEqual(['0:50', '1:10', '2:40', '3:20', '4:30', '5:0']);
    expect(peak).toBe(2);
  });

  it('resolves at once for no items', async () => {
    await expect(mapWithConcurrency([], 4, async () => 1)).resolves.toEqual([]);
  });
});
