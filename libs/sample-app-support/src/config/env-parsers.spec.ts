import { describe, expect, it } from '@jest/globals';
import { InvalidConfigError } from '../errors/invalid-config.error.js';
import { envReader, integer, oneOf, prefix, redisUrl } from './env-parsers.js';

describe('envReader', () => {
  it('trims values and treats blank ones as unset', () => {
    const read = envReader({ PORT: ' 8080 ', BLANK: '   ', EMPTY: '' });
    expect(read('PORT')).toBe('8080');
    expect(read('BLANK')).toBeUndefined();
    expect(read('EMPTY')).toBeUndefined();
    expect(read('MISSING')).toBeUndefined();
  });
});

describe('integer', () => {
  it('returns the fallback when unset and the number otherwise, bounds included', () => {
    expect(integer('PORT', undefined, 3000, 0, 65_535)).toBe(3000);
    expect(integer('PORT', '8080', 3000, 0, 65_535)).toBe(8080);
    expect(integer('PORT', '0', 3000, 0, 65_535)).toBe(0);
    expect(integer('PORT', '65535', 3000, 0, 65_535)).toBe(65_535);
  });

  it.each(['http', '70000', '-1', '1e3', '1.5', '10', '99999999999999999999'])('rejects %s with a message naming the variable and the range', (raw) => {
    expect(() => integer('SOME_MS', raw, 1_000, 50, 65_535)).toThrow(InvalidConfigError);
    expect(() => integer('SOME_MS', raw, 1_000, 50, 65_535)).toThrow(/SOME_MS must be a whole number from 50 to 65535/);
  });
});

describe('oneOf', () => {
  const modes = ['durable', 'legacy'] as const;

  it('accepts an option in any letter case and returns it as declared', () => {
    expect(oneOf('TIMEOUT_MODE', 'LEGACY', modes)).toBe('legacy');
    expect(oneOf('TIMEOUT_MODE', 'durable', modes)).toBe('durable');
  });

  it('rejects anything else, listing the options', () => {
    expect(() => oneOf('TIMEOUT_MODE', 'sleepy', modes)).toThrow(InvalidConfigError);
    expect(() => oneOf('TIMEOUT_MODE', 'sleepy', modes)).toThrow('TIMEOUT_MODE must be one of "durable", "legacy", got "sleepy"');
  });
});

describe('redisUrl', () => {
  it('accepts redis:// and rediss:// URLs unchanged', () => {
    expect(redisUrl('REDIS_URL', 'redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redisUrl('REDIS_URL', 'rediss://user:secret@redis.internal:6380/2')).toBe('rediss://user:secret@redis.internal:6380/2');
  });

  it.each(['http://127.0.0.1:6379', 'mongodb://127.0.0.1', 'not a url'])('rejects %s with a message naming the variable', (raw) => {
    expect(() => redisUrl('REDIS_URL', raw)).toThrow(InvalidConfigError);
    expect(() => redisUrl('REDIS_URL', raw)).toThrow('REDIS_URL');
  });

  it('never repeats the URL in its error, since it may hold a password', () => {
    expect(() => redisUrl('REDIS_URL', 'http://user:hunter2@host')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

describe('prefix', () => {
  it('accepts letters, digits, "-", "_" and "." up to 64 characters', () => {
    expect(prefix('KEY_PREFIX', 'shop.orders')).toBe('shop.orders');
    expect(prefix('DT_PREFIX', 'dt-shop_2')).toBe('dt-shop_2');
    expect(prefix('KEY_PREFIX', 'a'.repeat(64))).toBe('a'.repeat(64));
  });

  it.each(['has space', 'a{b}', '', 'a'.repeat(65)])('rejects "%s" with a message naming the variable', (raw) => {
    expect(() => prefix('KEY_PREFIX', raw)).toThrow(InvalidConfigError);
    expect(() => prefix('KEY_PREFIX', raw)).toThrow('KEY_PREFIX');
  });
});
