import { describe, expect, it } from '@jest/globals';
import { SlotTokens } from './slot-tokens.js';

describe('SlotTokens', () => {
  it('counts a token given to a second id of the same slot, not a repeat run of one id or a coincidence across slots', () => {
    const tokens = new SlotTokens();
    expect(tokens.record(3, 'a', 100)).toBe(false);
    expect(tokens.record(3, 'a', 100)).toBe(false);
    expect(tokens.record(4, 'b', 100)).toBe(false);
    expect(tokens.record(3, 'c', 101)).toBe(false);
    expect(tokens.repeats).toBe(0);
    expect(tokens.record(3, 'd', 100)).toBe(true);
    expect(tokens.repeats).toBe(1);
    expect(tokens.firstRepeat).toBe('slot 3 token 100: a and d');
  });
});
