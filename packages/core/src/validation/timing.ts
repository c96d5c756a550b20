import { InvalidDelayError } from '../errors/invalid-delay.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { describeType } from './describe-type.js';

/** Largest `delayMs` accepted: about 10 years. Anything larger is taken for a unit mistake. */
export const MAX_DELAY_MS = 10 * 365.25 * 24 * 3_600_000;

/** A validated timing: exactly one of the two fields. */
export type ValidTiming = { delayMs: number; at?: undefined } | { at: number; delayMs?: undefined };

/**
 * Validates the timing part of `schedule` options and returns it normalised (`at` as ms since the
 * epoch). `at` is checked against this machine's clock only for the 10-year sanity bound, which
 * no clock skew comes near; the due time itself is counted on the store clock.
 */
export function validateTiming(options: { delayMs?: unknown; at?: unknown }, localNow: number): ValidTiming {
  const hasDelay = options.delayMs !== undefined;
  const hasAt = options.at !== undefined;
  if (hasDelay && hasAt) throw new InvalidDelayError(errorMessages.timingBoth());
  if (hasDelay) {
    const delayMs = options.delayMs;
    if (typeof delayMs !== 'number') throw new InvalidDelayError(errorMessages.delayNotNumber(describeType(delayMs)));
    if (!Number.isFinite(delayMs)) throw new InvalidDelayError(errorMessages.delayNotFinite(delayMs));
    if (delayMs < 0) throw new InvalidDelayError(errorMessages.delayNegative(delayMs));
    if (delayMs > MAX_DELAY_MS) throw new InvalidDelayError(errorMessages.delayTooLarge(delayMs, MAX_DELAY_MS));
    return { delayMs };
  }
  if (hasAt) {
    const at = options.at instanceof Date ? options.at.getTime() : options.at;
    if (typeof at !== 'number' || !Number.isFinite(at) || at < 0) {
      const shown = options.at instanceof Date ? 'Invalid Date' : typeof at === 'number' ? String(at) : describeType(at);
      throw new InvalidDelayError(errorMessages.atInvalid(shown));
    }
    if (at > localNow + MAX_DELAY_MS) throw new InvalidDelayError(errorMessages.atTooFar(at));
    return { at };
  }
  throw new InvalidDelayError(errorMessages.timingMissing());
}
