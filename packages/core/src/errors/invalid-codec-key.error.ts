import { DurableTimeoutError } from './durable-timeout.error.js';

/**
 * `aesGcmCodec` was given keys it cannot use: no keys, a key that is not 32 bytes (AES-256), a key
 * id that is empty or too long, or a `currentKeyId` that names none of the keys. The message names
 * the key id, never the key.
 */
export class InvalidCodecKeyError extends DurableTimeoutError {}
