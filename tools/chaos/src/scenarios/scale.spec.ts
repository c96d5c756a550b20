import { describe, expect, it } from '@jest/globals';
import { claimFigures } from './scale.js';

describe('claimFigures', () => {
  it('takes the worst duration among claim calls only (those given a :seq key)', () => {
    const entries: Array<[number, number, number, string[]]> = [
      [1, 0, 900, ['evalsha', 'abc', '3', 'p:{t:0}:due', 'p:{t:0}:lease', 'p:{t:0}:seq']],
      [2, 0, 5000, ['evalsha', 'def', '3', 'p:{t:0}:due', 'p:{t:0}:lease', 'p:{t:0}:dead']],
      [3, 0, 1200, ['evalsha', 'abc', '3', 'p:{t:1}:due', 'p:{t:1}:lease', 'p:{t:1}:seq']],
    ];
    expect(claimFigures(entries, 1_000)).toEqual({ worst: 1200, claims: 2, p99: 1200, median: 1200, over: 1, stalls: 0 });
  });

  it('counts plain commands of 1 ms or more as machine stalls, not scripts or SLOWLOG itself', () => {
    const entries: Array<[number, number, number, string[]]> = [
      [1, 0, 6_000, ['ZADD', 'p:{t:0}:due', '1', 'a']],
      [2, 0, 999, ['HGET', 'p:{t:0}:d:1', 'a']],
      [3, 0, 9_000, ['evalsha', 'def', '3', 'p:{t:0}:due', 'p:{t:0}:lease', 'p:{t:0}:dead']],
      [4, 0, 60_000, ['SLOWLOG', 'RESET']],
    ];
    expect(claimFigures(entries, 5_000)).toMatchObject({ claims: 0, worst: 0, stalls: 1 });
  });
});
