import { describe, expect, it } from '@jest/globals';
import { InvalidConfigError } from '../errors/invalid-config.error.js';
import { envReader, httpUrl, integer, oneOf, prefix, redisUrl, secret } from './env-parsers.js';

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

describe('httpUrl', () => {
  it('accepts http:// and https:// URLs unchanged', () => {
    expect(httpUrl('RIDER_WEBHOOK_URL', 'http://127.0.0.1:8080/notify')).toBe('http://127.0.0.1:8080/notify');
    expect(httpUrl('RIDER_WEBHOOK_URL', 'https://notify.internal/riders?token=abc')).toBe('https://notify.internal/riders?token=abc');
  });

  it.each(['redis://127.0.0.1:6379', 'ftp://files', 'not a url'])('rejects %s with a message naming the variable, without the value', (raw) => {
    expect(() => httpUrl('RIDER_WEBHOOK_URL', raw)).toThrow(InvalidConfigError);
    expect(() => httpUrl('RIDER_WEBHOOK_URL', raw)).toThrow(/^RIDER_WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL/);
    expect(() => httpUrl('RIDER_WEBHOOK_URL', `${raw}secret`)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret') }));
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

describe('secret', () => {
  it('is undefined when unset and kept as is when long enough', () => {
    expect(secret('ADMIN_TOKEN', undefined, 16)).toBeUndefined();
    expect(secret('ADMIN_TOKEN', 'x'.repeat(16), 16)).toBe('x'.repeat(16));
  });

  it('rejects a short one, naming the variable but never the value', () => {
    expect(() => secret('ADMIN_TOKEN', 'hunter2', 16)).toThrow(InvalidConfigError);
    expect(() => secret('ADMIN_TOKEN', 'hunter2', 16)).toThrow(expect.objectContaining({ message: expect.stringContaining('ADMIN_TOKEN') }));
    expect(() => secret('ADMIN_TOKEN', 'hunter2', 16)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2') }));
  });
});
