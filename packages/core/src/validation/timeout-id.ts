import { InvalidTimeoutIdError } from '../errors/invalid-timeout-id.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { describeType } from './describe-type.js';

/** Longest timeout id accepted, in UTF-16 code units (the store contract covers ids of this length). */
export const MAX_TIMEOUT_ID_LENGTH = 512;

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Throws `InvalidTimeoutIdError` unless `id` is a non-empty, well-formed Unicode string of at most
 * `MAX_TIMEOUT_ID_LENGTH` characters. A lone surrogate has no UTF-8 form: Redis would store the
 * replacement character in its place, so two different ids would become one stored timeout and the
 * handler would receive an id other than the one scheduled.
 */
export function assertTimeoutId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new InvalidTimeoutIdError(errorMessages.idNotString(describeType(id)));
  if (id.length === 0) throw new InvalidTimeoutIdError(errorMessages.idEmpty());
  if (id.length > MAX_TIMEOUT_ID_LENGTH) throw new InvalidTimeoutIdError(errorMessages.idTooLong(id.length, MAX_TIMEOUT_ID_LENGTH));
  const surrogate = LONE_SURROGATE.exec(id);
  if (surrogate) throw new InvalidTimeoutIdError(errorMessages.idNotWellFormed(surrogate.index));
}
