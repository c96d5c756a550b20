import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { PayloadCodec } from '../types.js';
import { InvalidCodecKeyError } from '../errors/invalid-codec-key.error.js';
import { errorMessages } from '../errors/errors.messages.js';

/** Options of `aesGcmCodec`. */
export interface AesGcmCodecOptions {
  /**
   * Every key the codec may decode with, by key id: 32 bytes each (AES-256), as a `Uint8Array`
   * (a `Buffer`) or its base64 text. Key ids are stored in clear with each payload: use names,
   * never key material (e.g. `"2026-01"`), of 1 to 255 bytes of UTF-8.
   */
  keys: Readonly<Record<string, Uint8Array | string>>;
  /** The key id new payloads are encrypted with; one of `keys`. */
  currentKeyId: string;
}

/** Format version, the first byte of every encrypted payload. */
const VERSION = 1;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_KEY_ID_BYTES = 255;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A `PayloadCodec` that encrypts payloads with AES-256-GCM (`node:crypto`): every payload gets a
 * random 12-byte IV, and is stored with the id of its key and GCM's authentication tag, so a
 * wrong key or altered bytes are refused, never decoded into garbage. The key id is authenticated
 * too. Key rotation: add the new key to `keys` and make it `currentKeyId` on every instance; new
 * payloads use it, stored ones still decode with their own key; drop the old key once no stored
 * timeout uses it (see docs/ENGINE.md, "Encoded payloads").
 *
 * ```ts
 * const codec = aesGcmCodec({ keys: { '2026-01': process.env.TIMEOUT_KEY! }, currentKeyId: '2026-01' });
 * const timeouts = new DurableTimeouts({ connection: 'redis://localhost:6379', codec, topics: { payment: {} } });
 * ```
 *
 * Throws `InvalidCodecKeyError` at once for keys it cannot use: none, a key of another length than
 * 32 bytes, a bad key id, or a `currentKeyId` that is not among the keys.
 */
export function aesGcmCodec(options: AesGcmCodecOptions): PayloadCodec {
  const keys = checkedKeys(options?.keys);
  const currentKeyId = options.currentKeyId;
  const current = typeof currentKeyId === 'string' ? keys.get(currentKeyId) : undefined;
  if (current === undefined) throw new InvalidCodecKeyError(errorMessages.codecCurrentKey(currentKeyId, [...keys.keys()]));
  const currentHeader = header(currentKeyId);
  return {
    encode(bytes: Uint8Array): Uint8Array {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(currentHeader);
      const body = Buffer.concat([cipher.update(bytes), cipher.final()]);
      return Buffer.concat([currentHeader, iv, cipher.getAuthTag(), body]);
    },
    decode(stored: Uint8Array): Uint8Array {
      const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      if (bytes.length < 2 || bytes[0] !== VERSION) throw new Error(errorMessages.codecNotOurs());
      const headerEnd = 2 + bytes[1]!;
      if (bytes.length < headerEnd + IV_BYTES + TAG_BYTES) throw new Error(errorMessages.codecTruncated());
      const keyId = bytes.toString('utf8', 2, headerEnd);
      const key = keys.get(keyId);
      if (key === undefined) throw new Error(errorMessages.codecUnknownKey(keyId, [...keys.keys()]));
      const iv = bytes.subarray(headerEnd, headerEnd + IV_BYTES);
      const tag = bytes.subarray(headerEnd + IV_BYTES, headerEnd + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(bytes.subarray(0, headerEnd));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(bytes.subarray(headerEnd + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        throw new Error(errorMessages.codecAuthFailed(keyId));
      }
    },
  };
}

function header(keyId: string): Buffer {
  const id = Buffer.from(keyId, 'utf8');
  return Buffer.concat([Buffer.from([VERSION, id.length]), id]);
}

function checkedKeys(given: unknown): Map<string, Buffer> {
  if (typeof given !== 'object' || given === null || Array.isArray(given) || Object.keys(given).length === 0) {
    throw new InvalidCodecKeyError(errorMessages.codecKeysMissing());
  }
  const keys = new Map<string, Buffer>();
  for (const [keyId, value] of Object.entries(given as Record<string, unknown>)) {
    const idBytes = Buffer.byteLength(keyId, 'utf8');
    if (idBytes === 0 || idBytes > MAX_KEY_ID_BYTES || Buffer.from(keyId, 'utf8').toString('utf8') !== keyId) throw new InvalidCodecKeyError(errorMessages.codecKeyId(keyId));
    let key: Buffer;
    if (value instanceof Uint8Array) key = Buffer.from(value); // a copy: later changes to the caller's array do not reach it
    else if (typeof value === 'string' && value.length % 4 === 0 && BASE64.test(value)) key = Buffer.from(value, 'base64');
    else if (typeof value === 'string') throw new InvalidCodecKeyError(errorMessages.codecKeyType(keyId, 'text that is not base64'));
    else throw new InvalidCodecKeyError(errorMessages.codecKeyType(keyId, value === null ? 'null' : typeof value));
    if (key.length !== KEY_BYTES) throw new InvalidCodecKeyError(errorMessages.codecKeyLength(keyId, key.length));
    keys.set(keyId, key);
  }
  return keys;
}
