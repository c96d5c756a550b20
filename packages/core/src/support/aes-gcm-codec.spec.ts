import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { InvalidCodecKeyError } from '../errors/invalid-codec-key.error.js';
import { aesGcmCodec } from './aes-gcm-codec.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);

describe('aesGcmCodec', () => {
  it('gives back every byte string it encoded, and never stores it in clear', () => {
    const codec = aesGcmCodec({ keys: { a: keyA }, currentKeyId: 'a' });
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 2_000 }), (bytes) => {
        const encoded = codec.encode(bytes);
        expect(Buffer.from(codec.decode(encoded))).toEqual(Buffer.from(bytes));
        if (bytes.length >= 8) expect(Buffer.from(encoded).includes(Buffer.from(bytes))).toBe(false);
      }),
    );
  });

  it('encrypts the same bytes differently each time (a random IV per payload)', () => {
    const codec = aesGcmCodec({ keys: { a: keyA }, currentKeyId: 'a' });
    const plain = Buffer.from('{"card":"4111111111111111"}');
    expect(Buffer.from(codec.encode(plain))).not.toEqual(Buffer.from(codec.encode(plain)));
  });

  it('refuses any single altered byte (header, IV, tag or ciphertext), naming the problem', () => {
    const codec = aesGcmCodec({ keys: { a: keyA, b: keyB }, currentKeyId: 'a' });
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
        const encoded = Buffer.from(codec.encode(bytes));
        const index = at % encoded.length;
        encoded[index] = encoded[index]! ^ flip;
        expect(() => codec.decode(encoded)).toThrow(/aesGcmCodec: /);
      }),
    );
  });

  it('decodes with any listed key after a rotation, and encodes with the current one', () => {
    const before = aesGcmCodec({ keys: { '2026-01': keyA }, currentKeyId: '2026-01' });
    const after = aesGcmCodec({ keys: { '2026-01': keyA.toString('base64'), '2026-02': keyB }, currentKeyId: '2026-02' });
    const old = before.encode(Buffer.from('old'));
    const fresh = after.encode(Buffer.from('new'));
    expect(Buffer.from(after.decode(old)).toString()).toBe('old');
    expect(Buffer.from(after.decode(fresh)).toString()).toBe('new');
    expect(() => before.decode(fresh)).toThrow('encrypted with key id "2026-02", which is not among the keys ("2026-01")');
  });

  it('refuses a wrong key under the same key id: authentication fails, nothing is decoded', () => {
    const writer = aesGcmCodec({ keys: { k: keyA }, currentKeyId: 'k' });
    const reader = aesGcmCodec({ keys: { k: keyB }, currentKeyId: 'k' });
    expect(() => reader.decode(writer.encode(Buffer.from('secret')))).toThrow('authentication failed for key id "k"');
  });

  it('refuses bytes that are not its format, and truncated ones', () => {
    const codec = aesGcmCodec({ keys: { a: keyA }, currentKeyId: 'a' });
    expect(() => codec.decode(Buffer.from('{"plain":true}'))).toThrow('not an aesGcmCodec payload');
    expect(() => codec.decode(Buffer.from(codec.encode(Buffer.from('x'))).subarray(0, 20))).toThrow('truncated');
  });

  it('refuses unusable keys at construction with InvalidCodecKeyError, never showing the key', () => {
    const bad: [unknown, RegExp][] = [
      [{ keys: {}, currentKeyId: 'a' }, /at least one key/],
      [{ keys: undefined, currentKeyId: 'a' }, /at least one key/],
      [{ keys: { a: randomBytes(16) }, currentKeyId: 'a' }, /key "a" is 16 bytes; AES-256 needs 32 bytes/],
      [{ keys: { a: 'not base64!' }, currentKeyId: 'a' }, /not base64/],
      [{ keys: { a: 42 }, currentKeyId: 'a' }, /key "a" is number/],
      [{ keys: { '': keyA }, currentKeyId: '' }, /key id "" is not usable/],
      [{ keys: { ['x'.repeat(256)]: keyA }, currentKeyId: 'x' }, /is not usable/],
      [{ keys: { a: keyA }, currentKeyId: 'b' }, /currentKeyId "b" is not among the keys \("a"\)/],
    ];
    for (const [options, message] of bad) {
      let thrown: unknown;
      try {
        aesGcmCodec(options as Parameters<typeof aesGcmCodec>[0]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidCodecKeyError);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain(keyA.toString('base64'));
    }
  });

  it('keeps its own copy of the keys', () => {
    const key = Buffer.from(keyA);
    const codec = aesGcmCodec({ keys: { a: key }, currentKeyId: 'a' });
    const encoded = codec.encode(Buffer.from('x'));
    key.fill(0);
    expect(Buffer.from(codec.decode(encoded)).toString()).toBe('x');
  });
});
