import { describe, expect, it } from '@jest/globals';
import { InvalidPayloadError } from '../errors/invalid-payload.error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { MAX_PAYLOAD_DEPTH, serializePayload } from './payload.js';
import { parseStoredPayload } from './safe-json.js';

const serialize = (payload: unknown, maxBytes = 65_536) => serializePayload(payload, 'payment', maxBytes);

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

describe('serializePayload', () => {
  it('keeps plain JSON data exactly', () => {
    const payload = { a: 1, b: 'x', c: [true, null, -0.5], d: { e: [] }, 'strange key': 'é😀' };
    expect(JSON.parse(serialize(payload))).toEqual(payload);
    expect(serialize(null)).toBe('null');
    expect(serialize('text')).toBe('"text"');
    expect(serialize(Object.create(null) as object)).toBe('{}');
  });

  it.each([
    ['undefined at the top', undefined, 'payload is undefined'],
    ['undefined in an object', { a: undefined }, 'payload.a is undefined'],
    ['undefined in an array', [1, undefined], 'payload[1] is undefined'],
    ['a hole in an array', [1, , 3], 'payload[1] is undefined'], // eslint-disable-line no-sparse-arrays
    ['a function', { f: () => 1 }, 'payload.f is a function'],
    ['a symbol', { s: Symbol('s') }, 'payload.s is a symbol'],
    ['a symbol key', { [Symbol('k')]: 1 }, 'symbol key'],
    ['a BigInt', { n: 10n }, 'payload.n is a BigInt'],
    ['NaN', { n: Number.NaN }, 'payload.n is NaN'],
    ['Infinity', [Number.POSITIVE_INFINITY], 'payload[0] is Infinity'],
    ['a Date', { at: new Date() }, 'payload.at is a Date'],
    ['a Map', new Map(), 'payload is an instance of Map'],
    ['a Set', { s: new Set([1]) }, 'payload.s is an instance of Set'],
    ['a class instance', { x: new (class Order {})() }, 'payload.x is an instance of Order'],
    ['a Buffer', { b: Buffer.from('x') }, 'payload.b is an instance of Buffer'],
    ['a __proto__ key', JSON.parse('{"a":{"__proto__":{"polluted":true}}}'), 'payload.a has the key "__proto__"'],
    ['a constructor key', { constructor: { prototype: {} } }, 'has the key "constructor"'],
    ['an odd key', { 'a b': { c: undefined } }, 'payload["a b"].c is undefined'],
  ])('refuses %s and names where', (_name, payload, message) => {
    expect(() => serialize(payload)).toThrow(InvalidPayloadError);
    expect(() => serialize(payload)).toThrow(message);
  });

  it('refuses cycles but accepts a shared (non-cyclic) reference', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => serialize(cyclic)).toThrow('payload.self.back refers back');
    const shared = { x: 1 };
    expect(JSON.parse(serialize({ a: shared, b: shared }))).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it(`accepts ${MAX_PAYLOAD_DEPTH} levels of nesting and refuses one more`, () => {
    expect(() => serialize(nested(MAX_PAYLOAD_DEPTH))).not.toThrow();
    expect(() => serialize(nested(MAX_PAYLOAD_DEPTH + 1))).toThrow(/nested more than 64 levels/);
  });

  it('counts the size in UTF-8 bytes of the JSON text', () => {
    expect(serialize('a'.repeat(8), 10)).toBe(`"${'a'.repeat(8)}"`);
    expect(() => serialize('a'.repeat(9), 10)).toThrow(PayloadTooLargeError);
    // 3 characters of 2 bytes each + 2 quotes = 8 bytes
    expect(serialize('ééé', 8)).toBe('"ééé"');
    const error = (() => {
      try {
        serialize('éééé', 8);
      } catch (caught) {
        return caught as PayloadTooLargeError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ bytes: 10, limit: 8, topic: 'payment', name: 'PayloadTooLargeError' });
  });
});

describe('parseStoredPayload', () => {
  it('drops __proto__ and constructor keys, also spelled with escapes, and pollutes nothing', () => {
    const parsed = parseStoredPayload('{"a":1,"__proto__":{"polluted":1},"b":{"constructor":{"prototype":{"polluted":1}}},"\\u005f_proto__":{"x":1}}');
    expect(parsed.ok).toBe(true);
    const value = (parsed as { value: Record<string, unknown> }).value;
    expect(Object.keys(value)).toEqual(['a', 'b']);
    expect(Object.keys(value.b as object)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('parses ordinary JSON and says when the text is not JSON', () => {
    expect(parseStoredPayload('{"a":[1,"x"]}')).toEqual({ ok: true, value: { a: [1, 'x'] } });
    expect(parseStoredPayload('null')).toEqual({ ok: true, value: null });
    expect(parseStoredPayload('{oops').ok).toBe(false);
  });
});
