/** Largest error text kept with a retried or dead timeout, in UTF-16 code units. */
export const MAX_STORED_ERROR_LENGTH = 1_000;

/** Cuts an error text to `MAX_STORED_ERROR_LENGTH` without splitting a surrogate pair. */
export function truncateError(error: string): string {
  if (error.length <= MAX_STORED_ERROR_LENGTH) return error;
  let end = MAX_STORED_ERROR_LENGTH;
  const last = error.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return error.slice(0, end);
}

/**
 * The last error stored with a timeout whose lease expired. The claim script writes the same text
 * (`LEASE_EXPIRED` in commands/includes/stored.lua); the store contract checks both stores agree.
 */
export const LEASE_EXPIRED_ERROR = 'lease expired: the worker died or the handler ran longer than leaseMs';

/**
 * The last error stored with a timeout that the topic's `late` policy dead-lettered. The claim
 * script writes the same text (`LATE` in commands/includes/stored.lua); the store contract checks
 * both stores agree.
 */
export const LATE_ERROR = "late: claimed more than the topic's late.afterMs after its due time";
