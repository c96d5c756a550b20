import type { PayloadCodec } from '../types.js';
import { errorMessages } from '../errors/errors.messages.js';
import { FORBIDDEN_PAYLOAD_KEYS } from './payload.js';
import { decodePayloadText, ENCODED_PAYLOAD_MARK } from './payload-codec.js';

/**
 * Parses a stored payload without letting it carry `__proto__` or `constructor` keys into the
 * handler (a naive deep merge of such a payload would pollute prototypes). Text without those
 * words and without escapes (an escaped key could spell them) takes the plain, fast `JSON.parse`.
 * Text that is not JSON (data edited by hand) gives `ok: false`; the caller decides what to do.
 */
export function parseStoredPayload(text: string): { ok: true; value: unknown } | { ok: false; error: Error } {
  try {
    if (text === 'null') return { ok: true, value: null };
    const needsReviver = text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
    return { ok: true, value: needsReviver ? JSON.parse(text, dropForbiddenKeys) : JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/** What reading a stored payload came to: its value, or why it could not be read (a reason that never holds the payload). */
export type ReadPayload = { ok: true; value: unknown } | { ok: false; encoded: boolean; reason: string };

/**
 * Reads a stored payload text (carried text already split off): an encoded one through `codec`
 * (see `decodePayloadText`), a plain one as JSON. Never throws: a payload that cannot be decoded or
 * parsed gives `ok: false` with the reason, and the caller decides (dead-letter the delivery, throw
 * from `get`, mark a listing).
 */
export function readPayloadText(text: string, codec: PayloadCodec | null): ReadPayload {
  if (!text.startsWith(ENCODED_PAYLOAD_MARK)) {
    const parsed = parseStoredPayload(text);
    return parsed.ok ? parsed : { ok: false, encoded: false, reason: parsed.error.message };
  }
  const decoded = decodePayloadText(text, codec);
  if (!decoded.ok) return { ok: false, encoded: true, reason: decoded.reason };
  const parsed = parseStoredPayload(decoded.text);
  return parsed.ok ? parsed : { ok: false, encoded: true, reason: errorMessages.payloadNotJson(parsed.error.message) };
}

function dropForbiddenKeys(key: string, value: unknown): unknown {
  return FORBIDDEN_PAYLOAD_KEYS.has(key) ? undefined : value;
}
