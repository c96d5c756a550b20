import { describe, expect, it } from '@jest/globals';
import { overTheLimit, perSecondCounts } from './flow-control.js';

describe('perSecondCounts', () => {
  it('counts times in whole seconds from the first, leaving out earlier ones', () => {
    expect(perSecondCounts([1_000, 1_999, 2_000, 4_500, 500], 1_000)).toEqual([2, 1, 0, 1]);
  });
});

describe('overTheLimit', () => {
  it('allows the burst on top of the first second, and a second refill in each later one', () => {
    expect(overTheLimit([2_000, 1_000, 1_050, 1_000], 1_000, 1_000)).toEqual([]);
  });

  it('flags a first second over burst + refill + 5 %', () => {
    expect(overTheLimit([2_051, 1_000], 1_000, 1_000)).toHaveLength(1);
  });

  it('flags a later second over the refill once the burst is spent', () => {
    expect(overTheLimit([2_000, 1_051], 1_000, 1_000)).toEqual([expect.stringMatching(/^second 1: 1051 > 1050/)]);
  });

  it('lets a second use what the one before left unused, never more than the burst', () => {
    expect(overTheLimit([2_000, 800, 1_200], 1_000, 1_000)).toEqual([]);
    expect(overTheLimit([1_000, 0, 0, 3_100], 1_000, 1_000)).toHaveLength(1);
  });

  it('flags an unlimited catch-up', () => {
    expect(overTheLimit([5_000], 1_000, 1_000)).toHaveLength(1);
  });
});
