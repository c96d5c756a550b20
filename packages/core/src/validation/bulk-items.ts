import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { describeType } from './describe-type.js';

/** Most items one `scheduleMany` / `cancelMany` call takes: each slot's share goes in one script call, which must stay short. */
export const MAX_BULK_ITEMS = 10_000;

/** Checks the item list of a bulk call: an array of at most `MAX_BULK_ITEMS` (items are checked one by one later). */
export function assertBulkItems(operation: string, items: unknown): void {
  if (!Array.isArray(items)) throw new InvalidOptionsError(errorMessages.bulkNotArray(operation, describeType(items)));
  if (items.length > MAX_BULK_ITEMS) throw new InvalidOptionsError(errorMessages.bulkTooMany(operation, items.length, MAX_BULK_ITEMS));
}
