import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bucketOf, crc32, DATA_BUCKETS, slotOf } from './slot-of.js';

/** Reference: byte-wise CRC-32 without a table, over Buffer bytes. */
function referenceCrc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('crc32 / slotOf', () => {
  it('matches the standard CRC-32 check value', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  it('hashes the UTF-8 bytes, on the ASCII fast path and off it', () => {
    for (const text of ['order-123', '{payment:3}', 'ünï-çødé', '订单-🚕', 'a\u007fb', 'é']) {
      expect(crc32(text)).toBe(referenceCrc32(text));
    }
  });

  it('maps ids into [0, slots) with the low bits of the CRC', () => {
    for (const slots of [1, 2, 16, 1024]) {
      for (let i = 0; i < 200; i++) {
        const id = `id-${i}`;
        const slot = slotOf(id, slots);
        expect(slot).toBe(referenceCrc32(id) & (slots - 1));
        expect(slot).toBeGreaterThanOrEqual(0);
        expect(slot).toBeLessThan(slots);
      }
    }
    expect(slotOf('anything', 1)).toBe(0);
  });

  it('spreads sequential ids over every slot', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 1_000; i++) seen.add(slotOf(`order-${i}`, 16));
    expect(seen.size).toBe(16);
  });
});

describe('bucketOf', () => {
  /** The same function as bucket_index() in commands/includes/stored.lua, written from its definition. */
  function referenceBucket(id: string, buckets: number): number {
    let hash = 0;
    for (const byte of Buffer.from(id, 'utf8')) hash = (hash * 65599 + byte) % 2147483647;
    return hash % buckets;
  }

  it('follows its definition for ASCII and non-ASCII ids', () => {
    for (const id of ['a', 'order-000123', '{x}:y', 'ünï', '🚕🚕🚕', 'x'.repeat(500)]) {
      expect(bucketOf(id)).toBe(referenceBucket(id, DATA_BUCKETS));
    }
  });

  it('follows its definition for any id, whatever its length and characters (the Lua side computes the definition)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.constantFrom(1, 7, 64, DATA_BUCKETS), (id, buckets) => {
        expect(bucketOf(id, buckets)).toBe(referenceBucket(id, buckets));
      }),
      { numRuns: 300 },
    );
  });

  it('spreads the ids of one slot over all buckets, evenly enough to keep them small', () => {
    const counts = new Array<number>(DATA_BUCKETS).fill(0);
    let inSlot = 0;
    for (let i = 0; inSlot < 12_800; i++) {
      const id = `order-${String(i).padStart(6, '0')}`;
      if (slotOf(id, 16) !== 3) continue;
      inSlot++;
      counts[bucketOf(id)]!++;
    }
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(128);
  });
});
