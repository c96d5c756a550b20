import { describe, expect, it } from '@jest/globals';
import { ownerOf } from './cluster-spread.js';

describe('ownerOf', () => {
  const slots: Parameters<typeof ownerOf>[0] = [
    [0, 5460, ['127.0.0.1', 7001, 'id-a']],
    [5461, 10922, ['127.0.0.1', 7002, 'id-b']],
    [10923, 16383, ['127.0.0.1', 7003, 'id-c']],
  ];

  it('finds the master whose range holds the hash slot, ends included', () => {
    expect(ownerOf(slots, 0)).toBe('127.0.0.1:7001');
    expect(ownerOf(slots, 5461)).toBe('127.0.0.1:7002');
    expect(ownerOf(slots, 16383)).toBe('127.0.0.1:7003');
  });

  it('is undefined for a slot no master serves', () => {
    expect(ownerOf(slots.slice(0, 2), 12000)).toBeUndefined();
  });
});
