import { describe, expect, it } from '@jest/globals';
import { InvalidDelayError } from '../errors/invalid-delay.error.js';
import { MAX_DELAY_MS, validateTiming } from './timing.js';

const now = Date.UTC(2026, 0, 1);

describe('validateTiming', () => {
  it('accepts a delay or an absolute time (Date or ms)', () => {
    expect(validateTiming({ delayMs: 0 }, now)).toEqual({ delayMs: 0 });
    expect(validateTiming({ delayMs: 1.5 }, now)).toEqual({ delayMs: 1.5 });
    expect(validateTiming({ delayMs: MAX_DELAY_MS }, now)).toEqual({ delayMs: MAX_DELAY_MS });
    expect(validateTiming({ at: new Date(now + 5) }, now)).toEqual({ at: now + 5 });
    expect(validateTiming({ at: now - 60_000 }, now)).toEqual({ at: now - 60_000 });
  });

  it.each([
    ['neither', {}, /exactly one of/],
    ['both', { delayMs: 1, at: now }, /Both delayMs and at/],
    ['a negative delay', { delayMs: -1 }, /negative/],
    ['NaN', { delayMs: Number.NaN }, /finite/],
    ['Infinity', { delayMs: Number.POSITIVE_INFINITY }, /finite/],
    ['a delay over 10 years', { delayMs: MAX_DELAY_MS + 1 }, /about 10 years/],
    ['a delay given as text', { delayMs: '100' }, /got a string/],
    ['an invalid Date', { at: new Date('nope') }, /Invalid at Invalid Date/],
    ['a NaN time', { at: Number.NaN }, /Invalid at NaN/],
    ['a negative time', { at: -5 }, /Invalid at -5/],
    ['a time in microseconds', { at: now * 1000 }, /10 years ahead/],
    ['a time as text', { at: '2026-01-01' }, /Invalid at a string/],
  ])('refuses %s', (_name, timing, message) => {
    expect(() => validateTiming(timing, now)).toThrow(InvalidDelayError);
    expect(() => validateTiming(timing, now)).toThrow(message);
  });
});
