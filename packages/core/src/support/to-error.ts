/**
 * What a handler, a listener or the store threw or rejected with, as an Error: they may throw
 * strings or anything else. An Error from another realm is kept; `nonError` words the message for
 * a value that is neither an Error nor a string (it names the value's type), and the value is kept
 * as `thrown`.
 */
export function toError(thrown: unknown, nonError: (type: string) => string): Error {
  if (thrown instanceof Error) return thrown;
  // An Error from another realm (a vm context, a test sandbox) fails instanceof but is one.
  const candidate = thrown as { message?: unknown; name?: unknown } | null;
  if (typeof candidate === 'object' && candidate !== null && typeof candidate.message === 'string' && typeof candidate.name === 'string') {
    return candidate as Error;
  }
  if (typeof thrown === 'string') return new Error(thrown);
  const error = new Error(nonError(thrown === null ? 'null' : typeof thrown));
  (error as Error & { thrown?: unknown }).thrown = thrown;
  return error;
}

/** What a store or bulk call failed with, as an Error: an Error as it is, anything else wrapped in an Error of its text. */
export function asError(failure: unknown): Error {
  return failure instanceof Error ? failure : new Error(String(failure));
}
