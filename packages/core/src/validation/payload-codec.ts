import type { PayloadCodec } from '../types.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';

/**
 * A payload encoded by a codec is stored as this character followed by the base64 text of the
 * codec's bytes. The JSON text of a payload never starts with a control character, so a reader
 * tells encoded payloads from plain ones (written before a codec was configured) by this mark.
 */
export const ENCODED_PAYLOAD_MARK = '\u0002';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The stored text of a payload's JSON text, encoded by `codec`: the mark, then base64. */
export function encodePayloadText(json: string, codec: PayloadCodec): string {
  const encoded: unknown = codec.encode(Buffer.from(json, 'utf8'));
  if (!(encoded instanceof Uint8Array)) {
    throw new InvalidOptionsError(errorMessages.invalidOption('codec', codec, 'its encode(bytes) must return a Uint8Array'));
  }
  return ENCODED_PAYLOAD_MARK + Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength).toString('base64');
}

/** What decoding an encoded payload came to: its JSON text, or why it could not be decoded (a reason that never holds the payload). */
export type DecodedText = { ok: true; text: string } | { ok: false; reason: string };

/**
 * The JSON text of an encoded payload (the mark, then base64): decoded by `codec`, which must give
 * back UTF-8. Never throws: no codec, text that is not base64, a codec that throws, or bytes that
 * are not UTF-8 give `ok: false` with the reason.
 */
export function decodePayloadText(stored: string, codec: PayloadCodec | null): DecodedText {
  const fail = (reason: string): DecodedText => ({ ok: false, reason });
  if (codec === null) return fail(errorMessages.payloadEncodedNoCodec());
  const base64 = stored.slice(ENCODED_PAYLOAD_MARK.length);
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) return fail(errorMessages.payloadNotBase64());
  let bytes: Uint8Array;
  try {
    bytes = codec.decode(Buffer.from(base64, 'base64'));
    if (!(bytes instanceof Uint8Array)) throw new TypeError('decode(bytes) did not return a Uint8Array');
  } catch (error) {
    return fail(errorMessages.payloadCodecThrew(error instanceof Error ? error.message || error.name : String(error)));
  }
  try {
    return { ok: true, text: utf8.decode(bytes) };
  } catch {
    return fail(errorMessages.payloadNotUtf8());
  }
}
