import { createHash } from 'node:crypto';

/** The namespace of the trip ids derived from a request's idempotency key (a fixed, random UUID). */
const TRIP_REQUEST_NAMESPACE = Buffer.from('6f1d2c4e8a3b4f0e9c7d5b2a1e0f3d4c', 'hex');

/** Longest `Idempotency-Key` header `POST /trips` accepts. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

/**
 * The trip id of a `POST /trips` that carries an `Idempotency-Key`: a name-based UUID (version 5,
 * RFC 9562) of the rider and the key, so a retried request names the same trip and the same
 * timeouts, and two riders' keys never collide (the rider id is length-prefixed, so no split of
 * one text into rider and key reads as another).
 */
export function tripIdFor(riderId: string, idempotencyKey: string): string {
  const hash = createHash('sha1').update(TRIP_REQUEST_NAMESPACE).update(`${riderId.length}:${riderId}${idempotencyKey}`, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
