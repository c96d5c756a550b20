import { describe, expect, it } from '@jest/globals';
import { InvalidClockTimeError } from './invalid-clock-time.error.js';
import { ManualClock } from './manual-clock.js';

describe('ManualClock', () => {
  it('moves only when told to', () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advanceBy(250)).toBe(1_250);
    expect(clock.now()).toBe(1_250);
    expect(clock.set(new Date(5_000))).toBe(5_000);
    expect(clock.set(6_000)).toBe(6_000);
    expect(clock.now()).toBe(6_000);
  });

  it('starts at the current time by default', () => {
    const before = Date.now();
    const now = new ManualClock().now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('refuses steps and times it cannot take', () => {
    const clock = new ManualClock(1_000);
    expect(() => clock.advanceBy(-1)).toThrow(InvalidClockTimeError);
    expect(() => clock.advanceBy(Number.NaN)).toThrow(/advanceBy/);
    expect(() => clock.set(999)).toThrow(/never goes back|before/);
    expect(() => clock.set(Number.POSITIVE_INFINITY)).toThrow(InvalidClockTimeError);
    expect(() => new ManualClock(Number.NaN)).toThrow(InvalidClockTimeError);
    expect(clock.now()).toBe(1_000);
  });

  it('tells listeners about each move until they are removed', () => {
    const clock = new ManualClock(0);
    const moves: Array<[number, number]> = [];
    const remove = clock.onAdvance((now, previous) => moves.push([now, previous]));
    clock.advanceBy(10);
    clock.advanceBy(0);
    clock.set(25);
    remove();
    clock.advanceBy(5);
    expect(moves).toEqual([
      [10, 0],
      [25, 10],
    ]);
  });
});
