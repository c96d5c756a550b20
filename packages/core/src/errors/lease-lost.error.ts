import { DurableTimeoutError } from './durable-timeout.error.js';

/**
 * The abort reason of `event.signal` (and the rejection of `event.extendLease`) when this delivery
 * no longer holds its timeout: a renewal was refused because a newer delivery or schedule owns it
 * (its fencing token is stale), or the lease could not be renewed before it ended (Redis
 * unreachable). Whatever the handler does next is not acked.
 */
export class LeaseLostError extends DurableTimeoutError {}
