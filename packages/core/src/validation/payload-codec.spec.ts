import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { PayloadCodec } from '../types.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { ENCODED_PAYLOAD_MARK } from './payload-codec.js';
import { serializePayload } from './payload.js';
import { readPayloadText } from './safe-json.js';

/** A codec that flips every bit: reversible, and the stored bytes are never the plain ones. */
const flip: PayloadCodec = { encode: (bytes) => bytes.map((byte) => byte ^ 0xff), decode: (bytes) => bytes.map((byte) => byte ^ 0xff) };
const json = fc.jsonValue().filter((value) => !JSON.stringify(value).includes('__proto__') && !JSON.stringify(value).includes('constructor'));

describe('a payload stored through a codec', () => {
  it('reads back as the value scheduled; plain stored payloads still read with a codec configured', () => {
    fc.assert(
      fc.property(json, (value) => {
        // -0 comes back as 0 through JSON, as it does without a codec.
        const expected = JSON.parse(JSON.stringify(value)) as unknown;
        const stored = serializePayload(value, 't', 1 << 24, flip);
        expect(stored.startsWith(ENCODED_PAYLOAD_MARK)).toBe(true);
        expect(readPayloadText(stored, flip)).toEqual({ ok: true, value: expected });
        expect(readPayloadText(serializePayload(value, 't', 1 << 24), flip)).toEqual({ ok: true, value: expected });
      }),
    );
  });

  it('counts the encoded size against the limit', () => {
    const grow: PayloadCodec = { encode: (bytes) => new Uint8Array(bytes.length * 10), decode: (bytes) => bytes };
    expect(serializePayload('abc', 't', 10)).toBe('"abc"');
    expect(() => serializePayload('abc', 't', 10, grow)).toThrow(PayloadTooLargeError);
    const shrink: PayloadCodec = { encode: () => new Uint8Array(1), decode: (bytes) => bytes };
    expect(serializePayload('x'.repeat(100), 't', 10, shrink)).toBe(`${ENCODED_PAYLOAD_MARK}AA==`);
  });

  it('gives the reason, never the payload, when it cannot be read', () => {
    const stored = serializePayload({ card: '4111' }, 't', 1 << 16, flip);
    const cases: [string, PayloadCodec | null, RegExp][] = [
      [stored, null, /encoded by a codec, and this topic has none configured/],
      [`${ENCODED_PAYLOAD_MARK}not base64!`, flip, /not base64/],
      [stored, { encode: (b) => b, decode: () => { throw new Error('key "k9" unknown'); } }, /the codec refused it \(key "k9" unknown\)/],
      [stored, { encode: (b) => b, decode: () => new Uint8Array([0xff, 0xfe]) }, /not UTF-8/],
      [stored, { encode: (b) => b, decode: () => Buffer.from('{half') }, /not JSON/],
    ];
    for (const [text, codec, reason] of cases) {
      const read = readPayloadText(text, codec);
      expect(read).toEqual({ ok: false, encoded: true, reason: expect.stringMatching(reason) });
      expect(JSON.stringify(read)).not.toContain('4111');
    }
    expect(readPayloadText('{not json', flip)).toMatchObject({ ok: false, encoded: false });
  });
});
