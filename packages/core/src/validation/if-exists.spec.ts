import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { validateIfExists } from './if-exists.js';

describe('validateIfExists', () => {
  it('passes replace (or nothing) as undefined and the other modes as they are', () => {
    expect(validateIfExists(undefined)).toBeUndefined();
    expect(validateIfExists('replace')).toBeUndefined();
    expect(validateIfExists('keep')).toBe('keep');
    expect(validateIfExists('earlier')).toBe('earlier');
    expect(validateIfExists('later')).toBe('later');
  });

  it.each([['newer'], ['KEEP'], [''], [null], [1], [{}]])('refuses %p with a message listing the modes', (value) => {
    expect(() => validateIfExists(value)).toThrow(InvalidOptionsError);
    expect(() => validateIfExists(value)).toThrow(/ifExists .*use one of 'replace', 'keep', 'earlier', 'later'/);
  });
});
