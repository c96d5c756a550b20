import { SlotLockedError } from './slot-locked.error.js';
import { SlotMovedError } from './slot-moved.error.js';

/**
 * The per-item results of a bulk store call (`scheduleMany`, `cancelMany`) from its items' settled
 * calls: a slot migration's refusal of one item (`SlotMovedError`, `SlotLockedError`) is that
 * item's result, for the engine to route it again; any other failure fails the whole call.
 */
export function itemResults<T>(settled: readonly PromiseSettledResult<T>[]): (T | Error)[] {
  return settled.map((result) => {
    if (result.status === 'fulfilled') return result.value;
    if (isItemRefusal(result.reason)) return result.reason;
    throw result.reason;
  });
}

/** Whether an item's failure is a slot migration's refusal of that item alone (its result), not a failure of the whole call. */
export function isItemRefusal(reason: unknown): reason is SlotMovedError | SlotLockedError {
  return reason instanceof SlotMovedError || reason instanceof SlotLockedError;
}
