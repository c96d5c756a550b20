import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { WAKE_TICK_MS, WakeGrid } from './wake-grid.js';

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

describe('WakeGrid', () => {
  it('wakes what falls in one tick in one timer callback, never before its delay, and at most one tick after it', async () => {
    // Start on a tick, so the delays below fall in known ticks.
    await jest.advanceTimersByTimeAsync(WAKE_TICK_MS - (performance.now() % WAKE_TICK_MS));
    const grid = new WakeGrid();
    const start = performance.now();
    const woken: [string, number][] = [];
    const at = (name: string) => () => woken.push([name, performance.now() - start]);
    grid.after(3, at('a'));
    grid.after(4, at('b'));
    grid.after(5, at('c'));
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(3);
    expect(woken).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(woken).toEqual([
      ['a', 4],
      ['b', 4],
    ]);
    await jest.advanceTimersByTimeAsync(2);
    expect(woken).toEqual([
      ['a', 4],
      ['b', 4],
      ['c', 6],
    ]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('does not run a wake-up that one before it in the same callback cancelled, and wakes a NaN delay at the next tick', async () => {
    const grid = new WakeGrid();
    const woken: string[] = [];
    let cancelSecond: () => void = () => undefined;
    grid.after(1, () => {
      woken.push('first');
      cancelSecond();
    });
    cancelSecond = grid.after(1, () => woken.push('second'));
    await jest.advanceTimersByTimeAsync(WAKE_TICK_MS + 1);
    expect(woken).toEqual(['first']);
    grid.after(Number.NaN, () => woken.push('nan'));
    await jest.advanceTimersByTimeAsync(WAKE_TICK_MS + 1);
    expect(woken).toEqual(['first', 'nan']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('forgets a cancelled wake-up, and leaves no timer once nothing waits', async () => {
    const grid = new WakeGrid();
    const woken: string[] = [];
    const cancelA = grid.after(10, () => woken.push('a'));
    const cancelB = grid.after(50, () => woken.push('b'));
    grid.after(10, () => woken.push('a2'));
    cancelA();
    await jest.advanceTimersByTimeAsync(20);
    expect(woken).toEqual(['a2']);
    cancelB();
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(100);
    expect(woken).toEqual(['a2']);
  });

  it('an earlier wake-up filed later moves the timer ahead', async () => {
    const grid = new WakeGrid();
    const woken: string[] = [];
    grid.after(1_000, () => woken.push('late'));
    grid.after(10, () => woken.push('early'));
    await jest.advanceTimersByTimeAsync(20);
    expect(woken).toEqual(['early']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(woken).toEqual(['early', 'late']);
  });
});
