import { describe, expect, it } from '@jest/globals';
import { InvalidTimeoutIdError } from '../errors/invalid-timeout-id.error.js';
import { assertTimeoutId, MAX_TIMEOUT_ID_LENGTH } from './timeout-id.js';

describe('assertTimeoutId', () => {
  it('accepts any non-empty string up to the limit, braces and colons included', () => {
    for (const id of ['a', 'order:{42}', ' spaced ', 'é😀', '\uD83D\uDE95-trip', 'x'.repeat(MAX_TIMEOUT_ID_LENGTH)]) {
      expect(() => assertTimeoutId(id)).not.toThrow();
    }
  });

  it.each([
    ['empty', '', /empty/],
    ['too long', 'x'.repeat(MAX_TIMEOUT_ID_LENGTH + 1), /513 characters, the limit is 512/],
    ['a number', 42, /got a number/],
    ['undefined', undefined, /got undefined/],
    ['an object', { id: 'x' }, /got an object/],
    ['a lone high surrogate', 'id-\uD800', /lone UTF-16 surrogate at index 3/],
    ['a lone low surrogate', '\uDFFFid', /lone UTF-16 surrogate at index 0/],
    ['a reversed pair', 'a\uDE95\uD83D', /lone UTF-16 surrogate at index 1/],
  ])('refuses %s', (_name, id, message) => {
    expect(() => assertTimeoutId(id)).toThrow(InvalidTimeoutIdError);
    expect(() => assertTimeoutId(id)).toThrow(message);
  });
});
