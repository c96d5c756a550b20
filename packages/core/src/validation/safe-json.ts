import { FORBIDDEN_PAYLOAD_KEYS } from './payload.js';

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

function dropForbiddenKeys(key: string, value: unknown): unknown {
  return FORBIDDEN_PAYLOAD_KEYS.has(key) ? undefined : value;
}
