import { InvalidTimeoutIdError } from '../errors/invalid-timeout-id.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { describeType } from './describe-type.js';

/** Longest timeout id accepted, in UTF-16 code units (the store contract covers ids of this length). */
export const MAX_TIMEOUT_ID_LENGTH = 512;

/** Throws `InvalidTimeoutIdError` unless `id` is a non-empty string of at most `MAX_TIMEOUT_ID_LENGTH` characters. */
export function assertTimeoutId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new InvalidTimeoutIdError(errorMessages.idNotString(describeType(id)));
  if (id.length === 0) throw new InvalidTimeoutIdError(errorMessages.idEmpty());
  if (id.length > MAX_TIMEOUT_ID_LENGTH) throw new InvalidTimeoutIdError(errorMessages.idTooLong(id.length, MAX_TIMEOUT_ID_LENGTH));
}
