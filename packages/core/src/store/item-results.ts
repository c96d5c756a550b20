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
    if (isSlotRefusal(result.reason)) return result.reason;
    throw result.reason;
  });
}

/**
 * Whether `error` is a slot migration's refusal of a call routed by a slot count the slot no longer
 * serves (`SlotMovedError`: route it again) or not now (`SlotLockedError`: call again shortly). In
 * a bulk call it is the result of that item alone, not a failure of the whole call.
 */
export function isSlotRefusal(error: unknown): error is SlotMovedError | SlotLockedError {
  return error instanceof SlotMovedError || error instanceof SlotLockedError;
}
