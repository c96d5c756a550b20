/**
 * Text an interceptor keeps with a timeout (a W3C `traceparent`, say) travels in front of the
 * payload's JSON text, between two U+0001 characters: `\u0001<carried>\u0001<payload JSON>`. The
 * JSON of a payload never starts with U+0001, so a stored payload without carried text reads as
 * it always did, and the Lua scripts, which keep the payload text as it is through retries, dead
 * letters and replays, never need to know.
 */
const MARK = '\u0001';

/** Longest text an interceptor may keep with a timeout; longer text is dropped, not cut. */
export const MAX_CARRIED_LENGTH = 512;

/** The payload text to store: `payload` with `carried` in front, or `payload` alone when there is nothing (valid) to carry. */
export function withCarried(payload: string, carried: string | undefined): string {
  if (carried === undefined || carried.length === 0 || carried.length > MAX_CARRIED_LENGTH || carried.includes(MARK)) return payload;
  return `${MARK}${carried}${MARK}${payload}`;
}

/** Splits a stored payload text into the carried text (if any) and the payload's JSON text. */
export function splitCarried(stored: string): { carried: string | undefined; payload: string } {
  if (!stored.startsWith(MARK)) return { carried: undefined, payload: stored };
  const end = stored.indexOf(MARK, 1);
  if (end < 0) return { carried: undefined, payload: stored };
  return { carried: stored.slice(1, end), payload: stored.slice(end + 1) };
}
