import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import type { DurableTimeoutsOptions } from '../types.js';
import { resolveOptions } from './options.js';
import { TOPIC_DEFAULTS } from './defaults.js';

const resolve = (options: unknown) => resolveOptions(options as DurableTimeoutsOptions);

describe('resolveOptions', () => {
  it('fills every default', () => {
    const resolved = resolve({ topics: { payment: {}, 'ride.v2_x-y': { slots: 1 } } });
    expect(resolved.prefix).toBe('dt');
    expect(resolved.sweepIntervalMs).toBe(60_000);
    expect(resolved.commandTimeoutMs).toBe(1_000);
    expect(resolved.topics.get('payment')).toEqual({
      slots: 16,
      leaseMs: 30_000,
      maxAttempts: 16,
      backoff: { baseMs: 1_000, capMs: 300_000 },
      batchSize: 100,
      concurrency: 256,
      maxPayloadBytes: 65_536,
      maxRunMs: 300_000,
      codec: null,
    });
    expect(resolved.topics.get('ride.v2_x-y')).toEqual({ ...TOPIC_DEFAULTS, slots: 1 });
    expect(resolved.logger).not.toBeNull();
    expect(resolve({ topics: { a: {} }, logger: null }).logger).toBeNull();
  });

  it("gives each topic its own codec, else the engine's; null opts a topic out", () => {
    const engineCodec = { encode: (b: Uint8Array) => b, decode: (b: Uint8Array) => b };
    const ownCodec = { encode: (b: Uint8Array) => b, decode: (b: Uint8Array) => b };
    const { topics } = resolve({ codec: engineCodec, topics: { a: {}, b: { codec: ownCodec }, c: { codec: null } } });
    expect([topics.get('a')!.codec, topics.get('b')!.codec, topics.get('c')!.codec]).toEqual([engineCodec, ownCodec, null]);
    expect(topics.get('a')!.codec).toBe(engineCodec);
    expect(topics.get('b')!.codec).toBe(ownCodec);
  });

  it('keeps a valid late policy as given, and none by default', () => {
    expect(resolve({ topics: { a: { late: { afterMs: 60_000, action: 'dead-letter' } } } }).topics.get('a')!.late).toEqual({ afterMs: 60_000, action: 'dead-letter' });
    expect(resolve({ topics: { a: {} } }).topics.get('a')!.late).toBeUndefined();
  });

  it('raises capMs to a baseMs above the default cap', () => {
    expect(resolve({ topics: { a: { backoff: { baseMs: 600_000 } } } }).topics.get('a')!.backoff).toEqual({ baseMs: 600_000, capMs: 600_000 });
  });

  it.each([
    ['no options', undefined, /needs an options object/],
    ['no topics', {}, /at least one topic/],
    ['empty topics', { topics: {} }, /at least one topic/],
    ['a bad topic name', { topics: { 'a:b': {} } }, /Invalid topic name "a:b"/],
    ['a long topic name', { topics: { ['t'.repeat(65)]: {} } }, /Invalid topic name/],
    ['slots not a power of two', { topics: { a: { slots: 12 } } }, /topics\.a\.slots = 12: use a power of two/],
    ['too many slots', { topics: { a: { slots: 2048 } } }, /topics\.a\.slots = 2048/],
    ['zero slots', { topics: { a: { slots: 0 } } }, /topics\.a\.slots = 0/],
    ['a fractional lease', { topics: { a: { leaseMs: 1.5 } } }, /topics\.a\.leaseMs/],
    ['a tiny lease', { topics: { a: { leaseMs: 10 } } }, /topics\.a\.leaseMs = 10/],
    ['zero attempts', { topics: { a: { maxAttempts: 0 } } }, /maxAttempts/],
    ['a cap under the base', { topics: { a: { backoff: { baseMs: 10, capMs: 5 } } } }, /backoff\.capMs = 5: use at least/],
    ['a batch over 1000', { topics: { a: { batchSize: 1001 } } }, /batchSize/],
    ['no concurrency', { topics: { a: { concurrency: 0 } } }, /concurrency/],
    ['a text payload limit', { topics: { a: { maxPayloadBytes: '64k' } } }, /maxPayloadBytes = "64k"/],
    ['a misspelt topic option', { topics: { a: { lease: 10 } } }, /Unknown option topics\.a\.lease/],
    ['a misspelt backoff option', { topics: { a: { backoff: { base: 10 } } } }, /Unknown option topics\.a\.backoff\.base/],
    ['a prefix with a brace', { topics: { a: {} }, prefix: 'dt{' }, /prefix/],
    ['a sweep of 0', { topics: { a: {} }, sweepIntervalMs: 0 }, /sweepIntervalMs/],
    ['a command timeout of -1', { topics: { a: {} }, commandTimeoutMs: -1 }, /commandTimeoutMs/],
    ['a logger without warn', { topics: { a: {} }, logger: { log() {}, error() {} } }, /logger/],
    ['a store that is not one', { topics: { a: {} }, store: {} }, /TimeoutStore/],
    ['a codec without decode', { topics: { a: {} }, codec: { encode: (b: Uint8Array) => b } }, /Invalid codec: use an object with encode\(bytes\) and decode\(bytes\)/],
    ['a topic codec that is a key', { topics: { a: { codec: 'c2VjcmV0' } } }, /Invalid topics\.a\.codec/],
    ['a late policy that is not an object', { topics: { a: { late: 'skip' } } }, /topics\.a\.late = "skip": use \{ afterMs, action/],
    ['a late policy without afterMs', { topics: { a: { late: { action: 'skip' } } } }, /topics\.a\.late\.afterMs/],
    ['a negative late afterMs', { topics: { a: { late: { afterMs: -1, action: 'skip' } } } }, /topics\.a\.late\.afterMs = -1/],
    ['an unknown late action', { topics: { a: { late: { afterMs: 10, action: 'drop' } } } }, /topics\.a\.late\.action = "drop": use 'fire', 'dead-letter' or 'skip'/],
    ['a late policy without action', { topics: { a: { late: { afterMs: 10 } } } }, /topics\.a\.late\.action/],
    ['a misspelt late option', { topics: { a: { late: { afterMs: 10, action: 'skip', after: 1 } } } }, /Unknown option topics\.a\.late\.after/],
  ])('refuses %s', (_name, options, message) => {
    expect(() => resolve(options)).toThrow(InvalidOptionsError);
    expect(() => resolve(options)).toThrow(message);
  });
});
