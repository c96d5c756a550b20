const CRC32_TABLE = buildCrc32Table();

function buildCrc32Table(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 (IEEE 802.3, the zlib one) of the UTF-8 bytes of `text`, as an unsigned 32-bit number. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  if (isAscii(text)) {
    for (let i = 0; i < text.length; i++) crc = CRC32_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  } else {
    for (const byte of Buffer.from(text, 'utf8')) crc = CRC32_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** True when every character is ASCII, so its UTF-8 bytes are its char codes (no Buffer needed). */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The slot of a timeout id in a topic of `slots` slots (a power of two): `crc32(id) & (slots - 1)`.
 * One id always lives in one slot, so every operation on it is one script on one hash tag.
 */
export function slotOf(id: string, slots: number): number {
  return crc32(id) & (slots - 1);
}

/**
 * Number of data buckets (small hashes) per slot. Fixed: changing it would strand stored data.
 * 128 keeps each bucket under Redis' default `hash-max-listpack-entries` (128) up to about
 * 16,000 pending timeouts per slot, so buckets stay in the compact listpack encoding.
 */
export const DATA_BUCKETS = 128;

/**
 * The data bucket of an id inside its slot. The Lua scripts compute the same function
 * (`includes/stored.lua`), so both sides must change together: a polynomial hash of the UTF-8
 * bytes (multiplier 65599, modulo the prime 2^31 - 1: below 2^53, so exact in doubles on both
 * sides), then modulo the bucket count.
 * It is independent of the CRC that picks the slot, so the ids of one slot spread over all buckets.
 *
 * Computed without a floating-point modulo per byte (a `%` of doubles is a libm call, about 4 times
 * the cost of the rest): since 2^31 = 1 modulo 2^31 - 1, a value below 2^47 is reduced by adding its
 * bits above 2^31 to the bits below, then subtracting the prime once if needed. Exact: every step stays
 * an integer below 2^53.
 */
export function bucketOf(id: string, buckets: number = DATA_BUCKETS): number {
  let hash = 0;
  if (isAscii(id)) {
    for (let i = 0; i < id.length; i++) hash = reduceMersenne31(hash * 65599 + id.charCodeAt(i));
  } else {
    for (const byte of Buffer.from(id, 'utf8')) hash = reduceMersenne31(hash * 65599 + byte);
  }
  return hash % buckets;
}

const TWO_POW_31 = 2147483648;
const MERSENNE_31 = 2147483647;

/** `value % (2^31 - 1)` for an integer `value` in [0, 2^47): the hash step's bound (below 2^31 times 65599, plus a byte). */
function reduceMersenne31(value: number): number {
  const high = Math.floor(value / TWO_POW_31);
  const reduced = value - high * TWO_POW_31 + high;
  return reduced >= MERSENNE_31 ? reduced - MERSENNE_31 : reduced;
}
