import { describe, expect, it } from '@jest/globals';
import { worstClaimMicros } from './scale.js';

describe('worstClaimMicros', () => {
  it('takes the worst duration among claim calls only (those given a :seq key)', () => {
    const entries: Array<[number, number, number, string[]]> = [
      [1, 0, 900, ['evalsha', 'abc', '3', 'p:{t:0}:due', 'p:{t:0}:lease', 'p:{t:0}:seq']],
      [2, 0, 5000, ['evalsha', 'def', '3', 'p:{t:0}:due', 'p:{t:0}:lease', 'p:{t:0}:dead']],
      [3, 0, 1200, ['evalsha', 'abc', '3', 'p:{t:1}:due', 'p:{t:1}:lease', 'p:{t:1}:seq']],
    ];
    expect(worstClaimMicros(entries)).toEqual({ worst: 1200, claims: 2, p99: 1200, median: 1200 });
  });
});
