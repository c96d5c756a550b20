import { DurableTimeoutError } from './durable-timeout.error.js';

/**
 * The abort reason of `event.signal`, and the error recorded for the attempt, when a handler ran
 * longer than its topic's `maxRunMs`: the delivery counts as failed (retried with backoff, or
 * dead-lettered on its last attempt) and whatever the handler does next is ignored.
 */
export class HandlerTimeoutError extends DurableTimeoutError {}
