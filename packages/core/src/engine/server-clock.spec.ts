import { describe, expect, it } from '@jest/globals';
import { ServerClock } from './server-clock.js';

describe('ServerClock', () => {
  it('places the store time at the middle of the call and keeps the tightest sample', () => {
    const clock = new ServerClock();
    expect(clock.known).toBe(false);
    const local = performance.now();
    clock.sample(1_000_000, local - 10, local); // rtt 10: offset = 1_000_000 - (local - 5)
    expect(clock.known).toBe(true);
    expect(clock.now() - performance.now()).toBeCloseTo(1_000_000 - (local - 5), 0);
    clock.sample(1_000_004, local - 1, local); // rtt 1, agrees within the bounds: better
    expect(clock.now() - performance.now()).toBeCloseTo(1_000_004 - (local - 0.5), 0);
    clock.sample(1_000_001, local - 8, local); // rtt 8, looser: ignored
    expect(clock.now() - performance.now()).toBeCloseTo(1_000_004 - (local - 0.5), 0);
  });

  it('follows a jump of the store clock (a manual clock moved, a server clock step)', () => {
    const clock = new ServerClock();
    const local = performance.now();
    clock.sample(5_000, local - 1, local);
    clock.sample(65_000, local - 3, local); // 60 s off the estimate, far past both error bounds
    // The estimate is now that sample's: store time 65_000 at local - 1.5 (the middle of the call).
    expect(clock.now() - performance.now()).toBeCloseTo(65_000 - (local - 1.5), 0);
  });
});
