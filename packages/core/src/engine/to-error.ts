import { engineMessages } from './engine.messages.js';

/** What a handler threw, as an Error (handlers may throw strings or anything else). */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  // An Error from another realm (a vm context, a test sandbox) fails instanceof but is one.
  const candidate = thrown as { message?: unknown; name?: unknown } | null;
  if (typeof candidate === 'object' && candidate !== null && typeof candidate.message === 'string' && typeof candidate.name === 'string') {
    return candidate as Error;
  }
  if (typeof thrown === 'string') return new Error(thrown);
  const error = new Error(engineMessages.handlerThrewNonError(thrown === null ? 'null' : typeof thrown));
  (error as Error & { thrown?: unknown }).thrown = thrown;
  return error;
}
